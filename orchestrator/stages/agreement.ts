import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DamageFormula, DEFAULT_SIMULATION, type Engine } from '../../bridge/engine.js';
import { createEngines } from '../../bridge/engines.js';
import { decodePng } from '../../bridge/headless/png.js';
import { type CollectedTrial, memorySink } from '../../bridge/memory-sink.js';
import { SbevalError } from '../../core/errors.js';
import { blackIou } from '../../scoring/black-iou.js';
import { OFFICIAL_RULE } from '../../scoring/stability.js';
import { compareNames } from '../layout/competition.js';
import { evaluateLevel, type LevelEvaluation, type LevelEvaluationOptions } from '../machine/index.js';
import { type EngineFactory, EnginePool, type EnginePoolOptions, levelsToKeepBusy, PoolJobError } from '../pool/index.js';
import { REFERENCE_LEVELS } from './calibration-data.js';

/**
 * Agreement of an engine with the Unity evaluator's own results on reference levels: the evaluator's
 * stability JSON and images for the levels of chatgpt4pcg/modified-science-birds @84df32e
 * (calibration/reference-levels, 90 levels, shipped with the package). Each level runs with the evaluator's trial
 * bookkeeping (up to 3 trials, stop at 1.0, the image from the capture of trial 1) and is compared
 * with the evaluator: stable/unstable verdict, moving count, score, and the IoU of the black pixels
 * of the images. Used by `npm run fidelity` (headless engine) and `sbeval unity calibrate` (Unity).
 */

export { REFERENCE_LEVELS } from './calibration-data.js';

interface EvaluatorEntry {
  tag: string;
  score: number;
  startingObjects: number;
  movingObjects: number;
}

export interface ReferenceLevel {
  level: string;
  xml: string;
  evaluator: EvaluatorEntry;
  /** The evaluator's image (PNG path). */
  image: string;
}

export interface LevelAgreement {
  level: string;
  evaluator: { score: number; startingObjects: number; movingObjects: number };
  engine: { score: number; startingObjects: number; movingObjects: number; trialsRun: number };
  stableAgrees: boolean;
  movingEqual: boolean;
  scoreEqual: boolean;
  iou: number;
  /**
   * Why the engine gave no result for this level (every attempt failed, or no engine was left): the
   * level then counts as disagreeing in every measure (engine numbers 0, IoU 0) and is listed.
   */
  failure?: string;
}

export interface AgreementSummary {
  levels: number;
  stableAgreement: number;
  movingEqual: number;
  scoreEqual: number;
  meanIou: number;
  /** Smallest IoU among the levels the evaluator found stable (score 1). */
  minStableIou: number;
  unityStable: number;
  /** Levels without a result (`LevelAgreement.failure`). */
  failed: number;
}

export interface Agreement {
  levels: LevelAgreement[];
  summary: AgreementSummary;
}

/** `<root>/<version>/levels/<C>/*.xml` with `<version>/stability/<C>.json` and `<version>/images/<C>/<name>.png`. */
export function loadReference(root: string = REFERENCE_LEVELS): ReferenceLevel[] {
  if (!existsSync(root)) {
    throw new SbevalError(
      'input',
      `no reference levels at ${root}`,
      'pass --reference <dir> (a folder of <version>/levels/<C>/*.xml with <version>/stability/<C>.json and <version>/images/<C>/*.png)',
    );
  }
  const out: ReferenceLevel[] = [];
  for (const version of readdirSync(root).sort(compareNames)) {
    const levelsDir = join(root, version, 'levels');
    if (!existsSync(levelsDir)) continue;
    for (const character of readdirSync(levelsDir).sort(compareNames)) {
      const stabilityFile = join(root, version, 'stability', `${character}.json`);
      if (!existsSync(stabilityFile))
        throw new SbevalError('input', `${stabilityFile} is missing (the evaluator's results for ${version}/levels/${character})`);
      const evaluator = JSON.parse(readFileSync(stabilityFile, 'utf8')) as { raws: EvaluatorEntry[] };
      const files = readdirSync(join(levelsDir, character))
        .filter((f) => f.endsWith('.xml'))
        .sort(compareNames);
      for (const file of files) {
        const entry = evaluator.raws.find((r) => r.tag.split(/[\\/]/).at(-1) === file);
        if (!entry) throw new SbevalError('input', `${version}/${character}/${file}: no result in ${stabilityFile}`);
        const level = file.replace(/\.xml$/, '');
        const image = join(root, version, 'images', character, `${level}.png`);
        if (!existsSync(image)) throw new SbevalError('input', `${image} is missing (the evaluator's image of ${level})`);
        out.push({ level, xml: readFileSync(join(levelsDir, character, file), 'utf8'), evaluator: entry, image });
      }
    }
  }
  if (out.length === 0) throw new SbevalError('input', `no reference levels under ${root} (expected <version>/levels/<C>/*.xml)`);
  return out;
}

