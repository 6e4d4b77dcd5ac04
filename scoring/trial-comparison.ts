import { type BodyInfo, FIELD_COUNT, type FrameBatch, type SimEvent } from '../bridge/frames.js';
import { mergeBatches } from './explain/series.js';
import { trialStability } from './stability.js';

/**
 * A recorded trial against its replay (same level and settings), step by step and body by body:
 * identical (every float32 and every event equal), within tolerance (poses within `tolerance`, same
 * deaths), or diverged (with the first diverging step and body); and whether the official stability
 * verdict changed. Pure: frames in, comparison out (`sbeval verify`: orchestrator/stages/verify.ts).
 */

/** Default tolerance on x, y (units) and angle (radians): far below the 0.1 movement threshold, far above float32 noise. */
export const DEFAULT_TOLERANCE = 1e-4;

export type Agreement = 'identical' | 'within-tolerance' | 'diverged';
type DivergenceField = 'x' | 'y' | 'angle' | 'vx' | 'vy' | 'omega' | 'alive' | 'bodies' | 'steps';

export interface Divergence {
  step: number;
  /** Body id (−1 when the difference is not about one body: body tables or step counts). */
  body: number;
  type: string | null;
  field: DivergenceField;
  recorded: number;
  replayed: number;
  delta: number;
}

interface Verdict {
  score: number;
  moving: number[];
}

export interface TrialComparison {
  agreement: Agreement;
  /** The first step/body where anything differs at all (bit for bit). */
  firstDifference: Divergence | null;
  /** The first step/body past the tolerance, or where a body's life differs. */
  firstDivergence: Divergence | null;
  maxPositionDelta: number;
  maxAngleDelta: number;
  stepsCompared: number;
  eventsIdentical: boolean;
  firstEventDifference: { index: number; recorded: SimEvent | null; replayed: SimEvent | null } | null;
  recorded: Verdict;
  replayed: Verdict;
  verdictChanged: boolean;
}

interface TrialRecord {
  bodies: readonly BodyInfo[];
  frames: readonly FrameBatch[];
  events: readonly SimEvent[];
}

const FIELDS: readonly DivergenceField[] = ['x', 'y', 'angle', 'vx', 'vy', 'omega'];

function sameEvent(a: SimEvent, b: SimEvent): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.is((a as unknown as Record<string, unknown>)[k], (b as unknown as Record<string, unknown>)[k]));
}

/** Pure comparison of a recorded trial with a replayed one (same level and settings). */
export function compareTrials(recorded: TrialRecord, replayed: TrialRecord, windowSteps: number, tolerance = DEFAULT_TOLERANCE): TrialComparison {
  const verdictOf = (t: TrialRecord): Verdict => {
    const v = trialStability(t.bodies, t.frames, t.events, windowSteps);
    return { score: v.score, moving: v.moving };
  };
  const rv = verdictOf(recorded);
  const pv = verdictOf(replayed);
  const verdictChanged = rv.score !== pv.score || rv.moving.length !== pv.moving.length || rv.moving.some((id, i) => pv.moving[i] !== id);

  let firstDifference: Divergence | null = null;
  let firstDivergence: Divergence | null = null;
  let maxPositionDelta = 0;
  let maxAngleDelta = 0;
  let stepsCompared = 0;

  const sameBodies =
    recorded.bodies.length === replayed.bodies.length &&
    recorded.bodies.every((b, i) => {
      const o = replayed.bodies[i]!;
      return b.id === o.id && b.kind === o.kind && b.type === o.type && b.counted === o.counted;
    });
  if (!sameBodies) {
    firstDivergence = {
      step: 0,
      body: -1,
      type: null,
      field: 'bodies',
      recorded: recorded.bodies.length,
      replayed: replayed.bodies.length,
      delta: replayed.bodies.length - recorded.bodies.length,
    };
    firstDifference = firstDivergence;
  } else {
    const n = recorded.bodies.length;
    const a = mergeBatches(recorded.frames, n);
    const b = mergeBatches(replayed.frames, n);
    stepsCompared = Math.min(a.stepCount, b.stepCount);
    for (let s = 0; s < stepsCompared; s++) {
      for (let body = 0; body < n; body++) {
        const base = (s * n + body) * FIELD_COUNT;
        const type = recorded.bodies[body]!.type;
        const aliveA = a.alive[s * n + body]!;
        const aliveB = b.alive[s * n + body]!;
        if (aliveA !== aliveB) {
          const d: Divergence = { step: s, body: recorded.bodies[body]!.id, type, field: 'alive', recorded: aliveA, replayed: aliveB, delta: aliveB - aliveA };
          firstDifference ??= d;
          firstDivergence ??= d;
        }
        for (let f = 0; f < FIELD_COUNT; f++) {
          const va = a.states[base + f]!;
          const vb = b.states[base + f]!;
          if (Object.is(va, vb)) continue;
          const delta = Math.abs(vb - va);
          const field = FIELDS[f]!;
          const d: Divergence = { step: s, body: recorded.bodies[body]!.id, type, field, recorded: va, replayed: vb, delta };
          firstDifference ??= d;
          // Tolerance applies to the pose; velocities only count towards "identical".
          if (f <= 1) maxPositionDelta = Math.max(maxPositionDelta, delta);
          if (f === 2) maxAngleDelta = Math.max(maxAngleDelta, delta);
          if (f <= 2 && !(delta <= tolerance)) firstDivergence ??= d;
        }
      }
    }
    if (a.stepCount !== b.stepCount) {
      const d: Divergence = {
        step: stepsCompared,
        body: -1,
        type: null,
        field: 'steps',
        recorded: a.stepCount,
        replayed: b.stepCount,
        delta: b.stepCount - a.stepCount,
      };
      firstDifference ??= d;
      firstDivergence ??= d;
    }
  }

  let firstEventDifference: TrialComparison['firstEventDifference'] = null;
  const count = Math.max(recorded.events.length, replayed.events.length);
  for (let i = 0; i < count; i++) {
    const ea = recorded.events[i];
    const eb = replayed.events[i];
    if (ea && eb && sameEvent(ea, eb)) continue;
    firstEventDifference = { index: i, recorded: ea ?? null, replayed: eb ?? null };
    break;
  }
  const eventsIdentical = firstEventDifference === null;
  const agreement: Agreement = firstDivergence ? 'diverged' : firstDifference || !eventsIdentical ? 'within-tolerance' : 'identical';
  return {
    agreement,
    firstDifference,
    firstDivergence,
    maxPositionDelta,
    maxAngleDelta,
    stepsCompared,
    eventsIdentical,
    firstEventDifference,
    recorded: rv,
    replayed: pv,
    verdictChanged,
  };
}
