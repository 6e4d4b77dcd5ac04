import { existsSync, lstatSync, realpathSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { DEFAULT_SIMULATION } from '../../bridge/engine.js';
import { parseListen } from '../../bridge/listen.js';
import { SbevalError } from '../../core/errors.js';
import { parseCharacters } from '../generate/characters.js';
import { ALPHABET } from '../layout/competition.js';
import { assertSafeName, modelFolderName } from '../layout/names.js';
import { loadConfigFile } from './load.js';
import { ENGINES, RULES, type ConfigFile, type EngineKind, type Rules } from './schema.js';

/**
 * The settings of one `sbeval run`: defaults, then the root's config file, then CLI flags. Every
 * name that becomes a path component is checked (orchestrator/layout/names.ts) and every path is
 * resolved against the root and must stay inside it (except the similarity model, which may live in
 * a shared cache and is only read).
 */
export interface RunFlags {
  rules?: string;
  engine?: string;
  workers?: number;
  model?: string;
  traces?: boolean;
  teams?: string[];
  chars?: string;
  trials?: number;
  json?: boolean;
  /** `--listen host:port` (engine bridge). */
  listen?: string;
  /** `--token-file <file>` (engine bridge). */
  tokenFile?: string;
}

export interface ResolvedSubmission {
  team: string;
  /** Absolute path inside the root, or `builtin:<name>`. */
  file: string;
  kind: 'prompt' | 'chat' | 'program' | undefined;
}

export interface RunLimits {
  timeSeconds: number;
  tokens: number;
  stallMs: number;
  trialMs: number;
  engineRetries: number;
}

export type Source = 'default' | 'config' | 'flag';

export interface RunConfig {
  root: string;
  configFile: string | undefined;
  rules: Rules;
  prefix: string;
  teams: string[] | undefined;
  characters: string[];
  trials: number;
  submissions: ResolvedSubmission[];
  /** Ollama model names and their folder names (`<root>/<folder>/` per model when there are several). */
  models: Array<{ name: string; folder: string }>;
  hosts: string[];
  seed: number;
  engine: EngineKind;
  workers: number;
  /** Absolute path of the similarity model, when one is set. */
  model: string | undefined;
  traces: boolean;
  simulationTrials: number;
  damage: 'body' | 'contact-point';
  listen: string | undefined;
  /** Absolute path of the bridge token file, when one is set. */
  tokenFile: string | undefined;
  limits: RunLimits;
  json: boolean;
  /** Where each setting came from (shown with `--json` and in the run log). */
  sources: Record<string, Source>;
}

/** Official and sbeval defaults; each carries its source. */
export const DEFAULTS = {
  /** The latest rules. */
  rules: '2025' as Rules,
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
  hosts: ['http://127.0.0.1:11434'],
} as const;

export function functionPrefix(rules: Rules): string {
  // 2023 used `ab_drop(x, y)`; 2024 and 2025 `drop_block(block_type, x_position)` (official-pipeline.md §11).
  return rules === '2023' ? 'ab_drop' : 'drop_block';
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

/** A path from the config or a flag, resolved against the root; relative paths must not leave it. */
export function pathInsideRoot(root: string, path: string, key: string, options: { allowOutside?: boolean } = {}): string {
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

/** The token file: a flag's path is the user's (relative to the working directory), a config's is relative to the root. */
function tokenFilePath(root: string, value: string | undefined, fromFlag: boolean): string | undefined {
  if (value === undefined) return undefined;
  return fromFlag ? resolve(value) : resolve(root, value);
}

function parseRules(value: string | number, from: string): Rules {
  const text = String(value);
  if (!(RULES as readonly string[]).includes(text)) throw new SbevalError('config', `${from}: rules "${text}" is not one of ${RULES.join(', ')}`);
  return text as Rules;
}

export function resolveRunConfig(rootArg: string, flags: RunFlags = {}, loaded = loadConfigFile(resolve(rootArg))): RunConfig {
  const root = resolve(rootArg);
  if (!existsSync(root) || !lstatSync(root).isDirectory()) throw new SbevalError('input', `competition root ${root} is not a folder`);
  const file: ConfigFile = loaded.config;
  const where = loaded.file ?? 'config';
  const sources: Record<string, Source> = {};

  const rules = parseRules(pick<string | number>(sources, 'rules', flags.rules, file.rules, DEFAULTS.rules), flags.rules !== undefined ? '--rules' : where);
  const engineText = pick<string>(sources, 'engine', flags.engine, file.engine, 'headless');
  if (!(ENGINES as readonly string[]).includes(engineText)) {
    throw new SbevalError('config', `--engine "${engineText}" is not one of ${ENGINES.join(', ')}`);
  }
  const workers = pick(sources, 'workers', flags.workers, file.workers, availableParallelism());
  if (!Number.isInteger(workers) || workers < 1) throw new SbevalError('config', `--workers must be a whole number ≥ 1, got ${workers}`);

  const teams = pick<string[] | undefined>(sources, 'teams', flags.teams?.length ? flags.teams : undefined, file.teams, undefined);
  for (const team of teams ?? []) assertSafeName('team', team);

  const charSpec = pick<string | string[]>(sources, 'characters', flags.chars, file.characters, ALPHABET.join(','));
  const characters = parseCharacters(Array.isArray(charSpec) ? charSpec.join(',') : charSpec);

  const trials = pick(sources, 'trials', flags.trials, file.trials, DEFAULTS.trials);
  if (!Number.isInteger(trials) || trials < 1) throw new SbevalError('config', `--trials must be a whole number ≥ 1, got ${trials}`);

  const modelPath = pick<string | undefined>(sources, 'model', flags.model, file.model, undefined);
  const model = modelPath === undefined ? undefined : pathInsideRoot(root, modelPath, flags.model !== undefined ? '--model' : 'model', { allowOutside: true });
  if (model !== undefined && (!existsSync(model) || !statSync(model).isFile())) {
    throw new SbevalError('config', `similarity model ${model} does not exist`, 'sbeval model fetch pittawat/vit-base-uppercase-english-characters');
  }

  const submissions = (file.submissions ?? []).map((s, i) => ({
    team: assertSafeName('team', s.team),
    file: s.file.startsWith('builtin:') ? s.file : pathInsideRoot(root, s.file, `submissions.${i}.file`),
    kind: s.kind,
  }));
  const models = (file.models ?? []).map((name) => ({ name, folder: modelFolderName(name) }));
  const folders = new Map<string, string>();
  for (const m of models) {
    const other = folders.get(m.folder);
    if (other !== undefined) throw new SbevalError('config', `models "${other}" and "${m.name}" map to the same folder "${m.folder}"`);
    folders.set(m.folder, m.name);
  }
  if (submissions.length > 0 && models.length === 0) {
    throw new SbevalError('config', `${where}: submissions are configured but no models`, 'add `models: [<ollama model>]` to the config');
  }
  const limits = file.limits ?? {};
  sources.limits = file.limits ? 'config' : 'default';
  return {
    root,
    configFile: loaded.file,
    rules,
    prefix: pick(sources, 'prefix', undefined, file.prefix, functionPrefix(rules)),
    teams,
    characters,
    trials,
    submissions,
    models,
    hosts: pick(sources, 'hosts', undefined, file.hosts, [...DEFAULTS.hosts]),
    seed: pick(sources, 'seed', undefined, file.seed, DEFAULTS.seed),
    engine: engineText as EngineKind,
    workers,
    model,
    traces: pick(sources, 'traces', flags.traces, file.traces, false),
    simulationTrials: pick(sources, 'simulationTrials', undefined, file.simulationTrials, DEFAULTS.simulationTrials),
    damage: pick(sources, 'damage', undefined, file.damage, DEFAULT_SIMULATION.damage),
    listen: listenSetting(pick(sources, 'listen', flags.listen, file.listen, undefined)),
    tokenFile: tokenFilePath(root, pick<string | undefined>(sources, 'tokenFile', flags.tokenFile, file.tokenFile, undefined), flags.tokenFile !== undefined),
    limits: {
      timeSeconds: limits.timeSeconds ?? DEFAULTS.timeSeconds,
      tokens: limits.tokens ?? DEFAULTS.tokens,
      stallMs: (limits.stallSeconds ?? DEFAULTS.stallSeconds) * 1000,
      trialMs: (limits.trialSeconds ?? DEFAULTS.trialSeconds) * 1000,
      engineRetries: limits.engineRetries ?? DEFAULTS.engineRetries,
    },
    json: flags.json ?? false,
    sources,
  };
}
