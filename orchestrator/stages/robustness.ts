import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type DamageFormula, DEFAULT_SIMULATION, type Engine } from '../../bridge/engine.js';
import { createEngines, defaultEngineCount } from '../../bridge/engines.js';
import { levelSeed } from '../../bridge/headless/run.js';
import { describeError, SbevalError } from '../../core/errors.js';
import { sha256 } from '../../core/hash.js';
import { throwIfStorageFault } from '../../core/storage.js';
import { csvText } from '../../scoring/formats/text-escape.js';
import { type LevelRobustness, perturbationFor, ROBUSTNESS_POSITION_NOISE, summarizeRobustness } from '../../scoring/robustness.js';
import { OFFICIAL_RULE, OFFICIAL_TRIALS, OFFICIAL_WINDOW_STEPS, type StabilityRule, type TrialStability } from '../../scoring/stability.js';
import type { CompetitionFolder, Settings } from '../config/settings.js';
import { writeFileAtomic } from '../layout/atomic.js';
import { compareNames, listTrialFiles, type StageFilter, type TrialFile, trialBaseName } from '../layout/competition.js';
import { runPoolTrial } from '../machine/index.js';
import { EnginePool } from '../pool/index.js';
import { type ProgressSink, SILENT_PROGRESS } from '../progress/types.js';
import { cachePath, readCache, settingsDigest } from './level-cache.js';

/**
 * `sbeval simulate --robustness N` (and `sbeval run --robustness N`): every level that has an official
 * verdict (a finished `simulate` result in the cache) is simulated N more times, one trial each, under the
 * perturbations of scoring/robustness.ts; per level the share of stable runs, the spread of the moving
 * count and whether the verdict is fragile. The official verdict, the stability JSON and the images are
 * never touched.
 *
 * Results are cached per level at `<root>/.sbeval/robustness/<team>/<C>/<name>.json` (valid for the XML's
 * content, the simulate settings and N), so a rerun only does new or changed levels. The stage writes
 * nothing under `result/`: the one results writer (orchestrator/result/step.ts) lists them in
 * `result/robustness.csv` — every level of the folder, whatever `--team`/`--chars` limited the work to —
 * when `run --robustness N` or `score --robustness N` writes the results.
 * Only the headless engine (in this process or in worker threads) can perturb a run.
 */
const ROBUSTNESS_STAGE = 'robustness';

/** Bump when the perturbations change (part of the cache key). */
const SCHEME = 1;

interface RobustnessStageOptions {
  root: string;
  /** Perturbed runs per level. */
  runs: number;
  filter?: StageFilter;
  /** The simulate stage's settings: they select the official verdicts (cache digest) and the physics of the runs. */
  trials?: number;
  damage?: DamageFormula;
  rule?: StabilityRule;
  /** Engine kind of the official verdicts (part of their cache digest); the runs themselves need a headless engine. */
  engine?: string;
  /** The engine pool to run on (the run's); otherwise headless worker threads are started. */
  pool?: EnginePool;
  /** Ready-made headless engines (when no pool). */
  engines?: Engine[];
  workers?: number;
  force?: boolean;
  /** Multi-model runs: the model folder, carried into the results. */
  model?: string;
}

export interface LevelRobustnessResult {
  team: string;
  character: string;
  /** Level file name (`<team>_<C>_<n>.xml`). */
  file: string;
  /** Trial base name (`<team>_<C>_<n>`). */
  base: string;
  model: string | undefined;
  officialScore: number;
  robustness: LevelRobustness;
  /** Moving objects in each perturbed run (the uncertainty bootstrap draws the level's stability from them). */
  moving: readonly number[];
}

export interface RobustnessSummary {
  stage: typeof ROBUSTNESS_STAGE;
  runs: number;
  /** Every level with an official verdict, in name order. */
  levels: LevelRobustnessResult[];
  fragile: LevelRobustnessResult[];
  /** Levels computed now (the others came from the cache). */
  computed: number;
  /** Levels without an official verdict yet (not simulated, or failed to load): skipped. */
  withoutVerdict: number;
  /** Levels whose perturbed runs failed on the engine: `<team>/<C>/<name>: reason`. */
  failed: string[];
  csv: string;
}

interface CachedRobustness {
  format: 1;
  key: string;
  /** The level's XML the runs were made on: a changed level is run again even when its official score is the same. */
  xmlSha256: string;
  officialScore: number;
  /** Moving objects in each perturbed run. */
  moving: number[];
}

function robustnessCachePath(root: string, team: string, character: string, file: string): string {
  return join(root, '.sbeval', 'robustness', team, character, `${trialBaseName(file)}.json`);
}

/** The official score of a level from the simulate cache (read as every stage reads it), when it is valid for the XML and the settings. */
function officialScore(root: string, level: TrialFile, xml: string, digest: string): number | undefined {
  const entry = readCache(cachePath(root, level.team, level.character, level.file));
  if (!entry || entry.settings !== digest || entry.xmlSha256 !== sha256(xml) || !entry.outcome.ok || typeof entry.outcome.score !== 'number') return undefined;
  return entry.outcome.score;
}

