import { type BodyInfo, FIELD_COUNT, type FrameBatch, type SimEvent } from '../bridge/frames.js';
import { OFFICIAL_MOVEMENT_THRESHOLD } from './stability.js';

/**
 * The timing ruler, as pure functions: what the evaluator's stability JSON would say about a level
 * for any read window, and which windows agree with the JSON it really wrote.
 *
 * `BaseStabilityEvaluator.IE_StableCheck` (chatgpt4pcg/modified-science-birds @07419b8) reads each
 * counted object's start position once (step `start`) and its last position at every later read
 * while the object exists, the last read being step `end`; an object is moving when the two centres
 * are ≥ 0.1 apart. The ruler levels (calibration/ruler, scripts/make-ruler.ts) are built so that
 * every object's verdict depends on `start` and `end` only — never on the reads in between (no object
 * that is destroyed before `end` can come out differently for any spacing of the reads; the
 * generator checks it) — so the counts in the JSON pin the two steps. Here reads are taken on every
 * step between them, which is exact for such levels whatever the steps per frame.
 */

/** One recorded trial of a ruler level, reduced to what the evaluator's reads can see. */
export interface RulerTrack {
  level: string;
  /** Steps recorded: positions for steps 0 … steps − 1. */
  steps: number;
  /** Counted objects (blocks, pigs, TNT; not platforms), in id order. */
  ids: number[];
  /** Centre (x, y) per step and counted object: `[(step * ids.length + i) * 2 + 0|1]`. */
  positions: Float64Array;
  /** Per counted object: the first step whose read no longer finds it (Infinity: never removed). */
  removedAt: number[];
}

/** Reduces a trial's stream (every step from 0) to a ruler track. */
export function rulerTrack(level: string, bodies: readonly BodyInfo[], batches: readonly FrameBatch[], events: readonly SimEvent[]): RulerTrack {
  const ids = bodies.filter((b) => b.counted).map((b) => b.id);
  const steps = batches.reduce((max, b) => Math.max(max, b.firstStep + b.stepCount), 0);
  const positions = new Float64Array(steps * ids.length * 2);
  for (const batch of batches) {
    for (let s = 0; s < batch.stepCount; s++) {
      const step = batch.firstStep + s;
      ids.forEach((id, i) => {
        const o = (s * batch.bodyCount + id) * FIELD_COUNT;
        positions[(step * ids.length + i) * 2] = batch.states[o] as number;
        positions[(step * ids.length + i) * 2 + 1] = batch.states[o + 1] as number;
      });
    }
  }
  const removedAt = ids.map((id) =>
    events.reduce((first, e) => (e.kind === 'removed' && e.id === id ? Math.min(first, e.step) : first), Number.POSITIVE_INFINITY),
  );
  return { level, steps, ids, positions, removedAt };
}

const THRESHOLD = Math.fround(OFFICIAL_MOVEMENT_THRESHOLD);

/**
 * The evaluator's verdict on counted object `i` for a window reading start positions on step
 * `start` and last positions up to step `end`: undefined when the object was gone before the start
 * read (not counted at all), else whether it moved ≥ 0.1 (float32 distance, as `Vector2.Distance`).
 */
export function readVerdict(track: RulerTrack, i: number, start: number, end: number): boolean | undefined {
  const removed = track.removedAt[i] as number;
  if (removed <= start) return undefined;
  const last = Math.min(end, removed - 1);
  if (last >= track.steps) throw new RangeError(`${track.level}: the window ends on step ${end}, the track holds steps 0…${track.steps - 1}`);
  const n = track.ids.length;
  const a = (start * n + i) * 2;
  const b = (last * n + i) * 2;
  const distance = Math.hypot(
    (track.positions[b] as number) - (track.positions[a] as number),
    (track.positions[b + 1] as number) - (track.positions[a + 1] as number),
  );
  return Math.fround(distance) >= THRESHOLD;
}

interface WindowCounts {
  startingObjects: number;
  movingObjects: number;
}

/** What the evaluator's JSON would say about this level for the window (`startingObjects`, `movingObjects`). */
export function windowCounts(track: RulerTrack, start: number, end: number): WindowCounts {
  let startingObjects = 0;
  let movingObjects = 0;
  for (let i = 0; i < track.ids.length; i++) {
    const verdict = readVerdict(track, i, start, end);
    if (verdict === undefined) continue;
    startingObjects += 1;
    if (verdict) movingObjects += 1;
  }
  return { startingObjects, movingObjects };
}

/** The windows a ruler can tell apart: every start step in `start` and end step in `end` (inclusive). */
export interface WindowRange {
  start: readonly [number, number];
  end: readonly [number, number];
}

export interface ObservedLevel extends WindowCounts {
  level: string;
}

export interface WindowInference {
  /** Every (start, end) in the range whose predicted counts equal the observed ones on every level. */
  windows: Array<{ start: number; end: number }>;
  /** Levels of the ruler the evaluator's results do not mention. */
  missing: string[];
  /** Per level: the observed counts and, for the window closest to agreement, the predicted ones (when no window fits). */
  closest?: { start: number; end: number; disagreeing: Array<{ level: string; observed: WindowCounts; predicted: WindowCounts }> };
}

/** Compares the evaluator's counts with every window of the range. */
export function inferWindow(tracks: readonly RulerTrack[], observed: readonly ObservedLevel[], range: WindowRange): WindowInference {
  const byLevel = new Map(observed.map((o) => [o.level, o]));
  const present = tracks.filter((t) => byLevel.has(t.level));
  const missing = tracks.filter((t) => !byLevel.has(t.level)).map((t) => t.level);
  const windows: WindowInference['windows'] = [];
  let best: { start: number; end: number; disagreeing: NonNullable<WindowInference['closest']>['disagreeing'] } | undefined;
  for (let start = range.start[0]; start <= range.start[1]; start++) {
    for (let end = Math.max(start, range.end[0]); end <= range.end[1]; end++) {
      const disagreeing: NonNullable<WindowInference['closest']>['disagreeing'] = [];
      for (const track of present) {
        const seen = byLevel.get(track.level) as ObservedLevel;
        const predicted = windowCounts(track, start, end);
        if (predicted.movingObjects !== seen.movingObjects || predicted.startingObjects !== seen.startingObjects) {
          disagreeing.push({ level: track.level, observed: { startingObjects: seen.startingObjects, movingObjects: seen.movingObjects }, predicted });
        }
      }
      if (disagreeing.length === 0) windows.push({ start, end });
      else if (!best || disagreeing.length < best.disagreeing.length) best = { start, end, disagreeing };
    }
  }
  return windows.length > 0 || !best ? { windows, missing } : { windows, missing, closest: best };
}

/** The smallest and largest value of a list of steps (the inferred step, or the interval it lies in). */
export function stepSpan(steps: readonly number[]): [number, number] | undefined {
  if (steps.length === 0) return undefined;
  return [Math.min(...steps), Math.max(...steps)];
}
