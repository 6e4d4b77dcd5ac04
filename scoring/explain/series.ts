import { FIELD_COUNT, type FrameBatch } from '../../bridge/frames.js';
import { SbevalError } from '../../core/errors.js';

/**
 * All steps of one trial in one contiguous block, so the analysis can index any step directly.
 * Same layout as a `FrameBatch` (`states[(s * bodyCount + b) * FIELD_COUNT + f]`), starting at step 0.
 */
export interface FrameSeries {
  bodyCount: number;
  /** Number of steps held (step 0 .. stepCount-1). */
  stepCount: number;
  states: Float32Array;
  alive: Uint8Array;
}

/** Field offsets inside one body's state (bridge/frames.ts `STATE_FIELDS` order). */
export const X = 0;
export const Y = 1;
export const ANGLE = 2;
export const VX = 3;
export const VY = 4;
export const OMEGA = 5;

/**
 * Joins the batches of one trial. They must start at step 0 and follow each other without gaps or
 * overlaps (that is how every engine streams them); anything else is a broken stream, reported as such.
 */
export function mergeBatches(batches: readonly FrameBatch[], bodyCount: number): FrameSeries {
  let expected = 0;
  for (const batch of batches) {
    if (batch.bodyCount !== bodyCount) {
      throw new SbevalError('input', `frame batch at step ${batch.firstStep} has ${batch.bodyCount} bodies, the level has ${bodyCount}`);
    }
    if (batch.firstStep !== expected) {
      throw new SbevalError('input', `frame batches are not contiguous: expected step ${expected}, got a batch starting at step ${batch.firstStep}`);
    }
    if (batch.states.length !== batch.stepCount * bodyCount * FIELD_COUNT || batch.alive.length !== batch.stepCount * bodyCount) {
      throw new SbevalError(
        'input',
        `frame batch at step ${batch.firstStep} has arrays of the wrong length for ${batch.stepCount} steps × ${bodyCount} bodies`,
      );
    }
    expected += batch.stepCount;
  }
  const states = new Float32Array(expected * bodyCount * FIELD_COUNT);
  const alive = new Uint8Array(expected * bodyCount);
  for (const batch of batches) {
    states.set(batch.states, batch.firstStep * bodyCount * FIELD_COUNT);
    alive.set(batch.alive, batch.firstStep * bodyCount);
  }
  return { bodyCount, stepCount: expected, states, alive };
}

export function field(series: FrameSeries, step: number, body: number, f: number): number {
  return series.states[(step * series.bodyCount + body) * FIELD_COUNT + f] ?? Number.NaN;
}

export function isAlive(series: FrameSeries, step: number, body: number): boolean {
  return series.alive[step * series.bodyCount + body] === 1;
}

/** Angle difference folded into (-π, π], so a block that turned a full circle counts as unturned. */
export function angleDelta(from: number, to: number): number {
  let d = (to - from) % (2 * Math.PI);
  if (d > Math.PI) d -= 2 * Math.PI;
  if (d <= -Math.PI) d += 2 * Math.PI;
  return d;
}
