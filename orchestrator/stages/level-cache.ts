import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DamageFormula } from '../../bridge/engine.js';
import { OWN_HEADLESS_ENGINES } from '../../bridge/engine-kinds.js';
import { headlessDigest } from '../../bridge/headless/engine.js';
import { OFFICIAL_WINDOW } from '../../bridge/window.js';
import { sha256 } from '../../core/hash.js';
import { OFFICIAL_RULE, type StabilityRule, type TrialStability } from '../../scoring/stability.js';
import { stateDir, trialBaseName } from '../layout/competition.js';

/**
 * The simulate stage's per-level cache (`<root>/.sbeval/simulate/<team>/<C>/<name>.json`): a level's
 * result keyed by its XML's sha256 and the settings digest. The stage writes it; the run, the report's
 * fates, the result manifest and the orphan sweep read it.
 */
export interface CachedLevel {
  format: 1;
  xmlSha256: string;
  settings: string;
  outcome:
    | { ok: true; score: number; startingObjects: number; movingObjects: number; trialsRun: number; trials: TrialStability[] }
    | { ok: false; reason: string };
}

export function cachePath(root: string, team: string, character: string, file: string): string {
  return cacheIn(levelCacheFolder(root, team, character), file);
}

/** A level's cache file in its character's state folder (the one place the name is made). */
export function cacheIn(folder: string, file: string): string {
  return join(folder, `${trialBaseName(file)}.json`);
}

/**
 * Level files and caches are read synchronously: they are small (a few KiB), and a synchronous read
 * costs the main thread a fraction of what the promise-based one does (open, stat, read and close
 * each a round trip through the thread pool), which the engines wait on (docs/benchmarks.md).
 */
export function readCache(path: string): CachedLevel | undefined {
  try {
    const data = JSON.parse(readFileSync(path, 'utf8')) as CachedLevel;
    return data.format === 1 ? data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Everything that changes a level's result: engine behaviour and the stage's settings. Not the raw
 * images (`--raw-images`): they change no verdict, and a level's cache asks for its raw image only when
 * the stage writes them (so `run` after `simulate --raw-images` and `score` after it find the results).
 */
export function settingsDigest(options: { engine: string; trials: number; damage: DamageFormula; rule: StabilityRule }): string {
  return digestFor(engineKey(options.engine), options);
}

/**
 * The engine part of a cache key: its kind and the version of the code it runs. `headless` runs this
 * installation's headless engine in worker threads, and `headless-ws` runs the very same engine in
 * `sbeval engine` child processes of this installation (bridge/remote-launchers.ts
 * `headlessWorkerLauncher`), so both carry `headlessDigest()` (the engine version, its physics
 * settings and its budget): after an upgrade neither finds the old results. Engines sbeval does not
 * start itself (`unity`, `bridge`) say what they are only in their `hello`; their kind is the key.
 */
export function engineKey(kind: string, headless: string = headlessDigest()): string {
  return (OWN_HEADLESS_ENGINES as readonly string[]).includes(kind) ? `${kind}:${headless}` : kind;
}

/** The settings digest for an engine key (`engineKey`): what a level's cache entry is keyed by. */
export function digestFor(engine: string, options: { trials: number; damage: DamageFormula; rule: StabilityRule }): string {
  return sha256(JSON.stringify({ engine, trials: options.trials, damage: options.damage, rule: options.rule, window: OFFICIAL_WINDOW })).slice(0, 24);
}

/** The simulation settings a command resolved (official rule): their cache digest, and how to name them to a user. */
export interface SimulationIdentity {
  digest: string;
  label: string;
}

export function simulationIdentity(settings: { engine: string; simulationTrials: number; damage: DamageFormula }): SimulationIdentity {
  return {
    digest: settingsDigest({ engine: settings.engine, trials: settings.simulationTrials, damage: settings.damage, rule: OFFICIAL_RULE }),
    label: `engine ${settings.engine}, ${settings.simulationTrials} stability trial(s), damage ${settings.damage}`,
  };
}

/** A level's cached result (`<root>/.sbeval/simulate/…`), whatever settings it was made with; undefined when there is none. */
export function readLevelCache(root: string, team: string, character: string, file: string): CachedLevel | undefined {
  return readCache(cachePath(root, team, character, file));
}

/** The folder of a letter's level caches, resolved once for many `readLevelCacheIn` (each resolution checks every folder on the way). */
export function levelCacheFolder(root: string, team: string, character: string): string {
  return stateDir(root, 'simulate', team, character);
}

/** `readLevelCache` in a letter's cache folder (`levelCacheFolder`). */
export function readLevelCacheIn(folder: string, file: string): CachedLevel | undefined {
  return readCache(cacheIn(folder, file));
}
