import { existsSync, realpathSync, statSync } from 'node:fs';
import { availableParallelism, EOL } from 'node:os';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { z } from 'zod';
import { type DamageFormula, DEFAULT_SIMULATION } from '../../bridge/engine.js';
import { parseListen } from '../../bridge/listen.js';
import { SbevalError } from '../../core/errors.js';
import { invariant } from '../../core/invariant.js';
import { DEFAULT_RULES, RULE_SETS, ruleSetChoice } from '../../scoring/score/rules.js';
import { ALPHABET, type StageFilter } from '../layout/competition.js';
import { assertSafeName, modelFolderName } from '../layout/names.js';
import { checkCompetitionRoot, lettersFound, type RootLayout, shownPath } from '../layout/root-check.js';
import { COMPETITION_MODEL, cachedModelPath } from '../stages/model.js';
import { parseCharacters } from './characters.js';
import { type LoadedConfig, loadConfigFile, schemaAt, valueProblem } from './load.js';
import { DEFAULT_CALL_DEADLINE_S, DEFAULT_MAX_ANSWER_BYTES, type ResolvedModelCalls } from './model-calls.js';
import { type ConfigFile, type ConfigSchema, configSchema, type EngineKind, type Rules, type Source } from './schema.js';
import { assertSubsetMatches } from './subset.js';

/**
 * The one settings resolution every command uses (`run`, every stage command, and anything else that
 * reads a competition root): CLI flags, then the root's config file (`sbeval.config.yaml|json`), then
 * the defaults below — one set, the 2025 rules. So `sbeval score` after the stage commands scores a
 * folder exactly as `sbeval run` does.
 *
 * Before anything is written, the root is checked (orchestrator/layout/root-check.ts): a team
 * folder, a stage folder, an empty folder or a file is refused with the likely root.
 *
 * Paths: `--model` is relative to the working folder (as every file argument); paths in the config
 * file are relative to the root and must stay inside it (the similarity model may be absolute, as it
 * usually lives in a shared cache and is only read). Without either, the model `sbeval model fetch`
 * cached is used, and named in the settings line.
 *
 * Adopting it in a new command: `resolveSettings(root, flags, { command: 'judge' })`, then print
 * `settingsLine(settings)` (the CLI helper `commandSettings` in cli/settings-options.ts
 * does both and adds the shared options with one help text).
 */
export interface SettingsFlags {
  rules?: string | undefined;
  /** T, trials per character. */
  trials?: number | undefined;
  /** `A-Z`, `A,I,L`, or a list of such parts. */
  chars?: string | readonly string[] | undefined;
  teams?: readonly string[] | undefined;
  /** Similarity model, relative to `cwd`. */
  model?: string | undefined;
  engine?: string | undefined;
  workers?: number | undefined;
  traces?: boolean | undefined;
  /** Stability trials per level (evaluator: 3). */
  simulationTrials?: number | undefined;
  damage?: string | undefined;
  /** Perturbed runs per level (`--robustness N`). */
  robustness?: number | undefined;
  /** `on` | `off`: the bootstrap over trials beside the official scores (`--uncertainty`). */
  uncertainty?: string | undefined;
  /** Bootstrap resamples (`--resamples`). */
  resamples?: number | undefined;
  /** Seed of the bootstrap's random numbers (`--uncertainty-seed`). */
  uncertaintySeed?: number | undefined;
  /** `lf` | `crlf`. */
  eol?: string | undefined;
  prefix?: string | undefined;
  /** Ollama model names (2025: one competition folder per model). */
  models?: readonly string[] | undefined;
  /** Model hosts and the master seed of generation. */
  hosts?: readonly string[] | undefined;
  /** The API the hosts speak (llm/model-calls/apis.ts names them). */
  api?: string | undefined;
  /** Generation limits per trial (`--time-limit` s, `--token-limit`). */
  timeLimit?: number | undefined;
  tokenLimit?: number | undefined;
  /** Deadline of one model call attempt, seconds (`--call-timeout`). */
  callTimeout?: number | undefined;
  /** Largest model answer accepted, bytes (`--max-answer-bytes`). */
  maxAnswerBytes?: number | undefined;
  seed?: number | undefined;
  json?: boolean | undefined;
  /** `--listen host:port` (engine bridge). */
  listen?: string | undefined;
  /** `--token-file <file>` (engine bridge), relative to `cwd`. */
  tokenFile?: string | undefined;
}

