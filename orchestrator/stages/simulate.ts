import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DamageFormula, DEFAULT_SIMULATION, type Engine } from '../../bridge/engine.js';
import { createEngines, defaultEngineCount } from '../../bridge/engines.js';
import { describeError, SbevalError } from '../../core/errors.js';
import { type StorageError, storageFault } from '../../core/storage.js';
import { type StabilityEntry, stabilityTag, writeStabilityJson } from '../../scoring/formats/stability.js';
import { DEFAULT_VELOCITY_RULE, OFFICIAL_RULE, OFFICIAL_TRIALS, type StabilityRule } from '../../scoring/stability.js';
import { writeFileAtomic } from '../layout/atomic.js';
import { compareNames, listTrialFiles, type StageFilter, stageDir, stateDir, type TrialFile, trialBaseName } from '../layout/competition.js';
import { StageLog, type StageSummary } from '../layout/stage-log.js';
import { evaluateLevel, type LevelEvaluationOptions } from '../machine/index.js';
import { EnginePool, levelsToKeepBusy, type PoolEvent, PoolJobError } from '../pool/index.js';
import { type ProgressSink, SILENT_PROGRESS } from '../progress/types.js';
import { type CachedLevel, cacheIn, checksEngineIdentity, EngineIdentityCheck, settingsDigest } from './level-cache.js';
import { type LevelFiles, LevelResults, type LoggedLevel, rawImageOf, validCache } from './level-results.js';
import { removeOrphanLevelOutputs } from './orphans.js';

/**
 * `levels` → `stability` + `images`: the Science Birds evaluator's batch stability and similarity
 * runs, on any `Engine` (headless by default). For every `<root>/<team>/levels/<C>/<name>.xml`, through
 * the level machine on the engine pool as `sbeval run` simulates it (orchestrator/machine/evaluate.ts):
 * up to `trials` runs with Unity's bookkeeping (stop at 1.0, score = max, counts from the last trial),
 * the image of trial 1 at `<root>/<team>/images/<C>/<name>.png`, and per character the evaluator's
 * `<root>/<team>/stability/<C>.json`.
 *
 * Resumable: each finished level is cached at `<root>/.sbeval/simulate/<team>/<C>/<name>.json`
 * (hidden root folders are ignored by the official scripts) with the XML's hash and a digest of the
 * settings; a cached level whose XML and settings are unchanged (and whose image exists) is not run
 * again. A character's JSON is (re)written from the caches once all its levels are done. A level that
 * cannot be loaded is recorded with its reason in `<root>/logs/stability_log_<ISO>.txt` and left out
 * of the JSON (the scoring script counts a missing trial as 0). A level whose trials ran on an engine
 * the pool later discredits (retired for a lie) loses its image and cache and runs again (up to
 * `RUNS_PER_LEVEL` times; then it is unfinished). The cache, the images, the log lines and the reruns
 * are kept as `sbeval run` keeps them: stages/level-results.ts.
 */
export interface SimulateOptions {
  root: string;
  filter?: StageFilter;
  /** 1..3 (default 3, the evaluator's `trials`). */
  trials?: number;
  damage?: DamageFormula;
  rule?: StabilityRule;
  /** Engines in parallel (default: one per core). */
  workers?: number;
  /** Engine kind for `createEngines` (default `headless`). */
  engine?: string;
  /** Ready-made engines (tests, callers that own them); `engine`/`workers` are then ignored. */
  engines?: Engine[];
  rawImages?: boolean;
  /** Ignore caches and redo every level. */
  force?: boolean;
  /** Stop starting levels once aborted (those in flight finish and are kept). */
  signal?: AbortSignal;
}

export interface SimulateSummary extends StageSummary {
  /** `<team>/<C>` whose stability JSON was (re)written. */
  characters: string[];
  /** Levels that failed for engine reasons (not a verdict about the level): not cached, a rerun retries them. */
  unfinished: number;
  /** Levels not started because the stage was stopped (Ctrl-C): the next run does them. */
  notRun: number;
}

/**
 * A level's files. The folders are resolved (and checked not to be symbolic links,
 * layout/competition.ts) once per character and stage run, not twice per level: each check is an
 * lstat per path component, and a level costs the main thread only a few milliseconds in all.
 */
