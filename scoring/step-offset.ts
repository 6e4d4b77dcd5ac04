import { FIELD_COUNT, type FrameBatch, type SimEvent } from '../bridge/frames.js';

/**
 * The step offset between two engines' frame streams of the same levels: the shift δ for which one
 * engine's step k shows what the other shows on step k + δ. Compared only where the motion is
 * collision-free — a body from its creation up to the step before its first contact (or death) in the
 * reference stream (the headless engine's): there both engines integrate the same gravity and damping
 * from the same rest, so their positions agree to far below a step's travel, and a one-step labelling
 * error shows as the distance the body covers in one step (a falling ruler hammer: ~0.1 units).
 * Pure: streams in, the offset out.
 */

interface StreamOfLevel {
  batches: readonly FrameBatch[];
  events?: readonly SimEvent[];
}

export interface LevelStreams {
  level: string;
  /** The reference (headless engine): its contacts and deaths end each body's collision-free span. */
  reference: StreamOfLevel & { events: readonly SimEvent[] };
  /** The engine under test (Unity). */
  tested: StreamOfLevel;
}

interface OffsetFit {
  offset: number;
  /** Largest position difference over the compared samples (units). */
  error: number;
  samples: number;
}

export interface StepOffset {
  /** The fitting offset (|difference| ≤ tolerance everywhere), or undefined when none or several fit. */
  offset: number | undefined;
  /** The best fit (smallest largest difference) and the offsets tried. */
  best: OffsetFit | undefined;
  fits: OffsetFit[];
  tolerance: number;
  /** Bodies with a collision-free span of at least one step, and the levels they are in. */
  bodies: number;
  levels: number;
}

interface StepOffsetOptions {
  /** Offsets tried: −maxOffset … +maxOffset. */
  maxOffset?: number;
  /** Largest position difference (units) two engines may show for the same collision-free step. */
  tolerance?: number;
  /** An offset must be checked on at least this many samples to count. */
  minSamples?: number;
}

/** Chosen, not fitted: a tenth of the evaluator's movement threshold, ten times below a falling ruler hammer's step. */
const STEP_OFFSET_TOLERANCE = 0.01;

interface Span {
  /** Positions (x, y) of the body for steps 0 … free − 1 in the reference. */
  reference: Float64Array;
  free: number;
  /** Positions and alive flags of the same body in the tested stream, steps 0 … tested − 1. */
  tested: Float64Array;
  alive: Uint8Array;
}

function stepsOf(batches: readonly FrameBatch[]): number {
  return batches.reduce((max, b) => Math.max(max, b.firstStep + b.stepCount), 0);
}

/** x, y and alive of body `id` on every step of a stream. */
function trajectory(batches: readonly FrameBatch[], id: number): { xy: Float64Array; alive: Uint8Array } {
  const steps = stepsOf(batches);
  const xy = new Float64Array(steps * 2);
  const alive = new Uint8Array(steps);
  for (const b of batches) {
    if (id >= b.bodyCount) continue;
    for (let s = 0; s < b.stepCount; s++) {
      const o = (s * b.bodyCount + id) * FIELD_COUNT;
      const step = b.firstStep + s;
      xy[step * 2] = b.states[o] as number;
      xy[step * 2 + 1] = b.states[o + 1] as number;
      alive[step] = b.alive[s * b.bodyCount + id] as number;
    }
  }
  return { xy, alive };
}

/** The first step on which body `id` touched something or died in the reference (Infinity: never). */
function firstContact(events: readonly SimEvent[], id: number): number {
  let first = Number.POSITIVE_INFINITY;
  for (const e of events) {
    const involved = e.kind === 'contact' ? e.a === id || e.b === id : e.kind === 'destroyed' || e.kind === 'removed' ? e.id === id : false;
    if (involved) first = Math.min(first, e.step);
  }
  return first;
}