/** @deprecated the old name of {@link SettingsFlags}. */
export type RunFlags = SettingsFlags;

export interface ResolvedSubmission {
  team: string;
  /** Absolute path inside the root, or `builtin:<name>`. */
  file: string;
  kind: 'prompt' | 'chat' | 'program' | undefined;
}

interface RunLimits {
  timeSeconds: number;
  tokens: number;
  stallMs: number;
  trialMs: number;
  engineRetries: number;
  /** `--engine bridge`: how long levels wait for an engine once every engine that was there has left. */
  engineWaitMs: number;
}

/** Where the similarity model came from: a flag, the config, the `model fetch` cache, or nowhere. */
type ModelSource = 'flag' | 'config' | 'cache' | 'none';

type Eol = '\n' | '\r\n';

/** One competition folder: the root, or `<root>/<folder>/` per model in the 2025 layout. */
export interface CompetitionFolder {
  root: string;
  /** Model folder name (2025 layout), undefined for a single competition. */
  model: string | undefined;
}

export interface Settings {
  root: string;
  configFile: string | undefined;
  rules: Rules;
  prefix: string;
  teams: string[] | undefined;
  characters: string[];
  /** Letters with a folder in the root (what "every character" means when none are configured). */
  charactersFound: string[];
  /**
   * The competition's letters: the config file's `characters`, else undefined (every letter with files).
   * `--chars` only limits the work of a command; `result/` accounts for these letters whatever it says.
   */
  competitionLetters: string[] | undefined;
  trials: number;
  submissions: ResolvedSubmission[];
  /** Ollama model names and their folder names (`<root>/<folder>/` per model when there are several). */
  models: Array<{ name: string; folder: string }>;
  hosts: string[];
  /** The API of the hosts, the call deadline and the answer cap (llm/model-calls). */
  modelCalls: ResolvedModelCalls;
  seed: number;
  engine: EngineKind;
  workers: number;
  /** Absolute path of the similarity model, when there is one. */
  model: string | undefined;
  modelSource: ModelSource;
  traces: boolean;
  simulationTrials: number;
  damage: DamageFormula;
  /** Knife-edge verdicts: perturbed runs per level (`--robustness N`, headless engine only); undefined: none. */
  robustness: number | undefined;
  /** The ranking's uncertainty (scoring/uncertainty): on by default, computed when T ≥ 2. */
  uncertainty: UncertaintySettings;
  listen: string | undefined;
  /** Absolute path of the bridge token file, when one is set. */
  tokenFile: string | undefined;
  limits: RunLimits;
  /** Line ends of the result CSV files. */
  eol: Eol;
  json: boolean;
  /** What the root holds (checked before any write). */
  layout: RootLayout;
  /** The competition folders the stages run on: the root, or one per model. */
  competitions: CompetitionFolder[];
  /** Where each setting came from (shown in the settings line, with `--json` and in the run log). */
  sources: Record<string, Source>;
}

/** @deprecated the old name of {@link Settings}. */
export type RunConfig = Settings;

export interface UncertaintySettings {
  enabled: boolean;
  resamples: number;
  seed: number;
}

/** Official and sbeval defaults; each carries its source. */
export const DEFAULTS = {
  /** The latest rules. */
  rules: DEFAULT_RULES,
  /** `NUM_TRIALS = 10` of the scoring script; diversity `--n_trial` default 10. */
  trials: 10,
  /** 2025 final run: Ollama starting seed 6280 (2025-llms4pcg site, Evaluation Configuration). */
  seed: 6280,
  /** Evaluator `trials: 3` (BatchStabilityTest.unity). */
  simulationTrials: 3,
  /** llms4pcg 2.0.1 `max_time = 500`, `token_limit = 25000`. */
  timeSeconds: 500,
  tokens: 25_000,
  /** sbeval: a headless trial takes milliseconds and a Unity trial 3–5 s; these bound a hung engine. */
  stallSeconds: 30,
  trialSeconds: 120,
  engineRetries: 2,
  /**
   * sbeval: a bridge run whose engines all left (retired, crashed) waits this long for one to dial in
   * before the levels left fail — time to restart a Unity instance, never a run waiting for good.
   */
  engineWaitSeconds: 300,
  /**
   * The ranking's uncertainty: on (when T ≥ 2), 2000 resamples (between seeds the 95 % bounds then move
   * by about 5–7 % of their width: `npm run bench -- uncertainty`), and a fixed seed (any; the same seed
   * gives the same files).
   */
  uncertainty: { enabled: true, resamples: 2000, seed: 1 },
  /** Ollama's own default address (its `OLLAMA_HOST` default); `$OLLAMA_HOST` overrides it (`defaultHosts`). */
  hosts: ['http://127.0.0.1:11434'],
  /**
   * The scoring script writes its CSVs with json2csv, whose default line end is `os.EOL`: the files are
   * those of the machine that runs it (the published 2024/2025 files came from Windows: `--eol crlf`).
   */
  eol: EOL as Eol,
} as const;

