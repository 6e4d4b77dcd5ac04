import { type BodyInfo, FIELD_COUNT, type FrameBatch, type SimEvent } from '../bridge/frames.js';
import { EVALUATOR_DURATION_STEPS, type EvaluatorWindow, evaluatorWindow, isReadStep } from '../bridge/window.js';
import { unityStabilityScore } from './formats/unity-score.js';

/**
 * Stability of one trial from the frame stream, and the evaluator's trial bookkeeping. Pure: data in,
 * data out; no physics here.
 *
 * Official rule (`BaseStabilityEvaluator.IE_StableCheck` of chatgpt4pcg/modified-science-birds, scene
 * value `movementThreshold: 0.1`, `duration: 10`): every block, pig and TNT present at the start is
 * counted; its start position is read on the window's start step and its last position on every
 * step the evaluator reads while the object exists (bridge/window.ts: steps 1, then 2 … 501 and 503
 * for the 10-s window; a dying object is still tracked during its 0.5 s fall; once removed it keeps
 * the last position seen); it is moving when the Euclidean distance between the two centres is ≥ 0.1.
 * Rotation and velocity do not matter. `score = 1 − moving/starting` in float32.
 *
 * Frame-stream contract this relies on (bridge/frames.ts): states of a removed body either stay at
 * their last value (the headless engine does this) or are ignored from the step of its `removed`
 * event on (pass the events to the tracker).
 */
export type StabilityRule =
  /** Centre displacement between the window's start step (1) and the last position within the window ≥ threshold (units). */
  | { kind: 'displacement'; threshold: number }
  /** Linear speed above threshold (units/s) in any frame up to the window's end, from `fromStep` on, while the object exists. */
  | { kind: 'velocity'; threshold: number; fromStep: number };

/** The evaluator's scene value `movementThreshold: 0.1` (BatchStabilityTest.unity; the script default 3 is not used). */
export const OFFICIAL_MOVEMENT_THRESHOLD = 0.1;
/** The evaluator's `duration: 10` s at the 0.02 s physics step (the window's steps: bridge/window.ts). */
export const OFFICIAL_WINDOW_STEPS = EVALUATOR_DURATION_STEPS;
export const OFFICIAL_RULE: StabilityRule = { kind: 'displacement', threshold: OFFICIAL_MOVEMENT_THRESHOLD };

/**
 * Defaults of the velocity-based option (not an official rule): 0.5 units/s, ignoring the first 0.5 s
 * (25 steps) in which competition levels settle the 0.01–0.03 gaps the converter leaves between
 * blocks. Measured on the 90 reference levels (up to 3 trials): thresholds 0.2–0.5 agree with Unity's
 * stable/unstable verdict on 90/90 and its moving count on 88/90; 1 unit/s gives 89 and 86, 2 gives 84 and 77.
 */
export const DEFAULT_VELOCITY_RULE: StabilityRule = { kind: 'velocity', threshold: 0.5, fromStep: 25 };

export interface TrialStability {
  /** Objects counted at the start (blocks, pigs, TNT). */
  startingObjects: number;
  movingObjects: number;
  /** float32 `1 − moving/starting`; 0 when nothing is counted (Unity would divide 0 by 0). */
  score: number;
  /** Ids (BodyInfo.id) of the moving objects, in id order. */
  moving: number[];
}

/** `1.0f − ((float)moving / (float)starting)` as the evaluator's files show it: one rounding to float32. */
export function unityScore(startingObjects: number, movingObjects: number): number {
  if (startingObjects <= 0) return 0;
  // One rounding to float32 of the double-precision expression (see unityStabilityScore).
  return unityStabilityScore(startingObjects, movingObjects);
}

/**
 * A body's centre displacement from its start position: the one definition behind the verdict, the
 * stability JSON, `sbeval level`, `sbeval explain` and the viewer's chart, so they print one number (docs/trial-numbers.md).
 */
export function displacementFrom(start: readonly [number, number], x: number, y: number): number {
  return Math.hypot(x - start[0], y - start[1]);
}

/** One body of a trial as the evaluator reads it (`StabilityTracker.measure`). */
export interface ObjectMeasure {
  id: number;
  /** Whether it counts for stability (blocks, pigs, TNT; not platforms). */
  counted: boolean;
  /** Position on the window's start step (`TrialMeasure.windowStart`). */
  start: [number, number];
  /** Last position read while it existed, on `lastStep`. */
  last: [number, number];
  lastStep: number;
  /** `displacementFrom(start, last)`. */
  displacement: number;
  removed: boolean;
}

