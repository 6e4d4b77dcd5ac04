import { SbevalError } from '../core/errors.js';
import { followCauses, pickFirstMover } from './explain/causes.js';
import { bodyMotion } from './explain/motion.js';
import { reasonFor, round } from './explain/reasons.js';
import type { FrameSeries } from './explain/series.js';
import { ANGLE, field, mergeBatches, X, Y } from './explain/series.js';
import { analyseSupport } from './explain/support.js';
import { buildTimeline, summarise } from './explain/timeline.js';
import type { BodyReport, ContactReport, DeathReport, ExplainInput, ExplainOptions, Explanation, Pose, Work } from './explain/types.js';
import { measureTrial, OFFICIAL_MOVEMENT_THRESHOLD, OFFICIAL_WINDOW_STEPS } from './stability.js';

/**
 * Why a level collapses, read from one trial's frame stream: per body its displacement over time, when
 * it started to move and when it passed the movement threshold, the order of failure, the first mover
 * and the likely reason for every moving body, deaths, and the final verdict per body.
 *
 * Pure: it takes the bodies, frames and events (from a trace, a live engine, or a test) and knows
 * nothing of how they were produced. `formatExplanation` (scoring/explain/format.ts) renders the text.
 */
export type { MotionKind } from './explain/motion.js';
export { bodyName, STRIKE_SPEED } from './explain/reasons.js';
export type { StaticIssue } from './explain/support.js';
export { NOTABLE_CONTACT_SPEED } from './explain/timeline.js';
export type {
  BodyReport,
  ContactReport,
  DeathReport,
  ExplainInput,
  ExplainOptions,
  Explanation,
  Reason,
  ReasonKind,
  TimelineEntry,
} from './explain/types.js';

/** What the events say per body: when it was removed (and why), destroyed, and how much damage it took in how many hits. */
function tallyEvents(events: ExplainInput['events']) {
  const removed = new Map<number, { step: number; reason: 'death' | 'out-of-world' }>();
  const destroyed = new Map<number, number>();
  const damage = new Map<number, { total: number; hits: number }>();
  for (const e of events) {
    if (e.kind === 'removed' && !removed.has(e.id)) removed.set(e.id, { step: e.step, reason: e.reason });
    if (e.kind === 'destroyed' && !destroyed.has(e.id)) destroyed.set(e.id, e.step);
    if (e.kind === 'damage') {
      const d = damage.get(e.id) ?? { total: 0, hits: 0 };
      d.total += e.amount;
      d.hits += 1;
      damage.set(e.id, d);
    }
  }
  return { removed, destroyed, damage };
}

type TrialMeasure = ReturnType<typeof measureTrial>['measure'];

/** Each body's motion, start support, removal, destruction and damage: what its reason is found from. */
function bodyWork(
  bodies: ExplainInput['bodies'],
  series: FrameSeries,
  measure: TrialMeasure,
  tallies: ReturnType<typeof tallyEvents>,
  threshold: number,
): Work[] {
  const supports = analyseSupport(
    bodies.map((info, i) => ({ info, x: field(series, 0, i, X), y: field(series, 0, i, Y), angle: field(series, 0, i, ANGLE), alive: series.alive[i] === 1 })),
  );
  return bodies.map((info, index) => {
    const gone = tallies.removed.get(info.id);
    const measured = measure.objects[index]!;
    const lastStep = measured.lastStep;
    const motion = bodyMotion(series, index, measured, measure.windowStart, threshold);
    const d = tallies.damage.get(info.id);
    return {
      info,
      index,
      motion,
      support: supports[index]!,
      lastStep,
      removed: gone,
      destroyedStep: tallies.destroyed.get(info.id),
      damage: d?.total ?? 0,
      hits: d?.hits ?? 0,
      reason: null,
    };
  });
}

/** Bodies that passed the movement threshold, in the order they did (then by onset, then by id). */
function failureOrderOf(work: readonly Work[]): number[] {
  return work
    .filter((w) => w.motion.crossStep !== undefined)
    .sort((a, b) => a.motion.crossStep! - b.motion.crossStep! || (a.motion.onsetStep ?? 0) - (b.motion.onsetStep ?? 0) || a.info.id - b.info.id)
    .map((w) => w.info.id);
}

function deathsOf(work: readonly Work[]): DeathReport[] {
  return work
    .filter((w) => w.destroyedStep !== undefined || w.removed?.reason === 'out-of-world')
    .map((w) => ({
      id: w.info.id,
      step: w.destroyedStep ?? w.removed!.step,
      cause: w.destroyedStep !== undefined ? ('destroyed' as const) : ('out-of-world' as const),
      removedStep: w.removed?.step ?? null,
      damage: round(w.damage),
      hits: w.hits,
    }))
    .sort((a, b) => a.step - b.step || a.id - b.id);
}

