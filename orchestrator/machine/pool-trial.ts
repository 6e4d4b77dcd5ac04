import { type DamageFormula, DEFAULT_SIMULATION, type Engine, type LevelJob, type LevelSink, type SimulationSettings } from '../../bridge/engine.js';
import type { BodyInfo, SimEvent } from '../../bridge/frames.js';
import { TraceRecorder, teeSinks } from '../../bridge/trace.js';
import { SbevalError } from '../../core/errors.js';
import { type ObjectMeasure, type StabilityRule, StabilityTracker, type TrialMeasure, type TrialStability } from '../../scoring/stability.js';
import { ENGINE_FAULTS, type EnginePool, PoolJobError } from '../pool/index.js';
import type { EngineFaultKind, SimulateOutput } from './types.js';

/**
 * One trial of a level on the engine pool, its frames fed to scoring/stability.ts's tracker: the body
 * of the level machine's `simulate` (and `capture`, when an engine sent no image with trial 1) for
 * every command that simulates a level with the evaluator's bookkeeping — `run` over the folder
 * (orchestrator/run/effects.ts), `simulate`, `level` and the agreement measurement in memory
 * (./evaluate.ts).
 */

/**
 * An extra sink per attempt of a trial (a trace recorder, a stream kept whole): `keep` for the attempt
 * whose result counts, `drop` for every other one (superseded by a retry, or the trial failed).
 */
interface TrialTee {
  sink: LevelSink;
  keep(): Promise<void>;
  drop(error: unknown): Promise<void>;
}

/** Records trial 1 to `path` as it runs (`sbeval level --trace`); a trial that fails is recorded with its error. */
export function traceOfTrialOne(path: string): NonNullable<TrialSettings['tee']> {
  return (job, engine) => {
    if (job.settings.trial !== 1) return undefined;
    const recorder = new TraceRecorder(path, { job, engine: engine.identity });
    return { sink: recorder, keep: () => recorder.finish(), drop: (error) => recorder.fail(error) };
  };
}

export interface TrialSettings {
  damage: DamageFormula;
  rule: StabilityRule;
  windowSteps: number;
  /** Also the raw (unmasked) image when the trial captures. */
  rawImages: boolean;
  /** Attempts on the pool per trial (default: the pool's own). */
  maxAttempts?: number;
  tee?: (job: LevelJob, engine: Engine) => TrialTee | undefined;
  /** Settings of the job beyond the evaluator's (the perturbed runs of orchestrator/stages/robustness.ts). */
  job?: Pick<Partial<SimulationSettings>, 'framesPerBatch' | 'perturbation'>;
}

export interface TrialResult {
  engineId: string;
  /** The pool's number for the engine (orchestrator/pool/result-ledger.ts). */
  engineSerial: number;
  stability: TrialStability;
  measure: TrialMeasure;
  /** The counted objects (start, last position, displacement). */
  details: ObjectMeasure[];
  bodies: BodyInfo[];
  events: SimEvent[];
  png: Uint8Array | undefined;
  raw: Uint8Array | undefined;
}

interface TrialRequest {
  levelId: string;
  xml: string;
  trial: number;
  capture: boolean;
  avoidEngines?: readonly string[];
  signal?: AbortSignal;
}

/** What the sinks of a trial's latest attempt collected. */
interface Collected {
  tracker: StabilityTracker | undefined;
  bodies: BodyInfo[];
  events: SimEvent[];
  png: Uint8Array | undefined;
  raw: Uint8Array | undefined;
}

export async function runPoolTrial(pool: EnginePool, request: TrialRequest, settings: TrialSettings): Promise<TrialResult> {
  const { levelId, xml, trial, capture } = request;
  const job: LevelJob = {
    levelId,
    xml,
    settings: {
      ...DEFAULT_SIMULATION,
      windowSteps: settings.windowSteps,
      trial,
      damage: settings.damage,
      capture,
      captureRaw: capture && settings.rawImages,
      ...settings.job,
    },
  };
  let collected: Collected = { tracker: undefined, bodies: [], events: [], png: undefined, raw: undefined };
  const tees: TrialTee[] = [];
  const sink = (_attempt: number, engine: Engine): LevelSink => {
    const mine: Collected = { tracker: undefined, bodies: [], events: [], png: undefined, raw: undefined };
    collected = mine;
    const own: LevelSink = {
      loaded(bodies) {
        mine.bodies = bodies;
        mine.tracker = new StabilityTracker(bodies, settings.windowSteps, settings.rule);
      },
      // The tracker copies what it needs: the engine may reuse a batch's memory.
      borrowsFrames: true,
      frames(batch) {
        mine.tracker?.frames(batch);
      },
      events(list) {
        mine.tracker?.events(list);
        for (const e of list) mine.events.push(e);
      },
      capture(result) {
        mine.png = result.png;
        mine.raw = result.raw;
      },
    };
    const tee = settings.tee?.(job, engine);
    if (!tee) return own;
    tees.push(tee);
    return teeSinks(own, tee.sink);
  };
  let result;
  try {
    result = await pool.run({
      job,
      sink,
      ...(request.signal ? { signal: request.signal } : {}),
      ...(settings.maxAttempts !== undefined ? { maxAttempts: settings.maxAttempts } : {}),
      ...(request.avoidEngines ? { avoidEngines: request.avoidEngines } : {}),
    });
  } catch (error) {
    await Promise.all(tees.map((t) => t.drop(error)));
    throw error;
  }
  const last = tees.pop();
  await Promise.all(tees.map((t) => t.drop(undefined)));
  await last?.keep();
  const { tracker } = collected;
  if (!tracker) throw new SbevalError('simulate', `level ${levelId}: the engine sent no body table`);
  const measure = tracker.measure();
  return {
    engineId: result.engineId,
    engineSerial: result.engineSerial,
    stability: tracker.result(),
    measure,
    details: tracker.details(),
    bodies: collected.bodies,
    events: collected.events,
    png: collected.png,
    raw: collected.raw,
  };
}

/** A pool failure in the machine's vocabulary; anything else (a cancellation, a bug) is thrown on, and the machine records it as such. */
export function engineOutcome(error: unknown): Extract<SimulateOutput, { status: 'engine-fault' | 'level-error' }> {
  if (error instanceof PoolJobError) {
    if (error.kind === 'level') return { status: 'level-error', reason: error.message };
    if (ENGINE_FAULTS.has(error.kind as never) || error.kind === 'no-engines') {
      return { status: 'engine-fault', kind: error.kind as EngineFaultKind, engineId: error.attempts.at(-1)?.engineId, reason: error.message };
    }
  }
  throw error;
}