export function functionPrefix(rules: Rules): string {
  return RULE_SETS[rules].functionName;
}

/**
 * The hosts when neither a flag nor the config names any: `$OLLAMA_HOST` (the variable Ollama's own
 * clients read), else Ollama's default address. One place, so `generate`, `run` and `judge` ask the
 * same server.
 */
function defaultHosts(env: NodeJS.ProcessEnv): string[] {
  const fromEnv = env.OLLAMA_HOST?.trim();
  return fromEnv ? [fromEnv] : [...DEFAULTS.hosts];
}

function pick<T>(sources: Record<string, Source>, key: string, flag: T | undefined, config: T | undefined, fallback: T): T {
  if (flag !== undefined) {
    sources[key] = 'flag';
    return flag;
  }
  if (config !== undefined) {
    sources[key] = 'config';
    return config;
  }
  sources[key] = 'default';
  return fallback;
}

/** A path from the config, resolved against the root; relative paths must not leave it. */
function pathInsideRoot(root: string, path: string, key: string, options: { allowOutside?: boolean } = {}): string {
  const absolute = resolve(root, path);
  if (options.allowOutside && isAbsolute(path)) return absolute;
  const rel = relative(root, absolute);
  if (rel === '') throw new SbevalError('config', `${key} "${path}" is the competition root itself, not a file`);
  if (rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) {
    throw new SbevalError('config', `${key} "${path}" points outside the competition root ${root}`, 'put the file inside the competition folder');
  }
  // A symbolic link inside the root could still lead out of it.
  if (existsSync(absolute)) {
    const real = realpathSync(absolute);
    const realRoot = realpathSync(root);
    const realRel = relative(realRoot, real);
    if (realRel.startsWith('..') || isAbsolute(realRel)) {
      throw new SbevalError('config', `${key} "${path}" is a link that leads outside the competition root`, 'copy the file into the competition folder');
    }
  }
  return absolute;
}

/** `--listen` checked here (a config value was checked by the schema). */
function listenSetting(value: string | undefined): string | undefined {
  if (value !== undefined) parseListen(value);
  return value;
}

/**
 * The token file: a flag's path is the user's (relative to the working directory, anywhere); a
 * config's is inside the root (a received folder must not pick a file of this machine, say
 * /etc/os-release, whose predictable first line would become the token).
 */
function tokenFilePath(root: string, value: string | undefined, fromFlag: boolean, cwd = process.cwd()): string | undefined {
  if (value === undefined) return undefined;
  return fromFlag ? resolve(cwd, value) : pathInsideRoot(root, value, 'tokenFile');
}

/**
 * Each flag is checked by the schema of the config key it stands for (schema.ts, or the one the
 * command was given), so a flag and the config file have one set of allowed values and bounds, and one
 * "did you mean". In the order the settings are picked (the first bad value is the one reported).
 */