class LevelPaths {
  private readonly folders = new Map<string, { images: string; state: string }>();
  constructor(private readonly root: string) {}

  private folder(level: TrialFile): { images: string; state: string } {
    const key = `${level.team}/${level.character}`;
    let found = this.folders.get(key);
    if (!found) {
      found = { images: stageDir(this.root, level.team, 'images', level.character), state: stateDir(this.root, 'simulate', level.team, level.character) };
      this.folders.set(key, found);
    }
    return found;
  }

  files(level: TrialFile): LevelFiles {
    const png = join(this.folder(level).images, `${trialBaseName(level.file)}.png`);
    return { xml: level.path, png, raw: rawImageOf(png), cache: cacheIn(this.folder(level).state, level.file) };
  }
}

/** A level as the ledger and the log name it: `<team>/<C>/<name>`. */
function logged(file: TrialFile): LoggedLevel {
  return { id: `${file.team}/${file.character}/${trialBaseName(file.file)}`, team: file.team, character: file.character, file: file.file };
}

/** What `simulateLevel` needs from its stage run. */
interface LevelWork {
  pool: EnginePool;
  results: LevelResults;
  paths: LevelPaths;
  evaluation: LevelEvaluationOptions;
  progress: ProgressSink;
  /** Levels with a result (cached or made now), by XML path. */
  cached: Map<string, CachedLevel>;
}

/**
 * Runs one level on the pool and records it (stages/level-results.ts): its image and cache entry, or
 * its verdict when sbeval's rules say it cannot run. `unfinished`: engines failed it (a rerun may
 * finish it); a storage fault stops the stage.
 */
async function simulateLevel(file: TrialFile, work: LevelWork): Promise<'ok' | 'unfinished' | StorageError> {
  const { results, cached } = work;
  const level = logged(file);
  const xml = readFileSync(file.path, 'utf8');
  const files = work.paths.files(file);
  try {
    const result = await evaluateLevel(work.pool, level.id, xml, {
      ...work.evaluation,
      onEngine: (engineSerial) => results.ledger.used(level.id, engineSerial),
    });
    if (!result.png) throw new SbevalError('capture', `level ${level.id}: the engine sent no image`);
    await results.keepImages(level, files, result.png, work.evaluation.rawImages ? result.raw : undefined);
    const entry = await results.keepResult(level, files, xml, { ok: true, ...result.stability, trials: result.trials });
    if (entry) cached.set(file.path, entry);
    results.verdict(level, { ok: true });
    return 'ok';
  } catch (error) {
    // A full disk or a read-only folder is not the level's fault: stop, the next run does it.
    const storage = storageFault(error);
    if (storage) return storage;
    const reason = describeError(error);
    const levelError = isLevelError(error);
    const entry = levelError ? await results.keepLevelError(level, files, xml, reason) : undefined;
    if (entry) cached.set(file.path, entry);
    results.verdict(level, { ok: false, reason });
    return levelError ? 'ok' : 'unfinished';
  }
}

/** Which levels still need work: those without a valid cache entry (stages/level-results.ts `validCache`). */
function sortOutCached(
  levels: readonly TrialFile[],
  paths: LevelPaths,
  digest: string,
  options: Pick<SimulateOptions, 'force'> & { rawImages: boolean },
  log: StageLog,
  engine: EngineIdentityCheck | undefined,
): { todo: TrialFile[]; cached: Map<string, CachedLevel> } {
  const todo: TrialFile[] = [];
  const cached = new Map<string, CachedLevel>();
  for (const level of levels) {
    const entry = options.force ? undefined : validCache(paths.files(level), digest, options.rawImages, engine);
    if (entry) {
      cached.set(level.path, entry);
      log.skipped();
    } else {
      todo.push(level);
    }
  }
  return { todo, cached };
}

/** The stage's engines and their pool (none when there is nothing to run). */
interface StagePool {
  engines: Engine[];
  pool: EnginePool | undefined;
  /** The stage started the engines (none were given), so it closes them. */
  ownEngines: boolean;
  /** Set while closing: engines retired by the close itself are not news. */
  closing: boolean;
}

