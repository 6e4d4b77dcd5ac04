import { InvalidArgumentError, Option, type Command } from 'commander';
import { resolve } from 'node:path';
import { formatSummary } from '../../layout/stage-log.js';
import { createProgressDisplay } from '../../progress/index.js';
import { SbevalError } from '../../../core/errors.js';
import { resolveSettings, settingsLine } from '../../config/index.js';
import { DEFAULT_POOL_SETTINGS, withModelCalls } from '../../generate/host-pool.js';
import { addSettingsOptions } from '../settings-options.js';
import { OFFICIAL_TEMPERATURE, OFFICIAL_TIME_LIMIT_S, OFFICIAL_TOKEN_LIMIT, OFFICIAL_TOP_P } from '../../generate/limits.js';
import { TokenMeter } from '../../generate/token-meter.js';
import { OFFICIAL_MASTER_SEED_2025 } from '../../generate/seeds.js';
import { runGenerate, stageName, type GenerateSummary, type LayoutChoice } from '../../generate/stage.js';
import { describeSubmission, loadSubmission, type Newlines, type ObjectStyle } from '../../generate/submission.js';
import { requireProgramConsent } from '../../generate/consent.js';
import { configuredSubmissions } from '../../run/generate-stage.js';
import { EXIT_CHECK_FAILED } from '../exit-codes.js';

/**
 * `sbeval generate <root>`: ask models for levels (the `raw` stage) through Ollama or an OpenAI-style
 * API, the way the 2024/2025 competitions did, resumable and spread over several hosts, every call
 * bounded (docs/model-calls.md).
 */
function list(value: string): string[] {
  return value.split(',').map((v) => v.trim()).filter((v) => v.length > 0);
}

function int(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`expected an integer from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}`);
    return n;
  };
}

function nonNegative(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number ≥ 0');
  return n;
}

interface GenerateFlags {
  submission?: string;
  team?: string;
  models?: string[];
  hosts?: string[];
  trials?: number;
  chars?: string;
  seed?: number;
  timeLimit?: number;
  tokenLimit?: number;
  temperature: number;
  topP: number;
  concurrency?: number;
  objectStyle?: ObjectStyle;
  newlines?: Newlines;
  layout: LayoutChoice;
  retryFailed?: boolean;
  stream: boolean;
  stallTimeout: number;
  maxAttempts: number;
  backoff: number;
  hostFailures: number;
  hostCooldown: number;
  api?: string;
  callTimeout?: number;
  maxAnswerBytes?: number;
  json?: boolean;
  allowPrograms?: boolean;
}

function summaryLines(summary: GenerateSummary, team: string): string[] {
  const lines: string[] = [];
  for (const m of summary.models) {
    lines.push(
      `${m.model}: ${m.succeeded} written, ${m.failed} failed (limits), ${m.unfinished} unfinished, ${m.alreadyDone} already done, ${m.previouslyFailed} failed earlier — ${m.promptTokens} prompt + ${m.completionTokens} completion tokens`,
    );
    lines.push(`  files: ${resolve(m.root, team, 'raw')}`);
    for (const line of formatSummary(m.stage).split('\n').slice(1)) lines.push(`  ${line}`);
  }
  lines.push(`calls and trials: ${summary.logFile}`);
  if (summary.stopped) lines.push(`stopped early: ${summary.stopped}`);
  return lines;
}

