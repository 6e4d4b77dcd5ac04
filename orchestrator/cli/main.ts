import { Command, CommanderError } from 'commander';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describeError, SbevalError } from '../../core/errors.js';
import { COMMANDS } from './commands/index.js';

/** Exit codes: 0 the command ran (trials may have failed and are recorded), 1 a verdict or check failed, 2 usage or setup error. */
export const EXIT_OK = 0;
export const EXIT_CHECK_FAILED = 1;
export const EXIT_USAGE = 2;

export function buildProgram(): Command {
  const program = new Command('sbeval')
    .description('Evaluate LLM-generated Science Birds levels the way ChatGPT4PCG / LLMs4PCG do, headlessly.')
    .version(process.env.npm_package_version ?? '0.1.0')
    .showHelpAfterError()
    .exitOverride();
  for (const register of COMMANDS) register(program);
  return program;
}

export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT_OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through exitOverride with exit code 0.
      return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    const phase = error instanceof SbevalError ? `[${error.phase}] ` : '';
    process.stderr.write(`sbeval: ${phase}${describeError(error)}\n`);
    if (process.env.SBEVAL_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    return EXIT_USAGE;
  }
}

function isMain(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
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

if (isMain()) {
  exitQuietlyOnClosedPipe();
  process.exitCode = await runCli(process.argv);
}