async function openStagePool(options: SimulateOptions, engineKind: string, levels: number, progress: ProgressSink): Promise<StagePool> {
  const ownEngines = options.engines === undefined;
  const engines = levels === 0 ? [] : (options.engines ?? (await createEngines(engineKind, Math.min(options.workers ?? defaultEngineCount(), levels))));
  const stagePool: StagePool = { engines, pool: undefined, ownEngines, closing: false };
  const onEvent = (e: PoolEvent): void => {
    if (e.type === 'requeued') progress.note('simulate', `retrying ${e.levelId}: ${e.reason}`);
    else if (e.type === 'engine-retired' && !stagePool.closing) progress.note('simulate', `engine ${e.engineId} retired: ${e.reason}`);
    else if (e.type === 'engine-replace-failed') progress.note('simulate', `engine slot ${e.slot} not replaced: ${e.reason}`);
  };
  // Engines this stage started are replaced like them when the pool retires one, so queued jobs still run
  // (test/orchestrator/simulate-replace.test.ts).
  const factory = ownEngines
    ? async (): Promise<Engine> => {
        const [engine] = await createEngines(engineKind, 1);
        if (!engine) throw new SbevalError('launch', `no ${engineKind} engine to replace a retired one`);
        return engine;
      }
    : undefined;
  stagePool.pool = engines.length > 0 ? new EnginePool({ engines, onEvent, ...(factory ? { factory } : {}) }) : undefined;
  return stagePool;
}

/**
 * Runs the levels on the pool, `levelsToKeepBusy` at once, then again those that ran on an engine the pool
 * discredited meanwhile (stages/level-results.ts `runWithReruns`). Returns how many levels are unfinished
 * and how many a stop left unstarted; the first storage fault stops every worker (no more levels are
 * started) and is then thrown.
 */
async function runLevels(
  todo: readonly TrialFile[],
  work: LevelWork,
  stagePool: StagePool,
  signal: AbortSignal | undefined,
): Promise<{ unfinished: number; notRun: number }> {
  const { pool, engines } = stagePool;
  const { results, cached } = work;
  // By XML path: a level that runs again is unfinished only if its last run leaves it so.
  const unfinished = new Set<string>();
  // Levels a stop (Ctrl-C) left unstarted: the summary counts them as not run, the next run does them.
  const started = new Set<string>();
  let fault: StorageError | undefined;
  const parallel = levelsToKeepBusy(engines);
  const pass = async (queue: readonly TrialFile[]): Promise<void> => {
    let next = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        if (fault || signal?.aborted) return;
        const file = queue[next++];
        if (!file || !pool) return;
        started.add(file.path);
        const done = await simulateLevel(file, work);
        if (done === 'unfinished') unfinished.add(file.path);
        else if (done !== 'ok') {
          fault ??= done;
          return;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, queue.length) }, () => worker()));
  };
  const forget = (levels: readonly TrialFile[]) => {
    for (const level of levels) {
      cached.delete(level.path);
      unfinished.delete(level.path);
    }
  };
  await results.runWithReruns(todo, logged, pass, {
    again: (levels, message) => {
      forget(levels);
      work.progress.note('simulate', message);
    },
    notKept: (levels, message) => {
      forget(levels);
      for (const level of levels) unfinished.add(level.path);
      work.progress.note('simulate', message);
    },
    stopped: () => fault !== undefined,
  });
  if (fault) throw fault;
  return { unfinished: unfinished.size, notRun: todo.filter((level) => !started.has(level.path)).length };
}

/** Character files from the caches, once every level of the character is done; returns the `<team>/<C>` written. */
async function writeCharacterFiles(
  root: string,
  levels: readonly TrialFile[],
  cached: ReadonlyMap<string, CachedLevel>,
  progress: ProgressSink,
): Promise<string[]> {
  const characters: string[] = [];
  const groups = new Map<string, TrialFile[]>();
  for (const level of levels) {
    const key = `${level.team}/${level.character}`;
    groups.set(key, [...(groups.get(key) ?? []), level]);
  }
  for (const [key, group] of groups) {
    if (!group.every((level) => cached.has(level.path))) {
      progress.note('simulate', `${key}: not every level is done, stability JSON not written (run again to retry)`);
      continue;
    }
    const [team, character] = key.split('/') as [string, string];
    const text = stabilityFileText(
      team,
      character,
      group.map((level) => ({ file: level.file, outcome: (cached.get(level.path) as CachedLevel).outcome })),
    );
    await writeFileAtomic(join(stageDir(root, team, 'stability'), `${character}.json`), text);
    characters.push(key);
  }
  return characters;
}