const FLAG_KEYS: ReadonlyArray<readonly [keyof SettingsFlags, string, readonly string[]]> = [
  ['rules', '--rules', ['rules']],
  ['engine', '--engine', ['engine']],
  ['workers', '--workers', ['workers']],
  ['trials', '--trials', ['trials']],
  ['simulationTrials', '--sim-trials', ['simulationTrials']],
  ['damage', '--damage', ['damage']],
  ['robustness', '--robustness', ['robustness']],
  ['uncertainty', '--uncertainty', ['uncertainty']],
  ['resamples', '--resamples', ['resamples']],
  ['uncertaintySeed', '--uncertainty-seed', ['uncertaintySeed']],
  ['eol', '--eol', ['eol']],
  ['seed', '--seed', ['seed']],
  ['api', '--api', ['api']],
  ['timeLimit', '--time-limit', ['limits', 'timeSeconds']],
  ['tokenLimit', '--token-limit', ['limits', 'tokens']],
  ['callTimeout', '--call-timeout', ['limits', 'callSeconds']],
  ['maxAnswerBytes', '--max-answer-bytes', ['limits', 'answerBytes']],
];

function checkFlags(flags: SettingsFlags, configFile: ConfigSchema): void {
  for (const [key, name, path] of FLAG_KEYS) {
    const value = flags[key];
    if (value === undefined) continue;
    const schema = schemaAt(configFile, path);
    invariant(schema !== undefined, `the config schema has no key ${path.join('.')} for ${name}`);
    const result = schema['~standard'].validate(value);
    if (result instanceof Promise || !result.issues) continue;
    const issue = result.issues[0] as z.core.$ZodIssue;
    const problem = valueProblem(issue, schema, value);
    throw new SbevalError('config', problem === undefined ? `${name}: ${issue.message}` : `${name} ${problem}`);
  }
}

/** `--uncertainty on|off`, `--resamples`, `--uncertainty-seed` (or the config's `uncertainty`, `resamples`, `uncertaintySeed`). */
function uncertaintySettings(sources: Record<string, Source>, flags: SettingsFlags, file: ConfigFile): UncertaintySettings {
  const configured = file.uncertainty === undefined ? undefined : file.uncertainty === true || file.uncertainty === 'on' ? 'on' : 'off';
  const mode = pick<string>(sources, 'uncertainty', flags.uncertainty, configured, DEFAULTS.uncertainty.enabled ? 'on' : 'off');
  return {
    enabled: mode === 'on',
    resamples: pick(sources, 'resamples', flags.resamples, file.resamples, DEFAULTS.uncertainty.resamples),
    seed: pick(sources, 'uncertaintySeed', flags.uncertaintySeed, file.uncertaintySeed, DEFAULTS.uncertainty.seed),
  };
}

export interface ResolveOptions {
  /** The command (for messages). */
  command?: string;
  /** Base of `--model` (default: the working folder). */
  cwd?: string;
  /** The config file (default: the root's, loaded here). */
  loaded?: LoadedConfig;
  /** Accept a root without team folders (commands that create them); configured submissions imply it. */
  allowEmpty?: boolean;
  /** Accept a root that does not exist yet (generate creates it). */
  allowMissing?: boolean;
  /** The environment `$OLLAMA_HOST` is read from (default: `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** The model `sbeval model fetch` caches (default: the competition's, in `$SBEVAL_CACHE` or ~/.cache/sbeval). */
  cachedModel?: string;
  /** The schema the config file and the flags are checked by (default: the evaluator's, schema.ts; the CLI's is llm/config.ts). */
  schema?: ConfigSchema;
}

/** The root's config file (read only from a folder) and its layout check; configured submissions imply `allowEmpty`. */
function loadRoot(root: string, flags: SettingsFlags, options: ResolveOptions): { loaded: LoadedConfig; file: ConfigFile; where: string; layout: RootLayout } {
  const loaded = options.loaded ?? (existsSync(root) && statSync(root).isDirectory() ? loadConfigFile(root, options.schema) : { file: undefined, config: {} });
  const file: ConfigFile = loaded.config;
  const layout = checkCompetitionRoot(root, {
    command: options.command ?? 'run',
    allowEmpty: options.allowEmpty === true || (file.submissions?.length ?? 0) > 0,
    allowMissing: options.allowMissing === true,
    modelFolders: [...(flags.models ?? []), ...(file.models ?? [])].map(modelFolderName),
  });
  return { loaded, file, where: loaded.file ? basename(loaded.file) : 'config', layout };
}

/**
 * Rules, engine, workers, teams, letters and trials. The settings are picked in one fixed order across
 * these helpers: it is the order of `sources` and of the checks (the first bad value is the one reported).
 */