/** One perturbed trial: no image, frames batched large (nobody keeps them). */
async function perturbedTrial(pool: EnginePool, levelId: string, xml: string, k: number, damage: DamageFormula, rule: StabilityRule): Promise<TrialStability> {
  const job = { framesPerBatch: 1024, perturbation: perturbationFor(levelSeed(xml), k) };
  const result = await runPoolTrial(
    pool,
    { levelId: `${levelId}#robustness${k + 1}`, xml, trial: 1, capture: false },
    { damage, rule, windowSteps: OFFICIAL_WINDOW_STEPS, rawImages: false, job },
  );
  return result.stability;
}

interface CollectedLevels {
  levels: TrialFile[];
  /** Levels whose runs are in the cache, valid for their XML, the settings and N. */
  slots: Map<TrialFile, LevelRobustnessResult>;
  todo: Array<{ level: TrialFile; xml: string; xmlSha256: string; official: number }>;
  withoutVerdict: number;
  key: string;
}

/** Every level of the folder: cached results (valid for the level's XML, the simulate settings and N), and the levels still to run. */
async function collectLevels(options: RobustnessStageOptions): Promise<CollectedLevels> {
  const { root, runs } = options;
  if (!Number.isInteger(runs) || runs < 1 || runs > 10_000)
    throw new SbevalError('config', `--robustness must be a whole number of runs from 1 to 10000, got ${runs}`);
  const engineKind = options.engine ?? 'headless';
  if (!options.pool && !options.engines && engineKind !== 'headless') {
    throw new SbevalError('config', `--robustness needs the headless engine (the ${engineKind} engine cannot perturb a run)`, 'use --engine headless');
  }
  const trials = options.trials ?? OFFICIAL_TRIALS;
  const damage = options.damage ?? DEFAULT_SIMULATION.damage;
  const rule = options.rule ?? OFFICIAL_RULE;
  const digest = settingsDigest({ engine: engineKind, trials, damage, rule });
  const key = sha256(JSON.stringify({ scheme: SCHEME, digest, runs, noise: ROBUSTNESS_POSITION_NOISE })).slice(0, 24);

  // Every level of the folder is listed (result/robustness.csv describes the whole folder); --team and
  // --chars only limit which ones are run now: the others count when their cached runs are still valid.
  const inWork = new Set(listTrialFiles(root, 'levels', options.filter ?? {}, '.xml').map((l) => l.path));
  const levels = listTrialFiles(root, 'levels', {}, '.xml').sort(
    (a, b) => compareNames(a.team, b.team) || compareNames(a.character, b.character) || compareNames(a.file, b.file),
  );
  const todo: Array<{ level: TrialFile; xml: string; xmlSha256: string; official: number }> = [];
  let withoutVerdict = 0;
  const slots = new Map<TrialFile, LevelRobustnessResult>();
  for (const level of levels) {
    const xml = await readFile(level.path, 'utf8');
    const official = officialScore(root, level, xml, digest);
    if (official === undefined) {
      withoutVerdict += 1;
      continue;
    }
    const xmlSha256 = sha256(xml);
    const cached =
      options.force && inWork.has(level.path)
        ? undefined
        : await readCached(robustnessCachePath(root, level.team, level.character, level.file), { key, xmlSha256, official, runs });
    if (cached) slots.set(level, resultOf(level, options.model, official, cached));
    else if (inWork.has(level.path)) todo.push({ level, xml, xmlSha256, official });
  }
  return { levels, slots, todo, withoutVerdict, key };
}

/**
 * The options that find a competition folder's perturbed runs as `sbeval run` and `sbeval simulate`
 * made them: the run count and the simulate settings of the official verdicts (their cache digest).
 */
export function robustnessOptions(
  settings: Pick<Settings, 'simulationTrials' | 'damage' | 'engine'>,
  competition: CompetitionFolder,
  runs: number,
): RobustnessStageOptions {
  return {
    root: competition.root,
    runs,
    trials: settings.simulationTrials,
    damage: settings.damage,
    rule: OFFICIAL_RULE,
    engine: settings.engine,
    ...(competition.model !== undefined ? { model: competition.model } : {}),
  };
}

/**
 * The perturbed runs already in the cache (valid for each level's XML, the simulate settings and N),
 * without running anything: what `sbeval score --robustness N` draws the physics from. Levels without
 * valid cached runs are left out (the score uses their official stability).
 */
export async function cachedRobustness(options: Omit<RobustnessStageOptions, 'pool' | 'engines' | 'workers' | 'force'>): Promise<LevelRobustnessResult[]> {
  const { levels, slots } = await collectLevels(options);
  return levels.map((l) => slots.get(l)).filter((r): r is LevelRobustnessResult => r !== undefined);
}