export function explainFrames(input: ExplainInput, options: ExplainOptions = {}): Explanation {
  const threshold = options.threshold ?? OFFICIAL_MOVEMENT_THRESHOLD;
  const sampleEvery = Math.max(1, Math.floor(options.sampleEvery ?? 5));
  const bodies = input.bodies;
  if (bodies.length === 0) throw new SbevalError('input', 'the trial has no bodies to explain');
  const series = mergeBatches(input.frames, bodies.length);
  if (series.stepCount === 0) throw new SbevalError('input', 'the trial has no frames');
  const windowSteps = input.windowSteps ?? OFFICIAL_WINDOW_STEPS;
  // The verdict, the step numbers and every start and last position are the stability tracker's
  // (scoring/stability.ts), so explain can never disagree with the score, `sbeval level` or the viewer.
  const { verdict, measure } = measureTrial(bodies, input.frames, input.events, windowSteps, { kind: 'displacement', threshold });
  const end = measure.windowEnd;
  const events = input.events.filter((e) => e.step <= end);

  const work = bodyWork(bodies, series, measure, tallyEvents(events), threshold);
  const byId = new Map(work.map((w) => [w.info.id, w]));

  const contacts: ContactReport[] = [];
  for (const e of events) if (e.kind === 'contact') contacts.push({ step: e.step, a: e.a, b: e.b, relativeSpeed: e.relativeSpeed });

  const movingIds = new Set(verdict.moving);
  const movedVerdict = (w: Work): boolean => movingIds.has(w.info.id);
  for (const w of work) {
    const involved = w.motion.onsetStep !== undefined || movedVerdict(w) || w.destroyedStep !== undefined || w.removed !== undefined;
    if (involved && w.info.kind !== 'platform') w.reason = reasonFor(w, { threshold, byId, contacts, events, series });
  }

  const firstMover = pickFirstMover(work, byId, movedVerdict);
  const origin = firstMover ? followCauses(firstMover, byId) : undefined;
  const reports = work.map((w) =>
    toReport(w, series, { moved: movedVerdict(w), startStep: measure.windowStart, displacement: measure.objects[w.index]!.displacement }, sampleEvery),
  );
  const explanation: Explanation = {
    levelId: input.levelId ?? null,
    dt: input.dt,
    streamSteps: measure.streamSteps,
    windowStart: measure.windowStart,
    windowEnd: end,
    threshold,
    sampleEvery,
    counted: verdict.startingObjects,
    moving: verdict.movingObjects,
    score: verdict.score,
    firstMover: firstMover?.info.id ?? null,
    origin: origin?.info.id ?? null,
    failureOrder: failureOrderOf(work),
    bodies: reports,
    contacts,
    deaths: deathsOf(work),
    timeline: buildTimeline(work, events, byId),
    summary: '',
  };
  explanation.summary = summarise(explanation, byId);
  return explanation;
}

function toReport(w: Work, series: FrameSeries, measured: { moved: boolean; startStep: number; displacement: number }, sampleEvery: number): BodyReport {
  const { moved } = measured;
  const pose = (s: number): Pose => ({
    x: round(field(series, s, w.index, X), 5),
    y: round(field(series, s, w.index, Y), 5),
    angle: round(field(series, s, w.index, ANGLE), 5),
  });
  const samples: number[] = [];
  for (let s = 0; s < w.motion.displacement.length; s += sampleEvery) samples.push(round(w.motion.displacement[s]!));
  if ((w.motion.displacement.length - 1) % sampleEvery !== 0) samples.push(round(w.motion.displacement[w.motion.displacement.length - 1]!));
  const m = w.motion;
  return {
    id: w.info.id,
    kind: w.info.kind,
    type: w.info.type,
    counted: w.info.counted,
    start: pose(Math.min(measured.startStep, series.stepCount - 1)),
    end: pose(w.lastStep),
    lastStep: w.lastStep,
    // Unrounded: the tracker's number, printed the same way as `sbeval level` prints it.
    finalDisplacement: measured.displacement,
    maxDisplacement: round(m.maxDisplacement),
    onsetStep: m.onsetStep ?? null,
    crossStep: m.crossStep ?? null,
    deathStep: w.destroyedStep ?? m.deathStep ?? null,
    removedStep: w.removed?.step ?? null,
    removedReason: w.removed?.reason ?? null,
    moved,
    motion: { kind: m.kind, dx: round(m.dx), dy: round(m.dy), turn: round(m.turn) },
    damageTaken: round(w.damage),
    supporters: w.support.contacts.map((c) => c.by),
    depth: w.support.depth,
    staticIssue: w.support.issue ?? null,
    reason: w.reason,
    displacement: samples,
  };
}