function pickScope(sources: Record<string, Source>, flags: SettingsFlags, file: ConfigFile) {
  // The flags and the file were checked by the schema (checkFlags, load.ts): a YAML year may be a number.
  const rules = String(pick<string | number>(sources, 'rules', flags.rules, file.rules, DEFAULTS.rules)) as Rules;
  const engineText = pick<string>(sources, 'engine', flags.engine, file.engine, 'headless');
  const workers = pick(sources, 'workers', flags.workers, file.workers, availableParallelism());

  const teams = pick<readonly string[] | undefined>(sources, 'teams', flags.teams?.length ? flags.teams : undefined, file.teams, undefined);
  for (const team of teams ?? []) assertSafeName('team', team);

  const flagChars = typeof flags.chars === 'string' ? flags.chars : flags.chars?.length ? flags.chars.join(',') : undefined;
  const charSpec = pick<string | string[]>(sources, 'characters', flagChars, file.characters, ALPHABET.join(','));
  const characters = parseCharacters(Array.isArray(charSpec) ? charSpec.join(',') : charSpec);
  const trials = pick(sources, 'trials', flags.trials, file.trials, DEFAULTS.trials);
  return { rules, engineText, workers, teams, characters, trials };
}

/** Simulation trials, damage formula and robustness runs (only the headless engine can perturb a run). */
function pickPhysics(sources: Record<string, Source>, flags: SettingsFlags, file: ConfigFile, engineText: string) {
  const simulationTrials = pick(sources, 'simulationTrials', flags.simulationTrials, file.simulationTrials, DEFAULTS.simulationTrials);
  const damage = pick<string>(sources, 'damage', flags.damage, file.damage, DEFAULT_SIMULATION.damage);
  const robustness = pick<number | undefined>(sources, 'robustness', flags.robustness, file.robustness, undefined);
  if (robustness !== undefined) {
    // Only the headless engine can perturb a run (bridge/engine.ts `perturbation`): refused before anything runs.
    if (engineText !== 'headless')
      throw new SbevalError('config', `--robustness needs the headless engine (the ${engineText} engine cannot perturb a run)`, 'use --engine headless');
  }
  return { simulationTrials, damage: damage as DamageFormula, robustness };
}

/** The configured submissions, the models they run on, and the competition folders (one per model folder under the 2025 rules). */
function pickWork(root: string, layout: RootLayout, sources: Record<string, Source>, flags: SettingsFlags, file: ConfigFile, where: string, rules: Rules) {
  const submissions = (file.submissions ?? []).map((s, i) => ({
    team: assertSafeName('team', s.team),
    file: s.file.startsWith('builtin:') ? s.file : pathInsideRoot(root, s.file, `submissions.${i}.file`),
    kind: s.kind,
  }));
  const models = resolveModels(
    pick<readonly string[] | undefined>(sources, 'models', flags.models?.length ? flags.models : undefined, file.models, undefined) ?? [],
  );
  if (submissions.length > 0 && models.length === 0) {
    throw new SbevalError('config', `${where}: submissions are configured but no models`, 'add `models: [<ollama model>]` to the config');
  }
  const competitions = competitionFolders(root, layout, models);
  if (competitions.length > 1 && !RULE_SETS[rules].multiModel) {
    const multiModel = ruleSetChoice((r) => r.multiModel);
    throw new SbevalError(
      'config',
      `${shownPath(root)} holds one competition folder per model (${competitions.map((c) => c.model).join(', ')}), which only the ${multiModel} rules score`,
      `use --rules ${multiModel}, or give one model folder as the root`,
    );
  }
  return { submissions, models, competitions };
}

