import type { Command, Option } from 'commander';
import { DEFAULT_SIMULATION } from '../bridge/engine.js';
import { CONFIG_SCHEMA, checkRootForCommand, resolveSettings } from '../llm/config.js';
import { backendOf, DEFAULT_CALL_DEADLINE_S, DEFAULT_MAX_ANSWER_BYTES, DEFAULT_MODEL_API, MODEL_APIS } from '../llm/model-calls/index.js';
import { DEFAULTS, keyChoices, type Settings, type SettingsCommand, type SettingsFlags, settingsLine } from '../orchestrator/config/index.js';
import { list, option, positiveNumber, wholeNumber } from './options.js';

/**
 * The options every competition command shares, defined once (one name per concept, one help text),
 * and the step every such command takes first: resolve the settings (flags > the root's config >
 * defaults, orchestrator/config/settings.ts), check the root, print the settings line.
 *
 * A new command adopts it in two lines:
 *
 *     addSettingsOptions(program.command('judge').argument('<root>'), ['rules', 'trials', 'chars', 'team']);
 *     .action((root, flags) => { const settings = commandSettings('judge rubric', root, flags); … })
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

const OPTIONS: Record<SharedOption, () => Option[]> = {
  rules: () => [
    option('--rules <year>', 'competition rules: scoring, function name, similarity format', {
      choices: keyChoices('rules', CONFIG_SCHEMA),
      defaultText: `the config's, else ${DEFAULTS.rules}`,
    }),
  ],
  trials: () => [
    option('--trials <n>', "T, trials per character: the scoring's and the diversity's N (missing trials count 0)", {
      parse: wholeNumber(1),
      defaultText: `the config's, else ${DEFAULTS.trials}`,
    }),
  ],
  chars: () => [
    option('--chars <letters>', 'only these characters, e.g. A-Z or A,I,L (repeatable)', {
      parse: list,
      defaultText: "the config's, else every letter folder",
    }),
    option('--char <letters>', 'old spelling of --chars', { parse: list, hidden: true }),
  ],
  team: () => [
    option('--team <names>', 'only these teams (comma-separated, repeatable)', { parse: list, defaultText: "the config's, else every team folder" }),
  ],
  model: () => [
    option('--model <file.onnx>', 'similarity model (ONNX), relative to the working folder', {
      defaultText: "the config's model, else the one `sbeval model fetch` cached",
    }),
  ],
  engine: () => [
    option(
      '--engine <kind>',
      'physics engine: headless-ws runs sbeval engine processes over WebSocket; unity: see unity-plugin/README.md; bridge: engines dial in (--listen)',
      { choices: keyChoices('engine', CONFIG_SCHEMA), defaultText: "the config's, else headless" },
    ),
  ],
  workers: () => [option('--workers <n>', 'engines in parallel', { parse: wholeNumber(1, 1024), defaultText: "the config's, else one per core" })],
  simTrials: () => [
    option('--sim-trials <n>', 'stability trials per level, Unity bookkeeping: stop at 1.0, score = max, counts from the last trial', {
      parse: wholeNumber(1, 3),
      defaultText: `the config's simulationTrials, else ${DEFAULTS.simulationTrials}`,
    }),
  ],
  damage: () => [
    option('--damage <formula>', 'damage at contact begin: contact-point (relative velocity at the contact points) or body (linear velocities)', {
      choices: keyChoices('damage', CONFIG_SCHEMA),
      defaultText: `the config's, else ${DEFAULT_SIMULATION.damage}`,
    }),
  ],
  eol: () => [
    option('--eol <eol>', 'line ends of the result CSV files (the published 2024/2025 files are crlf)', {
      choices: keyChoices('eol', CONFIG_SCHEMA),
      defaultText: "the config's, else this system's, as the official scoring script",
    }),
  ],
  prefix: () => [
    option('--prefix <name>', 'function name of the drop calls', { defaultText: "the config's, else ab_drop under the 2023 rules and drop_block otherwise" }),
  ],
  traces: () => [option('--traces', 'record every simulated trial to <root>/<team>/traces/<C>/<name>.trial<k>.sbtrace')],
  robustness: () => [
    option(
      '--robustness <n>',
      'knife-edge verdicts: also re-simulate every level N times under tiny perturbations (creation order, positions ±1e-4, warm start) and flag fragile verdicts (headless engine; the official verdict is unchanged)',
      { parse: wholeNumber(1, 10_000) },
    ),
  ],
  api: () => [
    option('--api <api>', `the API the model hosts speak: ${MODEL_APIS.map((api) => `${api} (${backendOf(api).help})`).join(' or ')}`, {
      choices: keyChoices('api', CONFIG_SCHEMA),
      defaultText: `the config's api, else ${DEFAULT_MODEL_API}`,
    }),
  ],
  callTimeout: () => [
    option('--call-timeout <s>', 'deadline of one model call, from request to last byte; over it the call fails and is retried', {
      parse: positiveNumber,
      defaultText: `the config's limits.callSeconds, else the time limit, else ${DEFAULT_CALL_DEADLINE_S}`,
    }),
  ],
  maxAnswerBytes: () => [
    option('--max-answer-bytes <n>', 'largest model answer accepted (bytes of text); a longer one fails the call', {
      parse: wholeNumber(1024),
      defaultText: `the config's limits.answerBytes, else ${DEFAULT_MAX_ANSWER_BYTES}`,
    }),
  ],
  uncertainty: () => [
    option(
      '--uncertainty <on|off>',
      "the ranking's uncertainty: a seeded bootstrap over trials (with --robustness, over the physics too) writes result/score_intervals.csv and result/rank_probabilities.csv beside the official files (needs T ≥ 2)",
      { choices: keyChoices('uncertainty', CONFIG_SCHEMA), defaultText: `the config's, else ${DEFAULTS.uncertainty.enabled ? 'on' : 'off'}` },
    ),
    option('--resamples <n>', 'bootstrap resamples (at most 100000)', {
      parse: wholeNumber(1, 100_000),
      defaultText: `the config's, else ${DEFAULTS.uncertainty.resamples}`,
    }),
    option('--uncertainty-seed <n>', 'seed of the bootstrap: the same seed gives byte-identical files', {
      parse: wholeNumber(0, 0xffffffff),
      defaultText: `the config's uncertaintySeed, else ${DEFAULTS.uncertainty.seed}`,
    }),
  ],
  models: () => [
    option('--models <names>', '2025: model names in order, one competition folder each', {
      parse: list,
      defaultText: "the config's models, else the model folders found",
    }),
  ],
};

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

export function settingsFlags(flags: SharedFlags): SettingsFlags {
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
export function commandSettings(command: SettingsCommand, root: string, flags: SharedFlags, options: { allowEmpty?: boolean } = {}): Settings {
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
