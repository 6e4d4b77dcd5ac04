import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DamageFormula, EngineIdentity } from '../../bridge/engine.js';
import { OFF_MACHINE_ENGINES, OWN_HEADLESS_ENGINES } from '../../bridge/engine-kinds.js';
import { headlessDigest, headlessIdentity } from '../../bridge/headless/engine.js';
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
  /**
   * The engines whose trials made it (`engineLabel`: kind, version and build from their `hello`),
   * sorted; empty when no engine's run gave it (a verdict of sbeval's own rules). Absent in entries
   * written before engines were recorded.
   */
  engines?: string[];
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

/** A level's cache entry, as both its writers make it (the simulate stage and `sbeval run`'s commit). */
export function cacheEntry(xmlSha256: string, settings: string, engines: readonly EngineIdentity[], outcome: CachedLevel['outcome']): CachedLevel {
  return { format: 1, xmlSha256, settings, engines: [...new Set(engines.map(engineLabel))].sort(), outcome };
}

/** An engine as a cache entry records it: what its `hello` says decides its results (not the free-text description). */
function engineLabel(identity: EngineIdentity): string {
  return `${identity.kind} ${identity.version}${identity.build === undefined ? '' : ` (build ${identity.build})`}`;
}

/**
 * Whether a stage must learn the engine from its `hello` before it may reuse a cached result: engines
 * sbeval does not start from its own code (`unity`, `bridge`) are known only by what they announce, so
 * their kind in the settings digest says nothing about their version.
 */
export function checksEngineIdentity(kind: string): boolean {
  return (OFF_MACHINE_ENGINES as readonly string[]).includes(kind);
}

/**
 * The check of cached results against the engine a stage connected to (`checksEngineIdentity`): an
 * entry is reused only when every engine it records is that engine or this installation's headless
 * engine (the pool's referee). It counts what it refused, so the stage says why once, not per level.
 */
export class EngineIdentityCheck {
  private readonly current: string | undefined;
  private readonly accepted: ReadonlySet<string>;
  private readonly refused = new Map<string, number>();

  /** `undefined`: no engine connected (the stage was stopped while it waited), so no cached result can be vouched for. */
  constructor(identity: EngineIdentity | undefined) {
    this.current = identity && engineLabel(identity);
    this.accepted = new Set(this.current ? [this.current, engineLabel(headlessIdentity(''))] : []);
  }

  /** Whether `entry` may be reused with the connected engine; a refusal is counted. */
  accepts(entry: CachedLevel): boolean {
    if (this.current === undefined) return false;
    const engines = entry.engines;
    if (engines?.every((e) => this.accepted.has(e))) return true;
    const by = engines === undefined ? 'an engine that was not recorded' : engines.filter((e) => !this.accepted.has(e)).join(' + ');
    this.refused.set(by, (this.refused.get(by) ?? 0) + 1);
    return false;
  }

  /** One line about the results refused (undefined when none was): how many, whose, and the engine now. */
  summary(): string | undefined {
    if (this.refused.size === 0) return undefined;
    const total = [...this.refused.values()].reduce((a, b) => a + b, 0);
    const whose = [...this.refused].map(([by, n]) => `${n} by ${by}`).join(', ');
    return `${total} cached level result(s) came from another engine (${whose}); the engine now is ${this.current}: they are simulated again`;
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