/** The step numbers and per-body positions of one trial: what every tool prints about it. */
export interface TrialMeasure {
  /** Steps the stream held: 0 … streamSteps − 1 (the window's, and the capture pass's when the trial captured). */
  streamSteps: number;
  /** The step whose positions are the start positions (bridge/window.ts: 1). */
  windowStart: number;
  /** The window's last read step (503 for 10 s), or the stream's last step when it ended sooner. */
  windowEnd: number;
  /** Every body, in body-table order. */
  objects: ObjectMeasure[];
}

/** `window: start positions on step 1, last on step 503 (10.06 s); stream: 515 steps (0…514)` — one wording for every tool. */
export function describeSteps(m: Pick<TrialMeasure, 'streamSteps' | 'windowStart' | 'windowEnd'>, dt: number): string {
  return `window: start positions on step ${m.windowStart}, last on step ${m.windowEnd} (${(m.windowEnd * dt).toFixed(2)} s); stream: ${m.streamSteps} steps (0…${Math.max(0, m.streamSteps - 1)})`;
}

/** Consumes one trial's stream incrementally (no need to keep every frame) and gives the verdict. */
export class StabilityTracker {
  private readonly counted: number[];
  private readonly start: Float64Array;
  private readonly last: Float64Array;
  /** The step each body's `last` was read on. */
  private readonly lastStep: Int32Array;
  /** Steps seen: 0 … streamSteps − 1. */
  private streamSteps = 0;
  private readonly movingByVelocity: Uint8Array;
  private readonly removedAt: Float64Array;
  private readonly window: EvaluatorWindow;

  /** `windowSteps`: the window's duration in steps (`SimulationSettings.windowSteps`, 500 = 10 s); its read steps come from bridge/window.ts. */
  constructor(
    private readonly bodies: readonly BodyInfo[],
    windowSteps = OFFICIAL_WINDOW_STEPS,
    private readonly rule: StabilityRule = OFFICIAL_RULE,
  ) {
    this.window = evaluatorWindow(windowSteps);
    this.counted = bodies.filter((b) => b.counted).map((b) => b.id);
    const n = bodies.length;
    this.start = new Float64Array(n * 2);
    this.last = new Float64Array(n * 2);
    this.lastStep = new Int32Array(n);
    this.movingByVelocity = new Uint8Array(n);
    this.removedAt = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
    // Until frames arrive, the body table's creation pose is the start.
    bodies.forEach((b, i) => {
      this.start[i * 2] = b.x;
      this.start[i * 2 + 1] = b.y;
      this.last[i * 2] = b.x;
      this.last[i * 2 + 1] = b.y;
    });
  }

  events(events: readonly SimEvent[]): void {
    for (const e of events) {
      if (e.kind === 'removed' && e.id >= 0 && e.id < this.bodies.length) this.removedAt[e.id] = Math.min(this.removedAt[e.id] as number, e.step);
    }
  }

  frames(batch: FrameBatch): void {
    const n = batch.bodyCount;
    const { startStep, endStep } = this.window;
    this.streamSteps = Math.max(this.streamSteps, batch.firstStep + batch.stepCount);
    for (let s = 0; s < batch.stepCount; s++) {
      const step = batch.firstStep + s;
      if (step > endStep) return;
      const read = isReadStep(this.window, step);
      for (let b = 0; b < n; b++) {
        if (step >= (this.removedAt[b] as number)) continue;
        const o = (s * n + b) * FIELD_COUNT;
        const x = batch.states[o] as number;
        const y = batch.states[o + 1] as number;
        // Streams that begin before the start step (all do) also fill the start from step 0, so a
        // stream shorter than the window still has a start.
        if (step <= startStep) {
          this.start[b * 2] = x;
          this.start[b * 2 + 1] = y;
        }
        if (step <= startStep || read) {
          this.last[b * 2] = x;
          this.last[b * 2 + 1] = y;
          this.lastStep[b] = step;
        }
        if (this.rule.kind === 'velocity' && step >= this.rule.fromStep) {
          const speed = Math.hypot(batch.states[o + 3] as number, batch.states[o + 4] as number);
          if (speed > this.rule.threshold) this.movingByVelocity[b] = 1;
        }
      }
    }
  }