export function registerGenerateCommands(program: Command): void {
  const command = program
    .command('generate')
    .description('submission × models × letters × trials → raw LLM responses through Ollama or an OpenAI-style API (official limits, resumable, several hosts)')
    .argument('<root>', 'competition folder to write (<root>/<team>/raw/<C>/<team>_<C>_<n>.txt)')
    .option('--submission <spec>', 'a prompt file, a chat script (.json/.yaml), a program spec (.json/.yaml with "program"), exec:<program>, or builtin:zero-shot | builtin:zero-shot-multi-turn (default: every submission of the root config, as sbeval run)')
    .option('--team <name>', 'team name (folder and file prefix), with --submission')
    .option('--models <a,b,c>', "model names, comma-separated (default: the root config's models)", list)
    .option('--hosts <url,url>', "model hosts sharing the work; with --api openai each is a base URL like http://host:8000/v1 (default: the root config's hosts, else $OLLAMA_HOST or http://127.0.0.1:11434)", list)
    .option('--trials <n>', "trials per letter, T (default: the root config's trials, else 10)", int(1, 100_000))
    .option('--chars <letters>', "letters: ranges and lists, e.g. A-Z, A,I,L, A-C,X (default: the root config's characters, else A-Z)")
    .option('--seed <n>', `master seed; trial seed = master + 26·(trial−1) + letter index (A=0) (default: the root config's seed, else ${OFFICIAL_MASTER_SEED_2025})`, int(-(2 ** 31), 2 ** 31 - 1))
    .option('--time-limit <s>', `per-trial time limit in seconds, checked before each call (0 = none; default: the root config's limits.timeSeconds, else ${OFFICIAL_TIME_LIMIT_S})`, nonNegative)
    .option('--token-limit <n>', `per-trial prompt+completion token limit, checked after each call (0 = none; default: the root config's limits.tokens, else ${OFFICIAL_TOKEN_LIMIT})`, int(0))
    .option('--temperature <t>', 'sampling temperature of every call', nonNegative, OFFICIAL_TEMPERATURE)
    .option('--top-p <p>', "top_p of every call (1 = what Ollama's OpenAI endpoint used in 2025)", nonNegative, OFFICIAL_TOP_P)
    .option('--concurrency <n>', 'trials in flight at once (default: one per host)', int(1, 1024))
    .addOption(new Option('--object-style <style>', '<OBJECT> becomes "A" (quoted, 2023) or A (bare, 2024+)').choices(['quoted', 'bare']))
    .addOption(new Option('--newlines <mode>', 'prompt line ends: lf (as Python text mode; default for bare) or keep (default for quoted)').choices(['lf', 'keep']))
    .addOption(new Option('--layout <layout>', 'auto: official layout for one model, <root>/<model>/… for several').choices(['auto', 'flat', 'per-model']).default('auto'))
    .option('--retry-failed', 'run again the trials that failed a limit in an earlier run')
    .option('--no-stream', 'ask for whole answers instead of streamed ones')
    .option('--stall-timeout <s>', 'retry a call when the host sends nothing for this long (0 = never)', nonNegative, DEFAULT_POOL_SETTINGS.call.stallTimeoutMs / 1000)
    .option('--max-attempts <n>', 'failed attempts (network errors, 5xx, dropped streams) before a call gives up', int(1, 1000), DEFAULT_POOL_SETTINGS.maxAttempts)
    .option('--backoff <ms>', 'first back-off of a failing host; doubles per consecutive failure (max 30 s)', int(0), DEFAULT_POOL_SETTINGS.backoffMs)
    .option('--host-failures <n>', 'consecutive failures that set a host aside', int(1, 1000), DEFAULT_POOL_SETTINGS.hostFailures)
    .option('--host-cooldown <s>', 'how long a host stays aside (doubles each time, up to 8×)', nonNegative, DEFAULT_POOL_SETTINGS.cooldownMs / 1000)
    .option('--json', 'progress and summary as JSON lines on stdout')
    .option('--allow-programs', "run the program submissions the root's config lists (a program given with --submission needs no flag)");
  addSettingsOptions(command, ['api', 'callTimeout', 'maxAnswerBytes'])
    .addHelpText(
      'after',
      `
The 2025 setup (three models, master seed 6280, 500 s and 25,000 tokens per trial, temperature 1):
  sbeval generate competition --submission builtin:zero-shot --team zero_shot \\
    --models qwen2.5:32b-instruct-fp16,gemma2:27b-instruct-fp16,phi3:14b-medium-128k-instruct-fp16 \\
    --hosts http://gpu1:11434,http://gpu2:11434

Files: one model → <root>/<team>/raw/<C>/<team>_<C>_<n>.txt (official); several →
<root>/<model-folder>/<team>/raw/… (':' and '/' in model names become '_'). Existing files are
skipped, so the same command resumes a killed run. A trial over a limit fails with the official
message ("Time limit exceeded. …", "Prompt token limit exceeded. …") and writes no file. Every call
is logged to <root>/logs/generate_<time>.jsonl; per-trial lines go to <competition>/logs/raw_log_<time>.txt.
Every call is bounded: --call-timeout (default: the time limit), --stall-timeout, --max-answer-bytes
(default 1 MiB); redirects are refused; credentials (userinfo in a host URL, the API key from the
environment) never appear in logs or messages. Details: docs/model-calls.md.
Exit code 0 when every trial has a file or failed a limit, 1 when some are unfinished (hosts down,
program errors: run again), 2 on setup errors.`,
    )
    .action(async (root: string, flags: GenerateFlags) => {
      // The root's config as every command reads it (T, letters, models, hosts, seed); generate may start an empty or new root.
      const settings = resolveSettings(
        root,
        {
          trials: flags.trials,
          chars: flags.chars,
          models: flags.models,
          hosts: flags.hosts,
          seed: flags.seed,
          api: flags.api,
          timeLimit: flags.timeLimit,
          tokenLimit: flags.tokenLimit,
          callTimeout: flags.callTimeout,
          maxAnswerBytes: flags.maxAnswerBytes,
        },
        { command: 'generate', allowEmpty: true, allowMissing: true },
      );
      process.stderr.write(`${settingsLine(settings, 'generate')}\n`);
      const models = settings.models.map((m) => m.name);
      if (models.length === 0) throw new SbevalError('config', 'no models to ask', "pass --models, or set models in the root's sbeval.config.yaml");
      // One truth with `sbeval run`: without --submission, the config's submissions, each as run asks them.
      if ((flags.submission === undefined) !== (flags.team === undefined)) throw new SbevalError('input', '--submission and --team go together', 'give both, or neither to use the submissions of the root config');
      const overrides = { objectStyle: flags.objectStyle, newlines: flags.newlines };
      const jobs = flags.submission !== undefined ? [{ team: flags.team!, submission: loadSubmission(flags.submission, overrides) }] : configuredSubmissions(settings.submissions, overrides);
      // A program the config names runs only with consent; one named with --submission is the user's own choice.
      if (flags.submission === undefined) requireProgramConsent(jobs, flags.allowPrograms === true);
      if (jobs.length === 0) throw new SbevalError('config', 'no submission to generate from', "pass --submission <spec> --team <name>, or set submissions in the root's sbeval.config.yaml");
      const hosts = settings.hosts;
      const characters = settings.characters;
      const display = createProgressDisplay({ json: flags.json === true });
      const meter = new TokenMeter((model, message) => display.note(stageName(model), message));
      const cancel = new AbortController();
      const onSigint = () => {
        if (cancel.signal.aborted) process.exit(130);
        display.note('generate', 'interrupted: stopping the running trials (Ctrl-C again to quit at once)');
        cancel.abort();
      };
      process.on('SIGINT', onSigint);
      const summaries: Array<{ team: string; summary: GenerateSummary }> = [];
      try {
        for (const { team, submission } of jobs) {
          if (cancel.signal.aborted) break;
          if (!flags.json) process.stderr.write(`generate: ${team}: ${describeSubmission(submission)}\n`);
          const summary = await runGenerate(
            {
              root: settings.root,
              submission,
              team,
              models,
              hosts,
              trials: settings.trials,
              characters,
              masterSeed: settings.seed,
              limits: { timeLimitS: settings.limits.timeSeconds, tokenLimit: settings.limits.tokens },
              sampling: { temperature: flags.temperature, topP: flags.topP },
              concurrency: flags.concurrency ?? hosts.length,
              layout: flags.layout,
              retryFailed: flags.retryFailed === true,
              pool: withModelCalls(
                {
                  ...DEFAULT_POOL_SETTINGS,
                  maxAttempts: flags.maxAttempts,
                  backoffMs: flags.backoff,
                  hostFailures: flags.hostFailures,
                  cooldownMs: flags.hostCooldown * 1000,
                  call: { ...DEFAULT_POOL_SETTINGS.call, stream: flags.stream, stallTimeoutMs: flags.stallTimeout * 1000 },
                },
                settings.modelCalls,
              ),
            },
            display,
            {
              call: (line) => meter.call(line),
              host: (event) => {
                const text =
                  event.type === 'set-aside'
                    ? `host ${event.host} set aside for ${Math.round(event.forMs / 1000)} s: ${event.reason}`
                    : event.type === 'back'
                      ? `host ${event.host} is back`
                      : event.type === 'model-missing'
                        ? `host ${event.host} does not have ${event.model}`
                        : `host ${event.host} is not reachable: ${event.reason}`;
                display.note('generate', text);
              },
              note: (message) => display.note('generate', message),
            },
            cancel.signal,
          );
          summaries.push({ team, summary });
        }
      } finally {
        meter.close();
        display.close();
        process.off('SIGINT', onSigint);
      }
      if (!flags.json) for (const line of meter.summary()) process.stdout.write(`${line}\n`);
      for (const { team, summary } of summaries) {
        if (flags.json) {
          process.stdout.write(
            `${JSON.stringify({
              type: 'summary',
              ...(jobs.length > 1 ? { team } : {}),
              logFile: summary.logFile,
              stopped: summary.stopped ?? null,
              models: summary.models.map(({ stage, ...rest }) => ({ ...rest, reasons: Object.fromEntries(stage.reasons), stageLog: stage.logFile })),
            })}\n`,
          );
        } else for (const line of summaryLines(summary, team)) process.stdout.write(`${line}\n`);
      }
      const unfinished = summaries.length < jobs.length || summaries.some(({ summary }) => summary.stopped || summary.models.some((m) => m.unfinished > 0));
      if (unfinished) process.exitCode = EXIT_CHECK_FAILED;
    });
}
