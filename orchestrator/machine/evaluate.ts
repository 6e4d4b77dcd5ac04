import type { DamageFormula } from '../../bridge/engine.js';
import type { BodyInfo, SimEvent } from '../../bridge/frames.js';
import { SbevalError } from '../../core/errors.js';
import {
  type LevelStability,
  type ObjectMeasure,
  OFFICIAL_WINDOW_STEPS,
  type StabilityRule,
  type TrialMeasure,
  type TrialStability,
} from '../../scoring/stability.js';
import type { EnginePool } from '../pool/index.js';
import type { LevelEffects } from './actors.js';
import { runPoolTrial, type TrialResult, type TrialSettings } from './pool-trial.js';
import { provideLevelMachine, startLevel } from './start.js';
import { trialEffects } from './trial-effects.js';
import type { LevelInput } from './types.js';

/**
 * One level XML through the level machine on the engine pool, kept in memory: the evaluator's trial
 * bookkeeping (up to `trials` runs, stop at 1.0, score = max, counts from the last run) is the
 * machine's, the trials are ./pool-trial.ts's, as for `sbeval run`. `simulate` writes what this gives
 * to the folder; `level` prints it; the agreement measurement compares it with the evaluator's.
 */
export interface LevelEvaluation {
  stability: LevelStability;
  trials: TrialStability[];
  bodies: BodyInfo[];
  /** Trial 1's image (when asked for). */
  png?: Uint8Array;
  raw?: Uint8Array;
  /** The last trial's counted objects (start, last position, displacement). */
  details: ObjectMeasure[];
  /** Every trial's step numbers and bodies, trial 1 first (`sbeval level --trace` prints trial 1's, the one it records). */
  measures: TrialMeasure[];
  /** The last trial's events. */
  events: SimEvent[];
}

export interface LevelEvaluationOptions {
  /** 1..3 (the evaluator's `trials`). */
  trials: number;
  damage: DamageFormula;
  rule: StabilityRule;
  /** Trial 1 renders the image. */
  capture: boolean;
  rawImages: boolean;
  windowSteps?: number;
  /** Hears which engine gave each trial (its pool serial: orchestrator/pool/result-ledger.ts). */
  onEngine?: (engineSerial: number) => void;
  /** An extra sink per attempt of each trial (`sbeval level --trace`, kept streams). */
  tee?: TrialSettings['tee'];
  signal?: AbortSignal;
}

/**
 * The machine bounds no state here: the pool's watchdogs (stall, job timeout) bound every trial, and
 * its attempts retry on other engines, so the machine retries none itself. 2^31 − 1 ms is the longest
 * delay a timer holds (a longer one fires at once: Node's `setTimeout`).
 */
const UNBOUNDED_MS = 2 ** 31 - 1;

function limitsFor(trials: number): LevelInput['limits'] {
  return {
    maxTrials: trials,
    maxEngineRetries: 0,
    timeouts: { extract: UNBOUNDED_MS, convert: UNBOUNDED_MS, simulate: UNBOUNDED_MS, capture: UNBOUNDED_MS, commit: UNBOUNDED_MS },
  };
}

/**
 * Simulates the level; throws what ended it early: the pool's `PoolJobError` (a level error, engine
 * faults past the attempts), or the effect's own error.
 */
export async function evaluateLevel(pool: EnginePool, levelId: string, xml: string, options: LevelEvaluationOptions): Promise<LevelEvaluation> {
  const settings: TrialSettings = {
    damage: options.damage,
    rule: options.rule,
    windowSteps: options.windowSteps ?? OFFICIAL_WINDOW_STEPS,
    rawImages: options.rawImages,
    ...(options.tee ? { tee: options.tee } : {}),
  };
  const results: TrialResult[] = [];
  let png: Uint8Array | undefined;
  let raw: Uint8Array | undefined;
  let thrown: unknown;
  const effects: LevelEffects = {
    // The XML is in hand: nothing to extract or convert.
    extract: async () => ({ status: 'ok', cached: true }),
    convert: async () => ({ status: 'ok', cached: true }),
    ...trialEffects({
      capture: options.capture,
      async trial(_level, trial, capture, _avoid, signal) {
        try {
          const result = await runPoolTrial(pool, { levelId, xml, trial, capture, signal }, settings);
          options.onEngine?.(result.engineSerial);
          return result;
        } catch (error) {
          thrown = error;
          throw error;
        }
      },
      counted: (_level, trial, result) => {
        results[trial - 1] = result;
      },
      keepImage: async (_level, image, rawImage) => {
        png = image;
        raw = rawImage;
      },
    }),
    commit: async () => ({ status: 'ok', cached: false }),
  };
  const outcome = await startLevel(
    provideLevelMachine(effects),
    { level: levelRef(levelId), limits: limitsFor(options.trials) },
    options.signal ? { signal: options.signal } : {},
  );
  if (outcome.status !== 'done' || !outcome.stability) {
    throw thrown ?? new SbevalError('simulate', `level ${levelId}: ${outcome.failure?.reason ?? 'failed'}`);
  }
  const last = results.at(-1) as TrialResult;
  const evaluation: LevelEvaluation = {
    stability: outcome.stability,
    trials: results.map((r) => r.stability),
    bodies: last.bodies,
    details: last.details,
    measures: results.map((r) => r.measure),
    events: last.events,
  };
  if (png) evaluation.png = png;
  if (raw) evaluation.raw = raw;
  return evaluation;
}

/** The machine's level for an XML in hand: its id is the caller's label. */
function levelRef(id: string): LevelInput['level'] {
  return { id, team: '', model: undefined, character: '', trial: Number.NaN, base: id };
}
