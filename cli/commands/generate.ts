import { resolve } from 'node:path';
import type { Command } from 'commander';
import { SbevalError } from '../../core/errors.js';
import { resolveSettings } from '../../llm/config.js';
import { requireProgramConsent } from '../../llm/generate/consent.js';
import { DEFAULT_POOL_SETTINGS, type HostEvent } from '../../llm/generate/host-pool.js';
import { OFFICIAL_TEMPERATURE, OFFICIAL_TIME_LIMIT_S, OFFICIAL_TOKEN_LIMIT, OFFICIAL_TOP_P } from '../../llm/generate/limits.js';
import type { CallLine } from '../../llm/generate/run-log.js';
import { configuredSubmissions, generateOptions } from '../../llm/generate/run-stage.js';
import { OFFICIAL_MASTER_SEED_2025 } from '../../llm/generate/seeds.js';
import { type GenerateOptions, type GenerateSummary, type LayoutChoice, runGenerate, stageName } from '../../llm/generate/stage.js';
import { describeSubmission, loadSubmission, NEWLINES, type Newlines, type ObjectStyle, type Submission } from '../../llm/generate/submission.js';
import { TokenMeter } from '../../llm/generate/token-meter.js';
import { DEFAULTS, type Settings, settingsLine } from '../../orchestrator/config/index.js';
import { formatSummary } from '../../orchestrator/layout/stage-log.js';
import { createProgressDisplay } from '../../orchestrator/progress/index.js';
import { OBJECT_STYLES } from '../../scoring/score/rules.js';
import { EXIT_CHECK_FAILED } from '../exit-codes.js';
import { list, nonNegativeNumber, option, wholeNumber } from '../options.js';
import { addSettingsOptions } from '../settings-options.js';
import { COMMAND_SUMMARIES } from './summaries.js';

/**
 * `sbeval generate <root>`: ask models for levels (the `raw` stage) through Ollama or an OpenAI-style
 * API, the way the 2024/2025 competitions did, resumable and spread over several hosts, every call
 * bounded (docs/model-calls.md).
 */
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

type Job = { team: string; submission: Submission };
type GenerateRun = { team: string; summary: GenerateSummary };

/** The root's config as every command reads it (T, letters, models, hosts, seed); generate may start an empty or new root. */
function generateSettings(root: string, flags: GenerateFlags): Settings {
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
  if (settings.models.length === 0) throw new SbevalError('config', 'no models to ask', "pass --models, or set models in the root's sbeval.config.yaml");
  return settings;
}

/** One truth with `sbeval run`: without --submission, the config's submissions, each as run asks them. */
function generateJobs(settings: Settings, flags: GenerateFlags): Job[] {
  if ((flags.submission === undefined) !== (flags.team === undefined))
    throw new SbevalError('input', '--submission and --team go together', 'give both, or neither to use the submissions of the root config');
  const overrides = { objectStyle: flags.objectStyle, newlines: flags.newlines };
  const jobs =
    flags.submission !== undefined
      ? [{ team: flags.team!, submission: loadSubmission(flags.submission, overrides) }]
      : configuredSubmissions(settings.submissions, overrides);
  // A program the config names runs only with consent; one named with --submission is the user's own choice.
  if (flags.submission === undefined) requireProgramConsent(jobs, flags.allowPrograms === true);
  if (jobs.length === 0)
    throw new SbevalError(
      'config',
      'no submission to generate from',
      "pass --submission <spec> --team <name>, or set submissions in the root's sbeval.config.yaml",
    );
  return jobs;
}

/** The generation of one submission: the settings' T, letters, models, hosts and limits, and this command's sampling and host-pool flags. */
function jobOptions(settings: Settings, flags: GenerateFlags, job: Job): GenerateOptions {
  const pool = {
    ...DEFAULT_POOL_SETTINGS,
    maxAttempts: flags.maxAttempts,
    backoffMs: flags.backoff,
    hostFailures: flags.hostFailures,
    cooldownMs: flags.hostCooldown * 1000,
    call: { ...DEFAULT_POOL_SETTINGS.call, stream: flags.stream, stallTimeoutMs: flags.stallTimeout * 1000 },
  };
  return generateOptions(settings, job, {
    sampling: { temperature: flags.temperature, topP: flags.topP },
    concurrency: flags.concurrency ?? settings.hosts.length,
    layout: flags.layout,
    retryFailed: flags.retryFailed === true,
    pool,
  });
}

function hostNote(event: HostEvent): string {
  if (event.type === 'set-aside') return `host ${event.host} set aside for ${Math.round(event.forMs / 1000)} s: ${event.reason}`;
  if (event.type === 'back') return `host ${event.host} is back`;
  if (event.type === 'model-missing') return `host ${event.host} does not have ${event.model}`;
  return `host ${event.host} is not reachable: ${event.reason}`;
}