  /** The trial's step numbers and every body's start, last position and displacement (what `level`, `explain` and the viewer print). */
  measure(): TrialMeasure {
    // Bodies are indexed by position; their ids are their positions (bridge/frames.ts, the stream guard checks it).
    const objects = this.bodies.map((body, i): ObjectMeasure => {
      const start: [number, number] = [this.start[i * 2] as number, this.start[i * 2 + 1] as number];
      const last: [number, number] = [this.last[i * 2] as number, this.last[i * 2 + 1] as number];
      return {
        id: body.id,
        counted: body.counted,
        start,
        last,
        lastStep: this.lastStep[i] as number,
        displacement: displacementFrom(start, last[0], last[1]),
        removed: Number.isFinite(this.removedAt[i] as number),
      };
    });
    const { startStep, endStep } = this.window;
    return {
      streamSteps: this.streamSteps,
      windowStart: startStep,
      windowEnd: this.streamSteps > 0 ? Math.min(endStep, this.streamSteps - 1) : endStep,
      objects,
    };
  }

  /** Per counted object: start and last position and displacement (for reports and `sbeval level`). */
  details(): ObjectMeasure[] {
    return this.measure().objects.filter((o) => o.counted);
  }

  result(): TrialStability {
    const moving: number[] = [];
    for (const id of this.counted) {
      if (this.rule.kind === 'velocity') {
        if (this.movingByVelocity[id] || Number.isFinite(this.removedAt[id] as number)) moving.push(id);
        continue;
      }
      const start: [number, number] = [this.start[id * 2] as number, this.start[id * 2 + 1] as number];
      // Unity: Vector2.Distance in float32, compared with >=.
      if (Math.fround(displacementFrom(start, this.last[id * 2] as number, this.last[id * 2 + 1] as number)) >= Math.fround(this.rule.threshold))
        moving.push(id);
    }
    return { startingObjects: this.counted.length, movingObjects: moving.length, score: unityScore(this.counted.length, moving.length), moving };
  }
}

/** Stability of a complete recorded trial. */
export function trialStability(
  bodies: readonly BodyInfo[],
  batches: readonly FrameBatch[],
  events: readonly SimEvent[] = [],
  windowSteps = OFFICIAL_WINDOW_STEPS,
  rule: StabilityRule = OFFICIAL_RULE,
): TrialStability {
  return measureTrial(bodies, batches, events, windowSteps, rule).verdict;
}

/** The verdict and the measure of a complete recorded trial (one tracker: `explain` and the viewer use this). */
export function measureTrial(
  bodies: readonly BodyInfo[],
  batches: readonly FrameBatch[],
  events: readonly SimEvent[] = [],
  windowSteps = OFFICIAL_WINDOW_STEPS,
  rule: StabilityRule = OFFICIAL_RULE,
): { verdict: TrialStability; measure: TrialMeasure } {
  const tracker = new StabilityTracker(bodies, windowSteps, rule);
  tracker.events(events);
  for (const batch of batches) tracker.frames(batch);
  return { verdict: tracker.result(), measure: tracker.measure() };
}

// --- Trial bookkeeping (`BaseStabilityEvaluator.IE_Evaluate`) ------------------------------------

/** The evaluator's `trials: 3`. */
export const OFFICIAL_TRIALS = 3;

/** Another trial runs while fewer than `maxTrials` ran and the best score is still below 1.0. */
export function needsAnotherTrial(trials: readonly TrialStability[], maxTrials = OFFICIAL_TRIALS): boolean {
  if (trials.length === 0) return true;
  return trials.length < Math.max(1, maxTrials) && bestScore(trials) < 1;
}

/** `score = Mathf.Max(score, m_score)` from 0 over the trials run. */
export function bestScore(trials: readonly TrialStability[]): number {
  let best = 0;
  for (const t of trials) best = Math.max(best, t.score);
  return Math.fround(best);
}

export interface LevelStability {
  /** Best score over the trials (float32). */
  score: number;
  /** From the LAST trial run, not the best one (the evaluator keeps `m_startingObjs`/`m_movingObjs` of the last `IE_StableCheck`). */
  startingObjects: number;
  movingObjects: number;
  trialsRun: number;
}

export function combineTrials(trials: readonly TrialStability[]): LevelStability {
  const last = trials.at(-1);
  if (!last) throw new RangeError('combineTrials needs at least one trial');
  return { score: bestScore(trials), startingObjects: last.startingObjects, movingObjects: last.movingObjects, trialsRun: trials.length };
}
