import { InvalidArgumentError, Option, type Command } from 'commander';
import { checkRootForCommand, ENGINES, RULES, resolveSettings, settingsLine, type Settings, type SettingsFlags } from '../config/index.js';
import { API_KEY_VARIABLES, DEFAULT_CALL_DEADLINE_S, DEFAULT_MAX_ANSWER_BYTES, MODEL_APIS } from '../model-calls/index.js';

/**
 * The options every competition command shares, defined once (one name per concept, one help text),
 * and the step every such command takes first: resolve the settings (flags > the root's config >
 * defaults, orchestrator/config/settings.ts), check the root, print the settings line.
 *
 * A new command adopts it in two lines:
 *
 *     addSettingsOptions(program.command('judge').argument('<root>'), ['rules', 'trials', 'chars', 'team']);
 *     .action((root, flags) => { const settings = commandSettings('judge', root, flags); … })
 */
type SharedOption =
  | 'rules'
  | 'trials'
  | 'chars'
  | 'team'
  | 'model'
  | 'engine'
  | 'workers'
  | 'simTrials'
  | 'damage'
  | 'eol'
  | 'prefix'
  | 'traces'
  | 'models'
  | 'robustness'
  | 'api'
  | 'callTimeout'
  | 'maxAnswerBytes'
  | 'uncertainty';

export interface SharedFlags {
  rules?: string;
  trials?: number;
  chars?: string[];
  /** The old spelling of `--chars` (hidden; accepted with a note). */
  char?: string[];
  team?: string[];
  model?: string;
  engine?: string;
  workers?: number;
  simTrials?: number;
  damage?: string;
  eol?: string;
  prefix?: string;
  traces?: boolean;
  models?: string[];
  robustness?: number;
  api?: string;
  callTimeout?: number;
  maxAnswerBytes?: number;
  uncertainty?: string;
  resamples?: number;
  uncertaintySeed?: number;
  json?: boolean;
  /** `sbeval run --engine bridge`. */
  listen?: string;
  tokenFile?: string;
}

/** `--team a,b --team c` → ['a', 'b', 'c']. */
export function collectList(value: string, previous: readonly string[] = []): string[] {
  return [...previous, ...value.split(',').map((v) => v.trim()).filter((v) => v.length > 0)];
}

export function intIn(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(max === Number.MAX_SAFE_INTEGER ? `expected a whole number ≥ ${min}` : `expected a whole number from ${min} to ${max}`);
    return n;
  };
}

const OPTIONS: Record<SharedOption, () => Option[]> = {
  rules: () => [new Option('--rules <year>', 'competition rules: scoring, function name, similarity format (default 2025, or the config\'s)').choices(RULES)],
  trials: () => [new Option('--trials <n>', 'T, trials per character: the scoring\'s and the diversity\'s N (default 10, or the config\'s; missing trials count 0)').argParser(intIn(1))],
  chars: () => [
    new Option('--chars <letters>', 'only these characters, e.g. A-Z or A,I,L (repeatable; default: the config\'s, else every letter folder)').argParser(collectList),
    new Option('--char <letters>', 'old spelling of --chars').argParser(collectList).hideHelp(),
  ],
  team: () => [new Option('--team <names>', 'only these teams (comma-separated, repeatable; default: the config\'s, else every team folder)').argParser(collectList)],
  model: () => [new Option('--model <file.onnx>', 'similarity model (ONNX), relative to the working folder (default: the config\'s model, else the one `sbeval model fetch` cached)')],
  engine: () => [new Option('--engine <kind>', `physics engine: ${ENGINES.join(' | ')} (default headless; headless-ws: sbeval engine processes over WebSocket; unity: see unity-plugin/README.md)`)],
  workers: () => [new Option('--workers <n>', 'engines in parallel (default: one per core)').argParser(intIn(1, 1024))],
  simTrials: () => [new Option('--sim-trials <n>', 'stability trials per level, Unity bookkeeping: stop at 1.0, score = max, counts from the last trial (default 3)').argParser(intIn(1, 3))],
  damage: () => [new Option('--damage <formula>', 'damage at contact begin: contact-point (relative velocity at the contact points, default) or body (linear velocities)').choices(['contact-point', 'body'])],
  eol: () => [new Option('--eol <eol>', 'line ends of the result CSV files (default: this system\'s, as the official scoring script; the published 2024/2025 files are crlf)').choices(['lf', 'crlf'])],
  prefix: () => [new Option('--prefix <name>', 'function name of the drop calls (default: ab_drop under the 2023 rules, else drop_block)')],
  traces: () => [new Option('--traces', 'record every simulated trial to <root>/<team>/traces/<C>/<name>.trial<k>.sbtrace')],
  robustness: () => [
    new Option('--robustness <n>', 'knife-edge verdicts: also re-simulate every level N times under tiny perturbations (creation order, positions ±1e-4, warm start) and flag fragile verdicts (headless engine; the official verdict is unchanged)').argParser(intIn(1, 10_000)),
  ],
  api: () => [
    new Option('--api <api>', `the API the model hosts speak: ollama (native /api/chat) or openai (/v1/chat/completions; key from $${API_KEY_VARIABLES.openai.join(' or $')}) (default: the config's api, else ollama)`).choices(MODEL_APIS),
  ],
  callTimeout: () => [
    new Option('--call-timeout <s>', `deadline of one model call, from request to last byte; over it the call fails and is retried (default: the config's limits.callSeconds, else the time limit, else ${DEFAULT_CALL_DEADLINE_S})`).argParser(positiveSeconds),
  ],
  maxAnswerBytes: () => [
    new Option('--max-answer-bytes <n>', `largest model answer accepted (bytes of text); a longer one fails the call (default: the config's limits.answerBytes, else ${DEFAULT_MAX_ANSWER_BYTES})`).argParser(intIn(1024)),
  ],
  uncertainty: () => [
    new Option('--uncertainty <on|off>', 'the ranking\'s uncertainty: a seeded bootstrap over trials (with --robustness, over the physics too) writes result/score_intervals.csv and result/rank_probabilities.csv beside the official files (default on; needs T ≥ 2)').choices(['on', 'off']),
    new Option('--resamples <n>', 'bootstrap resamples (default 2000, at most 100000)').argParser(intIn(1, 100_000)),
    new Option('--uncertainty-seed <n>', 'seed of the bootstrap (default 1): the same seed gives byte-identical files').argParser(intIn(0, 0xffffffff)),
  ],
  models: () => [new Option('--models <names>', '2025: model names in order, one competition folder each (default: the config\'s models, else the model folders found)').argParser(collectList)],
};

function positiveSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a number of seconds > 0');
  return n;
}

export function addSettingsOptions(command: Command, options: readonly SharedOption[]): Command {
  for (const key of options) for (const option of OPTIONS[key]()) command.addOption(option);
  return command;
}

/** `--chars` plus the old `--char`, with a note when the old spelling was used. */
function charsFrom(flags: Pick<SharedFlags, 'chars' | 'char'>, note: (message: string) => void = (m) => process.stderr.write(`${m}\n`)): string[] | undefined {
  if (flags.char && flags.char.length > 0) note('sbeval: --char is now --chars (accepted)');
  const all = [...(flags.chars ?? []), ...(flags.char ?? [])];
  return all.length > 0 ? all : undefined;
}

function settingsFlags(flags: SharedFlags): SettingsFlags {
  return {
    rules: flags.rules,
    trials: flags.trials,
    chars: charsFrom(flags),
    teams: flags.team,
    model: flags.model,
    engine: flags.engine,
    workers: flags.workers,
    traces: flags.traces,
    simulationTrials: flags.simTrials,
    damage: flags.damage,
    robustness: flags.robustness,
    api: flags.api,
    callTimeout: flags.callTimeout,
    maxAnswerBytes: flags.maxAnswerBytes,
    uncertainty: flags.uncertainty,
    resamples: flags.resamples,
    uncertaintySeed: flags.uncertaintySeed,
    eol: flags.eol,
    prefix: flags.prefix,
    models: flags.models,
    json: flags.json,
    listen: flags.listen,
    tokenFile: flags.tokenFile,
  };
}

/** Resolves the settings of `sbeval <command> <root>` and prints them in one line (stderr). */
export function commandSettings(command: string, root: string, flags: SharedFlags, options: { allowEmpty?: boolean } = {}): Settings {
  const settings = resolveSettings(root, settingsFlags(flags), { command, ...options });
  process.stderr.write(`${settingsLine(settings, command)}\n`);
  return settings;
}

/** Commands that create what they write into (`generate` may start from an empty or missing root). */
const CREATES_ROOT = new Set(['generate']);

/** Before a command that writes into `<root>` takes the root's lock: the root must look like a competition. */
export function checkRootBeforeWrite(command: string, root: string, flags: { models?: unknown } = {}): void {
  const creates = CREATES_ROOT.has(command);
  // `generate --models a,b` names the model folders it fills, as the config's `models` would.
  const models = Array.isArray(flags.models) ? flags.models.map(String) : typeof flags.models === 'string' ? flags.models.split(',') : [];
  checkRootForCommand(root, command, { allowEmpty: creates, allowMissing: creates, models });
}