/** Every job in turn, until Ctrl-C (again to quit at once); the token meter notes each call. */
async function generateAll(
  settings: Settings,
  flags: GenerateFlags,
  jobs: readonly Job[],
  display: ReturnType<typeof createProgressDisplay>,
  meter: TokenMeter,
): Promise<GenerateRun[]> {
  const cancel = new AbortController();
  const onSigint = () => {
    if (cancel.signal.aborted) process.exit(130);
    display.note('generate', 'interrupted: stopping the running trials (Ctrl-C again to quit at once)');
    cancel.abort();
  };
  process.on('SIGINT', onSigint);
  const runs: GenerateRun[] = [];
  try {
    for (const job of jobs) {
      if (cancel.signal.aborted) break;
      if (!flags.json) process.stderr.write(`generate: ${job.team}: ${describeSubmission(job.submission)}\n`);
      const events = {
        call: (line: CallLine) => meter.call(line),
        host: (event: HostEvent) => display.note('generate', hostNote(event)),
        note: (message: string) => display.note('generate', message),
      };
      runs.push({ team: job.team, summary: await runGenerate(jobOptions(settings, flags, job), display, events, cancel.signal) });
    }
  } finally {
    process.off('SIGINT', onSigint);
  }
  return runs;
}

function summaryJson({ team, summary }: GenerateRun, several: boolean): string {
  const models = summary.models.map(({ stage, ...rest }) => ({ ...rest, reasons: Object.fromEntries(stage.reasons), stageLog: stage.logFile }));
  return JSON.stringify({ type: 'summary', ...(several ? { team } : {}), logFile: summary.logFile, stopped: summary.stopped ?? null, models });
}

/**
 * T given by --trials is this command's only: the folder's other commands take T from the config (or
 * their own --trials, or the default), so a T they would not use is said here, with the way to keep it.
 */
function trialsLaterNote(root: string, settings: Settings): string | undefined {
  if (settings.sources.trials !== 'flag') return undefined;
  const later = resolveSettings(root, {}, { command: 'run', allowEmpty: true, allowMissing: true });
  if (later.trials === settings.trials) return undefined;
  return `--trials ${settings.trials} holds for this command only: \`sbeval run\` and \`sbeval score\` on this folder use T ${later.trials} (${later.sources.trials === 'config' ? 'sbeval.config.yaml' : 'the default'}); set trials: ${settings.trials} in sbeval.config.yaml, or pass --trials ${settings.trials} to them`;
}

async function generateAction(root: string, flags: GenerateFlags): Promise<void> {
  const settings = generateSettings(root, flags);
  const jobs = generateJobs(settings, flags);
  const display = createProgressDisplay({ json: flags.json === true });
  const meter = new TokenMeter((model, message) => display.note(stageName(model), message));
  let runs: GenerateRun[];
  try {
    runs = await generateAll(settings, flags, jobs, display, meter);
  } finally {
    meter.close();
    display.close();
  }
  if (!flags.json) for (const line of meter.summary()) process.stdout.write(`${line}\n`);
  for (const run of runs)
    process.stdout.write(
      flags.json
        ? `${summaryJson(run, jobs.length > 1)}\n`
        : summaryLines(run.summary, run.team)
            .map((line) => `${line}\n`)
            .join(''),
    );
  const later = trialsLaterNote(root, settings);
  if (later) process.stderr.write(`note: ${later}\n`);
  const unfinished = runs.length < jobs.length || runs.some(({ summary }) => summary.stopped || summary.models.some((m) => m.unfinished > 0));
  if (unfinished) process.exitCode = EXIT_CHECK_FAILED;
}

/** The call and host-pool options (the API, deadline and answer cap are the shared ones of every command that calls a model). */
function callOptions(command: Command): Command {
  return command
    .addOption(option('--concurrency <n>', 'trials in flight at once', { parse: wholeNumber(1, 1024), defaultText: 'one per host' }))
    .addOption(
      option('--stall-timeout <s>', 'retry a call when the host sends nothing for this long (0 = never)', {
        parse: nonNegativeNumber,
        default: DEFAULT_POOL_SETTINGS.call.stallTimeoutMs / 1000,
      }),
    )
    .addOption(
      option('--max-attempts <n>', 'failed attempts (network errors, 5xx, dropped streams) before a call gives up', {
        parse: wholeNumber(1, 1000),
        default: DEFAULT_POOL_SETTINGS.maxAttempts,
      }),
    )
    .addOption(
      option('--backoff <ms>', 'first back-off of a failing host; doubles per consecutive failure (max 30 s)', {
        parse: wholeNumber(0),
        default: DEFAULT_POOL_SETTINGS.backoffMs,
      }),
    )
    .addOption(
      option('--host-failures <n>', 'consecutive failures that set a host aside', { parse: wholeNumber(1, 1000), default: DEFAULT_POOL_SETTINGS.hostFailures }),
    )
    .addOption(
      option('--host-cooldown <s>', 'how long a host stays aside (doubles each time, up to 8×)', {
        parse: nonNegativeNumber,
        default: DEFAULT_POOL_SETTINGS.cooldownMs / 1000,
      }),
    );
}