/** Flags > the root's config file > defaults, for every command that reads a competition root. */
export function resolveSettings(rootArg: string, flags: SettingsFlags = {}, options: ResolveOptions = {}): Settings {
  const root = resolve(rootArg);
  const { loaded, file, where, layout } = loadRoot(root, flags, options);
  checkFlags(flags, options.schema ?? configSchema);
  const sources: Record<string, Source> = {};
  const { rules, engineText, workers, teams, characters, trials } = pickScope(sources, flags, file);
  const { simulationTrials, damage, robustness } = pickPhysics(sources, flags, file, engineText);
  const uncertainty = uncertaintySettings(sources, flags, file);
  const eolName = pick<string>(sources, 'eol', flags.eol, file.eol, DEFAULTS.eol === '\r\n' ? 'crlf' : 'lf');
  const { model, modelSource } = resolveModel(root, flags.model, file.model, options, sources);
  const { submissions, models, competitions } = pickWork(root, layout, sources, flags, file, where, rules);
  // A subset limits the work; one that matches nothing is a typo, not an empty competition.
  if (options.allowEmpty !== true) {
    assertSubsetMatches(root, layout, { teams, characters, sources, where, submissionTeams: submissions.map((s) => s.team) });
  }
  const limits = file.limits ?? {};
  sources.limits = file.limits ? 'config' : 'default';
  const timeSeconds = pick(sources, 'timeLimit', flags.timeLimit, limits.timeSeconds, DEFAULTS.timeSeconds);
  const tokens = pick(sources, 'tokenLimit', flags.tokenLimit, limits.tokens, DEFAULTS.tokens);
  return {
    root,
    configFile: loaded.file,
    rules,
    prefix: pick(sources, 'prefix', flags.prefix, file.prefix, functionPrefix(rules)),
    teams: teams ? [...teams] : undefined,
    characters,
    charactersFound: lettersFound(root, layout),
    competitionLetters:
      file.characters === undefined ? undefined : parseCharacters(Array.isArray(file.characters) ? file.characters.join(',') : file.characters),
    trials,
    submissions,
    models,
    hosts: [...pick<readonly string[]>(sources, 'hosts', flags.hosts?.length ? flags.hosts : undefined, file.hosts, defaultHosts(options.env ?? process.env))],
    modelCalls: modelCallSettings(flags, file, timeSeconds, sources),
    seed: pick(sources, 'seed', flags.seed, file.seed, DEFAULTS.seed),
    engine: engineText as EngineKind,
    workers,
    model,
    modelSource,
    traces: pick(sources, 'traces', flags.traces, file.traces, false),
    simulationTrials,
    damage,
    robustness,
    uncertainty,
    listen: listenSetting(pick(sources, 'listen', flags.listen, file.listen, undefined)),
    tokenFile: tokenFilePath(
      root,
      pick<string | undefined>(sources, 'tokenFile', flags.tokenFile, file.tokenFile, undefined),
      flags.tokenFile !== undefined,
      options.cwd,
    ),
    limits: {
      timeSeconds,
      tokens,
      stallMs: (limits.stallSeconds ?? DEFAULTS.stallSeconds) * 1000,
      trialMs: (limits.trialSeconds ?? DEFAULTS.trialSeconds) * 1000,
      engineRetries: limits.engineRetries ?? DEFAULTS.engineRetries,
      engineWaitMs: (limits.engineWaitSeconds ?? DEFAULTS.engineWaitSeconds) * 1000,
    },
    eol: eolName === 'crlf' ? '\r\n' : '\n',
    json: flags.json ?? false,
    layout,
    competitions,
    sources,
  };
}

/**
 * The folder check alone, as it runs before a command that writes into a root takes the root's lock
 * (cli/main.ts): the same rules as `resolveSettings` (configured submissions or `generate` may start
 * from an empty or new root; model folders the config or `--models` names count as the 2025 layout).
 */
export function checkRootForCommand(
  rootArg: string,
  command: string,
  options: { allowEmpty?: boolean; allowMissing?: boolean; models?: readonly string[]; schema?: ConfigSchema } = {},
): RootLayout {
  const root = resolve(rootArg);
  const file = existsSync(root) && statSync(root).isDirectory() ? loadConfigFile(root, options.schema).config : {};
  return checkCompetitionRoot(root, {
    command,
    allowEmpty: options.allowEmpty === true || (file.submissions?.length ?? 0) > 0,
    allowMissing: options.allowMissing === true,
    modelFolders: [...(options.models ?? []), ...(file.models ?? [])].map(modelFolderName),
  });
}