function spansOf(levels: readonly LevelStreams[]): { spans: Span[]; levels: number } {
  const spans: Span[] = [];
  let withSpan = 0;
  for (const l of levels) {
    const bodyCount = l.reference.batches[0]?.bodyCount ?? 0;
    const steps = stepsOf(l.reference.batches);
    let any = false;
    for (let id = 0; id < bodyCount; id++) {
      const free = Math.min(steps, firstContact(l.reference.events, id));
      if (free < 2) continue;
      const ref = trajectory(l.reference.batches, id);
      const tested = trajectory(l.tested.batches, id);
      spans.push({ reference: ref.xy, free, tested: tested.xy, alive: tested.alive });
      any = true;
    }
    if (any) withSpan += 1;
  }
  return { spans, levels: withSpan };
}

function fitOf(spans: readonly Span[], offset: number): OffsetFit {
  let error = 0;
  let samples = 0;
  for (const s of spans) {
    const steps = s.alive.length;
    for (let k = 1; k < steps; k++) {
      const j = k + offset;
      if (j < 0 || j >= s.free) continue;
      if (!s.alive[k]) continue;
      const d = Math.hypot((s.tested[k * 2] as number) - (s.reference[j * 2] as number), (s.tested[k * 2 + 1] as number) - (s.reference[j * 2 + 1] as number));
      error = Math.max(error, d);
      samples += 1;
    }
  }
  return { offset, error, samples };
}

/** The step offset of `tested` against `reference` over the collision-free spans of all levels. */
export function measureStepOffset(levels: readonly LevelStreams[], options: StepOffsetOptions = {}): StepOffset {
  const maxOffset = options.maxOffset ?? 25;
  const tolerance = options.tolerance ?? STEP_OFFSET_TOLERANCE;
  const minSamples = options.minSamples ?? 10;
  const { spans, levels: withSpan } = spansOf(levels);
  const fits: OffsetFit[] = [];
  for (let offset = -maxOffset; offset <= maxOffset; offset++) {
    const fit = fitOf(spans, offset);
    if (fit.samples >= minSamples) fits.push(fit);
  }
  const best = fits.reduce<OffsetFit | undefined>(
    (b, f) => (!b || f.error < b.error || (f.error === b.error && Math.abs(f.offset) < Math.abs(b.offset)) ? f : b),
    undefined,
  );
  const fitting = fits.filter((f) => f.error <= tolerance);
  return { offset: fitting.length === 1 ? fitting[0]?.offset : undefined, best, fits, tolerance, bodies: spans.length, levels: withSpan };
}

/** One line on what the offset means for the engine under test. */
export function describeOffset(o: StepOffset, tested = 'Unity', reference = 'the headless engine'): string {
  const where = `${o.bodies} collision-free bod${o.bodies === 1 ? 'y' : 'ies'} in ${o.levels} level${o.levels === 1 ? '' : 's'}`;
  if (o.bodies === 0 || !o.best) return `no collision-free motion to compare (${where})`;
  if (o.offset === undefined) {
    return `no step offset within ±${Math.max(...o.fits.map((f) => Math.abs(f.offset)))} makes ${tested}'s collision-free motion match ${reference}'s within ${o.tolerance} (best: ${signed(o.best.offset)}, largest difference ${o.best.error.toFixed(4)}; ${where})`;
  }
  const fit = `largest difference ${o.best.error.toFixed(4)} over ${o.best.samples} samples of ${where}`;
  if (o.offset === 0) return `0: ${tested}'s step k is ${reference}'s step k (${fit})`;
  const n = Math.abs(o.offset);
  return `${signed(o.offset)}: ${tested}'s step k shows ${reference}'s step k ${o.offset > 0 ? '+' : '−'} ${n} — its stream runs ${n} physics step${n === 1 ? '' : 's'} ${o.offset > 0 ? 'ahead of' : 'behind'} its labels (${fit})`;
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '0';
}