/** Which submission and team, and the models and hosts that answer it. */
function sourceOptions(command: Command): Command {
  return command
    .addOption(
      option(
        '--submission <spec>',
        'a prompt file, a chat script (.json/.yaml), a program spec (.json/.yaml with "program"), exec:<program>, or builtin:zero-shot | builtin:zero-shot-multi-turn',
        { defaultText: 'every submission of the root config, as sbeval run' },
      ),
    )
    .addOption(option('--team <name>', 'team name (folder and file prefix), with --submission'))
    .addOption(option('--models <a,b,c>', 'model names (comma-separated, repeatable)', { parse: list, defaultText: "the root config's models" }))
    .addOption(
      option('--hosts <url,url>', 'model hosts sharing the work; with --api openai each is a base URL like http://host:8000/v1', {
        parse: list,
        defaultText: "the root config's hosts, else $OLLAMA_HOST or http://127.0.0.1:11434",
      }),
    );
}

/** T, the letters, the master seed and the per-trial limits. */
function trialOptions(command: Command): Command {
  return command
    .addOption(
      option('--trials <n>', 'trials per letter, T', { parse: wholeNumber(1, 100_000), defaultText: `the root config's trials, else ${DEFAULTS.trials}` }),
    )
    .addOption(option('--chars <letters>', 'letters: ranges and lists, e.g. A-Z, A,I,L, A-C,X', { defaultText: "the root config's characters, else A-Z" }))
    .addOption(
      option('--seed <n>', 'master seed; trial seed = master + 26·(trial−1) + letter index (A=0)', {
        parse: wholeNumber(-(2 ** 31), 2 ** 31 - 1),
        defaultText: `the root config's seed, else ${OFFICIAL_MASTER_SEED_2025}`,
      }),
    )
    .addOption(
      option('--time-limit <s>', 'per-trial time limit in seconds, checked before each call (0 = none)', {
        parse: nonNegativeNumber,
        defaultText: `the root config's limits.timeSeconds, else ${OFFICIAL_TIME_LIMIT_S}`,
      }),
    )
    .addOption(
      option('--token-limit <n>', 'per-trial prompt+completion token limit, checked after each call (0 = none)', {
        parse: wholeNumber(0),
        defaultText: `the root config's limits.tokens, else ${OFFICIAL_TOKEN_LIMIT}`,
      }),
    );
}

/** How every prompt is sampled and written: temperature, top_p, the object style and line ends. */
function promptOptions(command: Command): Command {
  return command
    .addOption(option('--temperature <t>', 'sampling temperature of every call', { parse: nonNegativeNumber, default: OFFICIAL_TEMPERATURE }))
    .addOption(
      option('--top-p <p>', "top_p of every call (1 = what Ollama's OpenAI endpoint used in 2025)", { parse: nonNegativeNumber, default: OFFICIAL_TOP_P }),
    )
    .addOption(
      option('--object-style <style>', '<OBJECT> becomes "A" (quoted, 2023) or A (bare, 2024+)', {
        choices: OBJECT_STYLES,
        defaultText: "a chat script's object key, else bare",
      }),
    )
    .addOption(
      option('--newlines <mode>', 'prompt line ends: lf (as Python text mode) or keep', {
        choices: NEWLINES,
        defaultText: 'lf for bare, keep for quoted',
      }),
    );
}

/** Where the files go, which trials run again, and whether answers stream. */
function runOptions(command: Command): Command {
  return command
    .addOption(
      option('--layout <layout>', 'auto: official layout for one model, <root>/<model>/… for several', {
        choices: ['auto', 'flat', 'per-model'],
        default: 'auto',
      }),
    )
    .option('--retry-failed', 'run again the trials that failed a limit in an earlier run')
    .option('--no-stream', 'ask for whole answers instead of streamed ones');
}

const GENERATE_HELP = `
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
program errors: run again), 2 on setup errors.`;

export function registerGenerateCommands(program: Command): void {
  const command = program
    .command('generate')
    .description(COMMAND_SUMMARIES.generate)
    .argument('<root>', 'competition folder to write (<root>/<team>/raw/<C>/<team>_<C>_<n>.txt)');
  runOptions(promptOptions(trialOptions(sourceOptions(command))));
  callOptions(command)
    .option('--json', 'progress and summary as JSON lines on stdout')
    .option('--allow-programs', "run the program submissions the root's config lists (a program given with --submission needs no flag)");
  addSettingsOptions(command, ['api', 'callTimeout', 'maxAnswerBytes']).addHelpText('after', GENERATE_HELP).action(generateAction);
}