function resolveModel(
  root: string,
  flag: string | undefined,
  configured: string | undefined,
  options: ResolveOptions,
  sources: Record<string, Source>,
): { model: string | undefined; modelSource: ModelSource } {
  let model: string | undefined;
  let modelSource: ModelSource;
  if (flag !== undefined) {
    model = resolve(options.cwd ?? process.cwd(), flag);
    modelSource = 'flag';
  } else if (configured !== undefined) {
    model = pathInsideRoot(root, configured, 'model', { allowOutside: true });
    modelSource = 'config';
  } else {
    const cached = options.cachedModel ?? cachedModelPath();
    model = existsSync(cached) ? cached : undefined;
    modelSource = model === undefined ? 'none' : 'cache';
  }
  sources.model = modelSource === 'flag' ? 'flag' : modelSource === 'config' ? 'config' : 'default';
  if (model !== undefined && (modelSource === 'flag' || modelSource === 'config') && (!existsSync(model) || !statSync(model).isFile())) {
    throw new SbevalError('config', `similarity model ${shownPath(model)} does not exist`, `sbeval model fetch ${COMPETITION_MODEL}`);
  }
  return { model, modelSource };
}

/**
 * The model-call bounds: a call attempt may take the whole trial time limit (a call longer than the
 * entire budget could only have counted officially as a trial's last call; here it is the host's
 * failure, retried), or `DEFAULT_CALL_DEADLINE_S` when there is no limit; the answer cap defaults to
 * `DEFAULT_MAX_ANSWER_BYTES`. The API's default is the tooling's (llm/model-calls/apis.ts).
 */
function modelCallSettings(flags: SettingsFlags, file: ConfigFile, timeSeconds: number, sources: Record<string, Source>): ResolvedModelCalls {
  const limits = file.limits ?? {};
  const api = pick<string | undefined>(sources, 'api', flags.api, file.api, undefined);
  const fallback = timeSeconds > 0 ? timeSeconds : DEFAULT_CALL_DEADLINE_S;
  const callSeconds = pick(sources, 'callTimeout', flags.callTimeout, limits.callSeconds, fallback);
  const maxAnswerBytes = pick(sources, 'maxAnswerBytes', flags.maxAnswerBytes, limits.answerBytes, DEFAULT_MAX_ANSWER_BYTES);
  return { api, deadlineMs: Math.round(callSeconds * 1000), maxAnswerBytes };
}

function resolveModels(names: readonly string[]): Array<{ name: string; folder: string }> {
  const models = names.map((name) => ({ name, folder: modelFolderName(name) }));
  const folders = new Map<string, string>();
  for (const m of models) {
    const other = folders.get(m.folder);
    if (other !== undefined) throw new SbevalError('config', `models "${other}" and "${m.name}" map to the same folder "${m.folder}"`);
    folders.set(m.folder, m.name);
  }
  return models;
}

/** Several configured models, or model folders found in the root (2025 layout): one competition folder each. */
function competitionFolders(root: string, layout: RootLayout, models: ReadonlyArray<{ folder: string }>): CompetitionFolder[] {
  if (models.length > 1) return models.map((m) => ({ root: join(root, m.folder), model: m.folder }));
  if (layout.kind === 'models') return layout.models.map((folder) => ({ root: join(root, folder), model: folder }));
  return [{ root, model: undefined }];
}

/** The `--team`/`--chars` filter of the folder stages: no characters configured means every folder found. */
export function stageFilter(settings: Settings): StageFilter {
  return { teams: settings.teams, characters: settings.sources.characters === 'default' ? undefined : settings.characters };
}

/** `A,B,C,E` → `A-C,E`. */
function compactLetters(letters: readonly string[]): string {
  const parts: string[] = [];
  const sorted = [...new Set(letters)].sort();
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1]!.charCodeAt(0) === sorted[j]!.charCodeAt(0) + 1) j += 1;
    parts.push(j - i >= 2 ? `${sorted[i]}-${sorted[j]}` : sorted.slice(i, j + 1).join(','));
    i = j + 1;
  }
  return parts.join(',');
}

/** A part of the settings line; each command names only the parts it uses (`SETTINGS_SHOWN`). */
type ShownSetting = 'rules' | 'prefix' | 'trials' | 'trialFilter' | 'characters' | 'lettersToAsk' | 'teams' | 'modelFolders' | 'models' | 'model' | 'physics';

/**
 * What each command's settings line names: only what the command uses. Only the commands that
 * classify images name the similarity model; a judge, `extract` or `convert` has no use for it, so a
 * missing model is no news there. `judge` takes T as a filter (every trial found unless set).
 */