export async function runSimulateStage(options: SimulateOptions, progress: ProgressSink = SILENT_PROGRESS): Promise<SimulateSummary> {
  const root = options.root;
  const trials = options.trials ?? OFFICIAL_TRIALS;
  if (!Number.isInteger(trials) || trials < 1 || trials > 3) throw new SbevalError('config', `--trials must be 1, 2 or 3, got ${trials}`);
  const damage = options.damage ?? DEFAULT_SIMULATION.damage;
  const rule = options.rule ?? OFFICIAL_RULE;
  const rawImages = options.rawImages === true;
  const engineKind = options.engine ?? 'headless';
  const digest = settingsDigest({ engine: engineKind, trials, damage, rule });
  const levels = listTrialFiles(root, 'levels', options.filter ?? {}, '.xml');
  const log = new StageLog(root, 'stability');
  const paths = new LevelPaths(root);
  // Engines known only by their hello are started first: a cached result of another engine is not reused.
  const early = checksEngineIdentity(engineKind) && levels.length > 0 ? await openStagePool(options, engineKind, levels.length, progress) : undefined;
  const engine = early?.engines[0] ? new EngineIdentityCheck(early.engines[0].identity) : undefined;
  const { todo, cached } = sortOutCached(levels, paths, digest, { force: options.force, rawImages }, log, engine);

  progress.start('simulate', todo.length);
  const refused = engine?.summary();
  if (refused) progress.note('simulate', refused);
  if (cached.size > 0) progress.note('simulate', `${cached.size} level(s) already done, ${todo.length} to run`);
  const stagePool = early ?? (await openStagePool(options, engineKind, todo.length, progress));
  const { pool, engines } = stagePool;
  const results = new LevelResults(pool, log, progress, digest);
  let counts: { unfinished: number; notRun: number };
  try {
    const work: LevelWork = { pool: pool as EnginePool, results, paths, evaluation: { trials, damage, rule, capture: true, rawImages }, progress, cached };
    counts = await runLevels(todo, work, stagePool, options.signal);
  } finally {
    stagePool.closing = true;
    results.close();
    await pool?.close();
    if (stagePool.ownEngines) await Promise.all(engines.map((e) => e.close()));
    progress.end('simulate');
  }

  // An image or a stability file whose level is gone (stages/orphans.ts) is not left beside the new files.
  await removeOrphanLevelOutputs(root, options.filter ?? {}, progress, 'simulate');
  const characters = await writeCharacterFiles(root, levels, cached, progress);
  return { ...log.result(), characters, ...counts };
}

/**
 * A letter's `stability/<C>.json` from its levels' results, as the evaluator writes it: levels that could
 * not be loaded are left out, the others in Directory.GetFiles order on the evaluator's Windows machine
 * (names in ordinal, case-insensitive order).
 */
export function stabilityFileText(team: string, character: string, levels: ReadonlyArray<{ file: string; outcome: CachedLevel['outcome'] }>): string {
  const entries: StabilityEntry[] = [];
  for (const { file, outcome } of [...levels].sort((a, b) => compareNames(a.file, b.file))) {
    if (!outcome.ok) continue;
    entries.push({
      tag: stabilityTag(team, character, file),
      score: outcome.score,
      startingObjects: outcome.startingObjects,
      movingObjects: outcome.movingObjects,
    });
  }
  return writeStabilityJson(entries);
}

function isLevelError(error: unknown): boolean {
  if (error instanceof PoolJobError) return error.kind === 'level';
  return typeof error === 'object' && error !== null && (error as { levelError?: unknown }).levelError === true;
}

/** CLI helpers: the velocity rule with an optional threshold. */
export function ruleFrom(kind: string, velocityThreshold?: number): StabilityRule {
  if (kind === 'displacement') return OFFICIAL_RULE;
  if (kind === 'velocity') {
    const base = DEFAULT_VELOCITY_RULE as Extract<StabilityRule, { kind: 'velocity' }>;
    return velocityThreshold === undefined ? base : { ...base, threshold: velocityThreshold };
  }
  throw new SbevalError('config', `unknown stability rule "${kind}"`, 'use displacement or velocity');
}
