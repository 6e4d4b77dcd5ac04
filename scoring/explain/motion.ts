import { displacementFrom, type ObjectMeasure, OFFICIAL_MOVEMENT_THRESHOLD } from '../stability.js';
import { ANGLE, angleDelta, type FrameSeries, field, isAlive, OMEGA, VX, VY, X, Y } from './series.js';

/**
 * How each body moved over the window: its displacement from the start at every step, when it started
 * to move (onset), when it first passed the official movement threshold, and the shape of its motion.
 */

/**
 * Onset: the first step a body clearly does something other than settle straight down into the start
 * gaps (≤ ~0.03 per block, reference/science-birds-evaluator.md §1.2): a sideways shift of 0.02, a turn
 * of 2°, the movement threshold itself, or its death.
 */
export const ONSET_SHIFT = 0.02;
export const ONSET_TURN = (2 * Math.PI) / 180;
/**
 * At rest: slower than this (units/s, rad/s). Onset is searched from the last step at rest before the
 * failure, so a block that wobbled while settling and stood still again is not dated by that wobble.
 */
const REST_SPEED = 0.05;
const REST_SPIN = 0.1;
/** A turn of 15° by the time it passes the threshold reads as tipping rather than sliding or falling. */
const TIP_TURN = (15 * Math.PI) / 180;

export type MotionKind = 'still' | 'fell' | 'slid' | 'tipped' | 'rose' | 'destroyed';

export interface BodyMotion {
  /**
   * Displacement of the centre from its start position (the window's start step, as the evaluator
   * reads it: scoring/stability.ts `displacementFrom`), per step up to its last read step.
   */
  displacement: Float64Array;
  maxDisplacement: number;
  /**
   * First step of the motion that ends in the failure: a sideways shift ≥ ONSET_SHIFT or a turn ≥
   * ONSET_TURN from the start, the threshold, or death — and after the last step at rest before the
   * threshold crossing or death.
   */
  onsetStep: number | undefined;
  /** First step whose displacement is ≥ the threshold. */
  crossStep: number | undefined;
  /** First step with alive = 0 (collider off: destroyed or removed). */
  deathStep: number | undefined;
  /** The motion from the start to the crossing step (or the window's end if it never crossed). */
  kind: MotionKind;
  dx: number;
  dy: number;
  turn: number;
}

/**
 * `measured`: the body as the stability tracker read it (scoring/stability.ts `measure`): its start
 * position (on `startStep`) and its last read step within the window (its removal ends it; a destroyed
 * body still falls with its collider off until removed, and Unity keeps its last position).
 */
export function bodyMotion(
  series: FrameSeries,
  body: number,
  measured: Pick<ObjectMeasure, 'start' | 'lastStep'>,
  startStep: number,
  threshold = OFFICIAL_MOVEMENT_THRESHOLD,
): BodyMotion {
  const end = Math.min(measured.lastStep, series.stepCount - 1);
  const [x0, y0] = measured.start;
  const a0 = field(series, Math.min(startStep, series.stepCount - 1), body, ANGLE);
  const window = Math.max(end, 0) + 1;
  const displacement = new Float64Array(window);
  let maxDisplacement = 0;
  let onsetStep: number | undefined;
  let crossStep: number | undefined;
  let deathStep: number | undefined;
  for (let s = 0; s <= end; s++) {
    const x = field(series, s, body, X);
    const y = field(series, s, body, Y);
    const d = displacementFrom(measured.start, x, y);
    displacement[s] = d;
    if (d > maxDisplacement) maxDisplacement = d;
    if (deathStep === undefined && !isAlive(series, s, body)) deathStep = s;
    if (crossStep === undefined && d >= threshold) crossStep = s;
    if (
      onsetStep === undefined &&
      (Math.abs(x - x0) >= ONSET_SHIFT ||
        Math.abs(angleDelta(a0, field(series, s, body, ANGLE))) >= ONSET_TURN ||
        crossStep !== undefined ||
        deathStep !== undefined)
    ) {
      onsetStep = s;
    }
  }
  // The motion that ends in the failure starts after the last step at rest before it.
  const failure = crossStep ?? deathStep;
  if (failure !== undefined && onsetStep !== undefined) {
    for (let s = failure - 1; s > onsetStep; s--) {
      const atRest =
        Math.hypot(field(series, s, body, VX), field(series, s, body, VY)) < REST_SPEED &&
        Math.abs(field(series, s, body, OMEGA)) < REST_SPIN &&
        isAlive(series, s, body);
      if (atRest) {
        onsetStep = s + 1;
        break;
      }
    }
  }
  const at = crossStep ?? end;
  const dx = field(series, at, body, X) - x0;
  const dy = field(series, at, body, Y) - y0;
  const turn = angleDelta(a0, field(series, at, body, ANGLE));
  return {
    displacement,
    maxDisplacement,
    onsetStep,
    crossStep,
    deathStep,
    kind: classify(dx, dy, turn, deathStep !== undefined && deathStep <= at, crossStep !== undefined),
    dx,
    dy,
    turn,
  };
}

function classify(dx: number, dy: number, turn: number, dead: boolean, crossed: boolean): MotionKind {
  if (dead) return 'destroyed';
  if (!crossed) return 'still';
  if (Math.abs(turn) >= TIP_TURN) return 'tipped';
  if (Math.abs(dx) >= Math.abs(dy)) return 'slid';
  return dy > 0 ? 'rose' : 'fell';
}