const SETTINGS_SHOWN = {
  run: ['rules', 'trials', 'characters', 'teams', 'modelFolders', 'model'],
  generate: ['trials', 'lettersToAsk', 'models'],
  extract: ['rules', 'prefix', 'characters', 'teams', 'modelFolders'],
  convert: ['rules', 'prefix', 'characters', 'teams', 'modelFolders'],
  simulate: ['physics', 'characters', 'teams', 'modelFolders'],
  similarity: ['rules', 'characters', 'teams', 'modelFolders', 'model'],
  diversity: ['rules', 'trials', 'characters', 'teams', 'modelFolders'],
  score: ['rules', 'trials', 'characters', 'modelFolders'],
  'judge rubric': ['trialFilter', 'characters', 'teams'],
  'judge order': ['trialFilter', 'characters', 'teams'],
  'survey build': ['characters', 'teams'],
} as const satisfies Record<string, readonly ShownSetting[]>;

export type SettingsCommand = keyof typeof SETTINGS_SHOWN;

/**
 * The one line every command prints before it works, so two commands on one folder can be compared
 * at a glance: `sbeval score: rules 2025 (default), T 3 (sbeval.config.yaml), characters I,L,O,T,U
 * (every letter folder)`; `sbeval similarity: …, model none (get it: sbeval model fetch)`.
 */
export function settingsLine(settings: Settings, command: SettingsCommand): string {
  const from = (key: string) =>
    settings.sources[key] === 'flag' ? 'flag' : settings.sources[key] === 'config' ? basename(settings.configFile ?? 'config') : 'default';
  const part: Record<ShownSetting, () => string | undefined> = {
    rules: () => `rules ${settings.rules} (${from('rules')})`,
    prefix: () => `calls ${settings.prefix}() (${settings.sources.prefix === 'default' ? 'by the rules' : from('prefix')})`,
    trials: () => `T ${settings.trials} (${from('trials')})`,
    trialFilter: () => `trials ${settings.sources.trials === 'default' ? 'every one found' : `1…${settings.trials} (${from('trials')})`}`,
    characters: () =>
      settings.sources.characters === 'default'
        ? `characters ${settings.charactersFound.length > 0 ? compactLetters(settings.charactersFound) : 'none yet'} (every letter folder)`
        : `characters ${compactLetters(settings.characters)} (${from('characters')})`,
    // generate asks for letters that have no folder yet: its default is every letter, A–Z.
    lettersToAsk: () => `characters ${compactLetters(settings.characters)} (${from('characters')})`,
    teams: () => (settings.teams ? `teams ${settings.teams.join(',')} (${from('teams')})` : undefined),
    modelFolders: () =>
      settings.competitions.length > 1 ? `${settings.competitions.length} model folders (${settings.competitions.map((c) => c.model).join(', ')})` : undefined,
    models: () => `models ${settings.models.length > 0 ? settings.models.map((m) => m.name).join(', ') : 'none'} (${from('models')})`,
    model: () =>
      settings.model === undefined
        ? 'model none (get it: sbeval model fetch)'
        : `model ${shownPath(settings.model)} (${settings.modelSource === 'cache' ? 'cached by sbeval model fetch' : from('model')})`,
    physics: () =>
      `engine ${settings.engine} (${from('engine')}), ${settings.simulationTrials} stability trial(s) per level (${from('simulationTrials')}), damage ${settings.damage} (${from('damage')})`,
  };
  const parts = SETTINGS_SHOWN[command].map((name) => part[name]()).filter((p) => p !== undefined);
  return `sbeval ${command}: ${parts.join(', ')}`;
}

/** The settings as a JSON object (`--json` lines, the run log). */
export function settingsRecord(settings: Settings): Record<string, unknown> {
  return {
    root: settings.root,
    configFile: settings.configFile ?? null,
    rules: settings.rules,
    trials: settings.trials,
    characters: settings.sources.characters === 'default' ? settings.charactersFound : settings.characters,
    teams: settings.teams ?? null,
    model: settings.model ?? null,
    modelSource: settings.modelSource,
    eol: settings.eol === '\r\n' ? 'crlf' : 'lf',
    competitions: settings.competitions.map((c) => c.model ?? '.'),
    sources: settings.sources,
  };
}
