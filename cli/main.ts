import { Command, CommanderError } from 'commander';
import { describeError, SbevalError } from '../core/errors.js';
import { isMainModule } from '../core/main-module.js';
import { printable } from '../core/printable.js';
import { storageFault } from '../core/storage.js';
import type { RootGuard } from '../orchestrator/layout/root-guard.js';
import { COMMAND_GROUPS } from './commands/index.js';
import { COMMAND_SUMMARIES, type CommandName } from './commands/summaries.js';
import { EXIT_OK, EXIT_USAGE } from './exit-codes.js';
import { commandPath, ROOT_WRITERS } from './root-writers.js';

/**
 * The program with every command, or — with `only` — with that command's group loaded and the others
 * as their names and summaries (enough for `sbeval --help` and for "did you mean" on a mistyped
 * command), so a command loads its own modules and no other's. `guards` receives the root guard of a
 * command that writes into a competition root (cli/root-writers.ts), taken before its action runs; the
 * caller releases it when the command ends.
 */
export async function buildProgram(guards: RootGuard[] = [], only?: { command: string | undefined; subcommand?: string | undefined }): Promise<Command> {
  const program = new Command('sbeval')
    .description('Evaluate LLM-generated Science Birds levels the way ChatGPT4PCG / LLMs4PCG do, headlessly.')
    .version(process.env.npm_package_version ?? '0.1.0')
    .exitOverride();
  for (const group of COMMAND_GROUPS) {
    if (!only || group.commands.includes(only.command as CommandName)) (await group.load(only?.subcommand))(program);
    else for (const name of group.commands) program.command(name).description(COMMAND_SUMMARIES[name]);
  }
  program.hook('preAction', async (_program, action) => {
    const name = commandPath(action);
    const options = ROOT_WRITERS.get(name);
    const root = action.args[0];
    if (!options || root === undefined) return;
    // The folder must look like a competition before the guard writes its lock there (layout/root-check.ts).
    const { checkRootBeforeWrite } = await import('./settings-options.js');
    checkRootBeforeWrite(name, root, action.opts());
    const { guardRoot } = await import('../orchestrator/layout/root-guard.js');
    const guard = guardRoot(root, name, options);
    guards.push(guard);
    if (guard.replaced) {
      const r = guard.replaced;
      process.stderr.write(`sbeval: took over the lock of sbeval ${r.command} (pid ${r.pid}, since ${r.started}), which is no longer running\n`);
    }
    if (guard.removedTemps > 0) process.stderr.write(`sbeval: removed ${guard.removedTemps} temporary file(s) left by an interrupted run\n`);
  });
  return program;
}

/** The command an argument list runs and the word after it: its first words that are not options (`help run` asks for run's help). */
function commandOf(argv: readonly string[]): { command: string | undefined; subcommand: string | undefined } {
  const words = argv.slice(2).filter((word) => !word.startsWith('-'));
  const [command, subcommand] = words[0] === 'help' ? words.slice(1) : words;
  return { command, subcommand };
}

/**
 * A usage error is commander's one line with its "Did you mean …?" (a flag of this command, a command
 * of this group), then — for a flag this command does not take but others do (`run --sim-trials`) —
 * the commands that take it, and a pointer to the command's help, not the whole help text, which
 * would push the error off the screen. What commander writes to stderr is kept, in order, and printed
 * after the parse, when the other commands can be loaded to find who takes the flag.
 */
interface ErrorText {
  text: string;
  /** An error line (the flag's owners go after it), not the pointer to the help. */
  error: boolean;
}

function shortUsageErrors(command: Command, path: string, written: ErrorText[]): void {
  command.showHelpAfterError(`(see: ${path} --help)`);
  command.showSuggestionAfterError(true);
  command.configureOutput({ outputError: (text) => written.push({ text, error: true }), writeErr: (text) => written.push({ text, error: false }) });
  for (const sub of command.commands) shortUsageErrors(sub, `${path} ${sub.name()}`, written);
}

async function printErrors(written: readonly ErrorText[]): Promise<void> {
  for (const { text, error } of written) process.stderr.write(`${text}${error ? await flagElsewhere(text) : ''}`);
}

/** `(--sim-trials is an option of: sbeval simulate, sbeval level)` for an unknown option commander found no near flag for. */
async function flagElsewhere(text: string): Promise<string> {
  const flag = /unknown option '(--[^'=]+)/.exec(text)?.[1];
  if (!flag || /Did you mean/.test(text)) return '';
  const program = await buildProgram();
  const owners: string[] = [];
  const walk = (command: Command, path: string): void => {
    if (
      command
        .createHelp()
        .visibleOptions(command)
        .some((o) => o.long === flag)
    )
      owners.push(path);
    for (const sub of command.commands) walk(sub, `${path} ${sub.name()}`);
  };
  walk(program, 'sbeval');
  return owners.length > 0 ? `(${flag} is an option of: ${owners.join(', ')})\n` : '';
}

export async function runCli(argv: string[]): Promise<number> {
  const guards: RootGuard[] = [];
  const written: ErrorText[] = [];
  try {
    const program = await buildProgram(guards, commandOf(argv));
    shortUsageErrors(program, 'sbeval', written);
    await program.parseAsync(argv);
    await printErrors(written);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT_OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      await printErrors(written);
      // --help and --version end through exitOverride with exit code 0.
      return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    // A file-system error that no stage wrapped still becomes one line naming the path and the cause.
    const shown = storageFault(error) ?? error;
    const phase = shown instanceof SbevalError ? `[${shown.phase}] ` : '';
    process.stderr.write(`sbeval: ${phase}${printable(describeError(shown), { lines: true })}\n`);
    if (process.env.SBEVAL_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    return EXIT_USAGE;
  } finally {
    for (const guard of guards) guard.release();
  }
}

/** `sbeval ... | head` closes stdout early: that is the reader's choice, not an error. */
export function exitQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
}

if (isMainModule(import.meta.url)) {
  exitQuietlyOnClosedPipe();
  process.exitCode = await runCli(process.argv);
}
