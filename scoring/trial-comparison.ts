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
  const rv = verdictOf(recorded, windowSteps);
  const pv = verdictOf(replayed, windowSteps);
  const verdictChanged = rv.score !== pv.score || rv.moving.length !== pv.moving.length || rv.moving.some((id, i) => pv.moving[i] !== id);
  const frames = sameBodyTables(recorded.bodies, replayed.bodies) ? compareFrames(recorded, replayed, tolerance) : bodyTableMismatch(recorded, replayed);
  const firstEventDifference = findFirstEventDifference(recorded.events, replayed.events);
  const eventsIdentical = firstEventDifference === null;
  const agreement: Agreement = frames.firstDivergence ? 'diverged' : frames.firstDifference || !eventsIdentical ? 'within-tolerance' : 'identical';
  return {
    agreement,
    firstDifference: frames.firstDifference,
    firstDivergence: frames.firstDivergence,
    maxPositionDelta: frames.maxPositionDelta,
    maxAngleDelta: frames.maxAngleDelta,
    stepsCompared: frames.stepsCompared,
    eventsIdentical,
    firstEventDifference,
    recorded: rv,
    replayed: pv,
    verdictChanged,
  };
}

/** What comparing two trials' frames found, before events and verdicts are added. */
interface FrameComparison {
  firstDifference: Divergence | null;
  firstDivergence: Divergence | null;
  maxPositionDelta: number;
  maxAngleDelta: number;
  stepsCompared: number;
}

function verdictOf(t: TrialRecord, windowSteps: number): Verdict {
  const v = trialStability(t.bodies, t.frames, t.events, windowSteps);
  return { score: v.score, moving: v.moving };
}

function sameBodyTables(recorded: readonly BodyInfo[], replayed: readonly BodyInfo[]): boolean {
  return (
    recorded.length === replayed.length &&
    recorded.every((b, i) => {
      const o = replayed[i]!;
      return b.id === o.id && b.kind === o.kind && b.type === o.type && b.counted === o.counted;
    })
  );
}

/** Different body tables: the frames cannot be compared body by body, so nothing is. */
function bodyTableMismatch(recorded: TrialRecord, replayed: TrialRecord): FrameComparison {
  const d: Divergence = {
    step: 0,
    body: -1,
    type: null,
    field: 'bodies',
    recorded: recorded.bodies.length,
    replayed: replayed.bodies.length,
    delta: replayed.bodies.length - recorded.bodies.length,
  };
  return { firstDifference: d, firstDivergence: d, maxPositionDelta: 0, maxAngleDelta: 0, stepsCompared: 0 };
}

/** Step by step and body by body over the common steps (same body tables), then whether the step counts differ. */
function compareFrames(recorded: TrialRecord, replayed: TrialRecord, tolerance: number): FrameComparison {
  const n = recorded.bodies.length;
  const a = mergeBatches(recorded.frames, n);
  const b = mergeBatches(replayed.frames, n);
  const out: FrameComparison = {
    firstDifference: null,
    firstDivergence: null,
    maxPositionDelta: 0,
    maxAngleDelta: 0,
    stepsCompared: Math.min(a.stepCount, b.stepCount),
  };
  for (let s = 0; s < out.stepsCompared; s++) {
    for (let body = 0; body < n; body++) compareBodyAtStep(out, a, b, s, n, body, recorded.bodies[body]!, tolerance);
  }
  if (a.stepCount !== b.stepCount) {
    const d: Divergence = {
      step: out.stepsCompared,
      body: -1,
      type: null,
      field: 'steps',
      recorded: a.stepCount,
      replayed: b.stepCount,
      delta: b.stepCount - a.stepCount,
    };
    out.firstDifference ??= d;
    out.firstDivergence ??= d;
  }
  return out;
}

type MergedFrames = ReturnType<typeof mergeBatches>;

/** Compares one body at one step (life, then every state field), recording into `out`. */
function compareBodyAtStep(
  out: FrameComparison,
  a: MergedFrames,
  b: MergedFrames,
  s: number,
  n: number,
  body: number,
  info: BodyInfo,
  tolerance: number,
): void {
  const base = (s * n + body) * FIELD_COUNT;
  const type = info.type;
  const aliveA = a.alive[s * n + body]!;
  const aliveB = b.alive[s * n + body]!;
  if (aliveA !== aliveB) {
    const d: Divergence = { step: s, body: info.id, type, field: 'alive', recorded: aliveA, replayed: aliveB, delta: aliveB - aliveA };
    out.firstDifference ??= d;
    out.firstDivergence ??= d;
  }
  for (let f = 0; f < FIELD_COUNT; f++) {
    const va = a.states[base + f]!;
    const vb = b.states[base + f]!;
    if (Object.is(va, vb)) continue;
    const delta = Math.abs(vb - va);
    const field = FIELDS[f]!;
    const d: Divergence = { step: s, body: info.id, type, field, recorded: va, replayed: vb, delta };
    out.firstDifference ??= d;
    // Tolerance applies to the pose; velocities only count towards "identical".
    if (f <= 1) out.maxPositionDelta = Math.max(out.maxPositionDelta, delta);
    if (f === 2) out.maxAngleDelta = Math.max(out.maxAngleDelta, delta);
    if (f <= 2 && !(delta <= tolerance)) out.firstDivergence ??= d;
  }
}

function findFirstEventDifference(recorded: readonly SimEvent[], replayed: readonly SimEvent[]): TrialComparison['firstEventDifference'] {
  const count = Math.max(recorded.length, replayed.length);
  for (let i = 0; i < count; i++) {
    const ea = recorded[i];
    const eb = replayed[i];
    if (ea && eb && sameEvent(ea, eb)) continue;
    return { index: i, recorded: ea ?? null, replayed: eb ?? null };
  }
  return null;
}