interface AgreementOptions {
  engines: Engine[];
  levels: ReferenceLevel[];
  damage?: DamageFormula;
  /**
   * Pool settings (Unity editors need generous watchdogs). With a `factory`, an engine the pool
   * retires (a crash, a stall, a stream it refused) is replaced; without one the others go on.
   */
  pool?: Omit<EnginePoolOptions, 'engines'>;
  /** Called after each level. */
  onLevel?: (done: number, total: number, level: LevelAgreement) => void;
  /** Receives each level's whole trial-1 stream (for step-by-step comparisons of two engines). */
  onTrialOne?: (level: string, stream: CollectedTrial) => void;
  /** More jobs on the same engines once the levels are done, before the pool closes them (calibrate's ruler levels). */
  alsoRun?: (pool: EnginePool) => Promise<void>;
}

/** Trial 1's stream kept whole per attempt, handed to `keep` for the attempt whose result counts. */
function keepingTrialOne(keep: (level: string, stream: CollectedTrial) => void): NonNullable<LevelEvaluationOptions['tee']> {
  return (job) => {
    if (job.settings.trial !== 1) return undefined;
    const kept = memorySink();
    return { sink: kept.sink, keep: async () => keep(job.levelId, kept.data), drop: async () => {} };
  };
}

/** Runs every reference level on the engines and compares it with the evaluator's results. */
export async function measureAgreement(options: AgreementOptions): Promise<Agreement> {
  const { engines, levels: jobs } = options;
  const damage = options.damage ?? DEFAULT_SIMULATION.damage;
  // A level fault is the measured engine's own answer here, not a claim for another engine to check.
  const pool = new EnginePool({ referee: false, ...options.pool, engines });
  const tee = options.onTrialOne ? keepingTrialOne(options.onTrialOne) : undefined;
  const results: LevelAgreement[] = new Array(jobs.length);
  let done = 0;
  try {
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < jobs.length; i = next++) {
        const job = jobs[i]!;
        const e = job.evaluator;
        let evaluation: LevelEvaluation;
        try {
          evaluation = await evaluateLevel(pool, job.level, job.xml, {
            trials: 3,
            damage,
            rule: OFFICIAL_RULE,
            capture: true,
            rawImages: false,
            ...(tee ? { tee } : {}),
          });
        } catch (error) {
          // One level without a result is recorded as such; the other levels go on (a bad
          // result or a lost engine fails one level, never the whole measurement).
          if (!(error instanceof PoolJobError)) throw error;
          const failed: LevelAgreement = {
            level: job.level,
            evaluator: { score: e.score, startingObjects: e.startingObjects, movingObjects: e.movingObjects },
            engine: { score: 0, startingObjects: 0, movingObjects: 0, trialsRun: 0 },
            stableAgrees: false,
            movingEqual: false,
            scoreEqual: false,
            iou: 0,
            failure: error.message,
          };
          results[i] = failed;
          done += 1;
          options.onLevel?.(done, jobs.length, failed);
          continue;
        }
        if (!evaluation.png) throw new SbevalError('simulate', `level ${job.level}: the engine sent no capture`);
        const ours = (await decodePng(evaluation.png)).rgba;
        const theirs = (await decodePng(readFileSync(job.image))).rgba;
        const s = evaluation.stability;
        const result: LevelAgreement = {
          level: job.level,
          evaluator: { score: e.score, startingObjects: e.startingObjects, movingObjects: e.movingObjects },
          engine: { score: s.score, startingObjects: s.startingObjects, movingObjects: s.movingObjects, trialsRun: s.trialsRun },
          stableAgrees: s.score >= 1 === e.score >= 1,
          movingEqual: s.movingObjects === e.movingObjects && s.startingObjects === e.startingObjects,
          scoreEqual: Math.fround(s.score) === Math.fround(e.score),
          iou: blackIou(ours, theirs),
        };
        results[i] = result;
        done += 1;
        options.onLevel?.(done, jobs.length, result);
      }
    };
    await Promise.all(Array.from({ length: levelsToKeepBusy(engines) }, worker));
    await options.alsoRun?.(pool);
  } finally {
    await pool.close();
  }
  return { levels: results, summary: summarize(results) };
}

export function summarize(levels: readonly LevelAgreement[]): AgreementSummary {
  const stable = levels.filter((l) => l.evaluator.score >= 1);
  return {
    levels: levels.length,
    stableAgreement: levels.filter((l) => l.stableAgrees).length,
    movingEqual: levels.filter((l) => l.movingEqual).length,
    scoreEqual: levels.filter((l) => l.scoreEqual).length,
    meanIou: levels.reduce((sum, l) => sum + l.iou, 0) / Math.max(1, levels.length),
    minStableIou: stable.reduce((min, l) => Math.min(min, l.iou), 1),
    unityStable: stable.length,
    failed: levels.filter((l) => l.failure !== undefined).length,
  };
}

/** A level that differs from the evaluator in verdict or count, or whose image overlaps below 0.99. */
export function differs(l: LevelAgreement): boolean {
  return l.failure !== undefined || !l.movingEqual || !l.stableAgrees || l.iou < 0.99;
}

/**
 * Replacement headless engines for an agreement pool (`AgreementOptions.pool.factory`), so a retired
 * one does not leave the remaining levels without an engine.
 */
export function headlessFactory(): EngineFactory {
  return async (slot, generation) => {
    const [engine] = await createEngines('headless', 1);
    if (!engine) throw new SbevalError('launch', `no headless engine for slot ${slot} (generation ${generation})`);
    return engine;
  };
}