export async function runRobustnessStage(options: RobustnessStageOptions, progress: ProgressSink = SILENT_PROGRESS): Promise<RobustnessSummary> {
  const { root, runs } = options;
  const { levels, slots, todo, withoutVerdict, key } = await collectLevels(options);
  const damage = options.damage ?? DEFAULT_SIMULATION.damage;
  const rule = options.rule ?? OFFICIAL_RULE;

  progress.start(ROBUSTNESS_STAGE, todo.length);
  const failed: string[] = [];
  let pool = options.pool;
  /** The pool this stage opened (none when the caller gave one). */
  let ownPool: EnginePool | undefined;
  let engines: Engine[] = [];
  const own = !options.pool && !options.engines;
  try {
    if (!pool && todo.length > 0) {
      engines = options.engines ?? (await createEngines('headless', Math.min(options.workers ?? defaultEngineCount(), todo.length)));
      ownPool = pool = new EnginePool({ engines });
    }
    // A few levels at a time, each with all its runs queued as separate jobs: the engines stay busy to
    // the last run and the queue stays short.
    let next = 0;
    let computed = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        const item = todo[next++];
        if (!item || !pool) return;
        const { level, xml, xmlSha256, official } = item;
        const label = `${level.team}/${level.character}/${trialBaseName(level.file)}`;
        try {
          const list = await Promise.all(Array.from({ length: runs }, (_, k) => perturbedTrial(pool as EnginePool, label, xml, k, damage, rule)));
          const entry: CachedRobustness = { format: 1, key, xmlSha256, officialScore: official, moving: list.map((t) => t.movingObjects) };
          await writeFileAtomic(robustnessCachePath(root, level.team, level.character, level.file), `${JSON.stringify(entry)}\n`);
          slots.set(level, resultOf(level, options.model, official, entry));
          computed += 1;
          progress.tick(ROBUSTNESS_STAGE, 'ok', label);
        } catch (error) {
          throwIfStorageFault(error); // a full or read-only disk stops the stage (core/storage.ts)
          const reason = describeError(error);
          failed.push(`${label}: ${reason}`);
          progress.tick(ROBUSTNESS_STAGE, 'failed', label, reason);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(todo.length, Math.max(4, Math.ceil(64 / runs))) }, () => worker()));
    const ordered = levels.map((l) => slots.get(l)).filter((r): r is LevelRobustnessResult => r !== undefined);
    const csv = robustnessCsv(ordered);
    return { stage: ROBUSTNESS_STAGE, runs, levels: ordered, fragile: ordered.filter((r) => r.robustness.fragile), computed, withoutVerdict, failed, csv };
  } finally {
    await ownPool?.close();
    if (own) await Promise.all(engines.map((e) => e.close()));
    progress.end(ROBUSTNESS_STAGE);
  }
}

async function readCached(path: string, want: { key: string; xmlSha256: string; official: number; runs: number }): Promise<CachedRobustness | undefined> {
  const { key, official, runs } = want;
  try {
    const entry = JSON.parse(await readFile(path, 'utf8')) as CachedRobustness;
    const valid =
      entry.format === 1 &&
      entry.key === key &&
      entry.xmlSha256 === want.xmlSha256 &&
      entry.officialScore === official &&
      Array.isArray(entry.moving) &&
      entry.moving.length === runs &&
      entry.moving.every((m) => Number.isInteger(m) && m >= 0);
    return valid ? entry : undefined;
  } catch {
    return undefined;
  }
}

function resultOf(level: TrialFile, model: string | undefined, official: number, entry: CachedRobustness): LevelRobustnessResult {
  return {
    team: level.team,
    character: level.character,
    file: level.file,
    base: trialBaseName(level.file),
    model,
    officialScore: official,
    robustness: summarizeRobustness(entry.moving, official),
    moving: entry.moving,
  };
}

/**
 * The `result/robustness.csv` of each competition folder (absolute path of the folder → the table) from
 * the levels' results of every folder (each carries its model folder, in the folders' order).
 */
export function robustnessTables(competitions: readonly CompetitionFolder[], levels: readonly LevelRobustnessResult[]): Map<string, string> {
  return new Map(competitions.map((c) => [c.root, robustnessCsv(levels.filter((l) => l.model === c.model))]));
}

const ROBUSTNESS_COLUMNS = ['team', 'letter', 'level', 'official_score', 'runs', 'stable_runs', 'moving_min', 'moving_max', 'moving_mean', 'fragile'] as const;

/** `result/robustness.csv`: one row per level with an official verdict. */
function robustnessCsv(rows: readonly LevelRobustnessResult[]): string {
  // RFC 4180 with formula-leading text (team names) neutralized: scoring/formats/text-escape.ts.
  return csvText([
    [...ROBUSTNESS_COLUMNS],
    ...rows.map((r) => {
      const x = r.robustness;
      return [
        r.team,
        r.character,
        r.base,
        String(r.officialScore),
        String(x.runs),
        String(x.stableRuns),
        String(x.moving.min),
        String(x.moving.max),
        x.moving.mean.toFixed(2),
        x.fragile ? 'yes' : 'no',
      ];
    }),
  ]);
}
