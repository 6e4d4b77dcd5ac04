import type { BodyInfo, BodyKind, FrameBatch, SimEvent } from '../bridge/frames.js';
import { TNT } from '../levels/catalog.js';
import { trialStability } from './stability.js';
import { bodyMotion, MOVEMENT_THRESHOLD, ONSET_SHIFT, ONSET_TURN, type BodyMotion, type MotionKind } from './explain/motion.js';
import { angleDelta, field, mergeBatches, ANGLE, X, Y, type FrameSeries } from './explain/series.js';
import { analyseSupport, GROUND, type BodySupport, type StaticIssue } from './explain/support.js';

/**
 * Why a level collapses, read from one trial's frame stream: per body its displacement over time, when
 * it started to move and when it passed the movement threshold, the order of failure, the first mover
 * and the likely reason for every moving body, deaths, and the final verdict per body.
 *
 * Pure: it takes the bodies, frames and events (from a trace, a live engine, or a test) and knows
 * nothing of how they were produced. `formatExplanation` (scoring/explain/format.ts) renders the text.
 */

export { MOVEMENT_THRESHOLD } from './explain/motion.js';
export type { MotionKind } from './explain/motion.js';
export type { StaticIssue } from './explain/support.js';
export { GROUND } from './explain/support.js';

export interface ExplainInput {
  levelId?: string;
  /** Seconds per step. */
  dt: number;
  bodies: readonly BodyInfo[];
  /** The trial's batches in order, starting at step 0. */
  frames: readonly FrameBatch[];
  events: readonly SimEvent[];
  /** Steps in the stability window (`SimulationSettings.windowSteps`); later frames (the capture's) are ignored. */
  windowSteps?: number;
}

export interface ExplainOptions {
  /** Movement threshold (default 0.1, the evaluator's). */
  threshold?: number;
  /** Keep every n-th step of the displacement series in the output (default 5 = 0.1 s at 50 Hz). */
  sampleEvery?: number;
}

/**
 * Contact speeds at or above this are reported in the text timeline (every contact begin costs its
 * relative speed in health, so 1 is a fifth of a block's 5 health: `ABBlock._life`).
 */
export const NOTABLE_CONTACT_SPEED = 1;
/** A moving body arriving faster than this is "struck" rather than "pushed". */
export const STRIKE_SPEED = 0.5;
/** Steps a reaction may lag its cause (a contact registers a step or two before the hit body's onset). */
const REACTION_STEPS = 5;
/** Straight-down sinking per supporting layer that is still "closing the start gaps" (grid 0.2401 vs colliders 0.21–0.22). */
const SETTLE_PER_LAYER = 0.035;

export type ReasonKind =
  | 'destroyed'
  | 'out-of-world'
  | 'explosion'
  | 'struck'
  | 'pushed'
  | 'support-moved'
  | 'support-destroyed'
  | 'dragged'
  | 'overlap'
  | 'overhang'
  | 'unsupported'
  | 'settled'
  | 'slid'
  | 'unknown';

export interface Reason {
  kind: ReasonKind;
  /** The other body behind it (id), or −1 for the ground. */
  cause?: number;
  /** The step of the causing event (a contact, a death, the cause's onset). */
  step?: number;
  relativeSpeed?: number;
  damage?: number;
  issue?: StaticIssue;
  text: string;
}

export interface Pose {
  x: number;
  y: number;
  angle: number;
}

export interface BodyReport {
  id: number;
  kind: BodyKind;
  type: string;
  counted: boolean;
  start: Pose;
  /** Pose at `lastStep`, the last step the body existed within the window. */
  end: Pose;
  lastStep: number;
  finalDisplacement: number;
  maxDisplacement: number;
  onsetStep: number | null;
  crossStep: number | null;
  deathStep: number | null;
  removedStep: number | null;
  removedReason: 'death' | 'out-of-world' | null;
  /** The official verdict (scoring/stability.ts): counted and its last position is ≥ threshold from its start. */
  moved: boolean;
  motion: { kind: MotionKind; dx: number; dy: number; turn: number };
  damageTaken: number;
  /** Ids it rested on at the start (−1 = ground). */
  supporters: number[];
  /** Bodies between it and the ground along its deepest support chain. */
  depth: number;
  staticIssue: StaticIssue | null;
  reason: Reason | null;
  /** Displacement from the start, every `sampleEvery` steps (4 decimals). */
  displacement: number[];
}

export interface ContactReport {
  step: number;
  a: number;
  b: number;
  relativeSpeed: number;
}

export interface DeathReport {
  id: number;
  /** Step it died (health 0, collider off) or left the world. */
  step: number;
  cause: 'destroyed' | 'out-of-world';
  removedStep: number | null;
  damage: number;
  hits: number;
}

export type TimelineKind = 'onset' | 'cross' | 'contact' | 'destroyed' | 'removed' | 'explosion';

export interface TimelineEntry {
  step: number;
  kind: TimelineKind;
  ids: number[];
  text: string;
}

export interface Explanation {
  levelId: string | null;
  dt: number;
  windowSteps: number;
  threshold: number;
  sampleEvery: number;
  /** Bodies counted by the stability rule (blocks, pigs, TNT). */
  counted: number;
  moving: number;
  /** The official trial score (scoring/stability.ts `trialStability`: float32 1 − moving/counted). */
  score: number;
  /** The body that started moving first, by onset; null when nothing moved. */
  firstMover: number | null;
  /** Where the first mover's chain of causes ends (itself when its reason is its own). */
  origin: number | null;
  /** Ids of bodies that passed the threshold, in the order they did. */
  failureOrder: number[];
  bodies: BodyReport[];
  contacts: ContactReport[];
  deaths: DeathReport[];
  timeline: TimelineEntry[];
  /** One sentence: what happened. */
  summary: string;
}

interface Work {
  info: BodyInfo;
  index: number;
  motion: BodyMotion;
  support: BodySupport;
  lastStep: number;
  removed: { step: number; reason: 'death' | 'out-of-world' } | undefined;
  destroyedStep: number | undefined;
  damage: number;
  hits: number;
  reason: Reason | null;
}

const round = (v: number, digits = 4): number => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};

export function bodyName(info: Pick<BodyInfo, 'id' | 'type'>): string {
  return `#${info.id} ${info.type}`;
}

/** The evaluator's window: `while (t <= duration)` samples 10 s of 0.02-s steps, the last one being step `windowSteps`. */
function windowEnd(series: FrameSeries, windowSteps: number | undefined): number {
  return Math.min(series.stepCount - 1, windowSteps ?? series.stepCount - 1);
}

export function explainFrames(input: ExplainInput, options: ExplainOptions = {}): Explanation {
  const threshold = options.threshold ?? MOVEMENT_THRESHOLD;
  const sampleEvery = Math.max(1, Math.floor(options.sampleEvery ?? 5));
  const bodies = input.bodies;
  if (bodies.length === 0) throw new Error('the trial has no bodies to explain');
  const series = mergeBatches(input.frames, bodies.length);
  if (series.stepCount === 0) throw new Error('the trial has no frames');
  const end = windowEnd(series, input.windowSteps);
  const indexOf = new Map(bodies.map((b, i) => [b.id, i]));
  const events = input.events.filter((e) => e.step <= end);

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

  const supports = analyseSupport(
    bodies.map((info, i) => ({ info, x: field(series, 0, i, X), y: field(series, 0, i, Y), angle: field(series, 0, i, ANGLE), alive: series.alive[i] === 1 })),
  );

  const work: Work[] = bodies.map((info, index) => {
    const gone = removed.get(info.id);
    // Removed during step k: the state of step k−1 is the last one the evaluator saw.
    const lastStep = gone ? Math.max(0, Math.min(end, gone.step - 1)) : end;
    const motion = bodyMotion(series, index, lastStep, threshold);
    const d = damage.get(info.id);
    return {
      info,
      index,
      motion,
      support: supports[index]!,
      lastStep,
      removed: gone,
      destroyedStep: destroyed.get(info.id),
      damage: d?.total ?? 0,
      hits: d?.hits ?? 0,
      reason: null,
    };
  });
  const byId = new Map(work.map((w) => [w.info.id, w]));

  const contacts: ContactReport[] = [];
  for (const e of events) if (e.kind === 'contact') contacts.push({ step: e.step, a: e.a, b: e.b, relativeSpeed: e.relativeSpeed });

  // The verdict is the official rule's own (scoring/stability.ts), so explain can never disagree with the score.
  const verdict = trialStability(bodies, input.frames, input.events, end, { kind: 'displacement', threshold });
  const movingIds = new Set(verdict.moving);
  const movedVerdict = (w: Work): boolean => movingIds.has(w.info.id);
  for (const w of work) {
    const involved = w.motion.onsetStep !== undefined || movedVerdict(w) || w.destroyedStep !== undefined || w.removed !== undefined;
    if (involved && w.info.kind !== 'platform') w.reason = reasonFor(w, { threshold, byId, contacts, events, series });
  }

  const firstMover = pickFirstMover(work, byId, movedVerdict);
  const origin = firstMover ? followCauses(firstMover, byId) : undefined;
  const failureOrder = work
    .filter((w) => w.motion.crossStep !== undefined)
    .sort((a, b) => a.motion.crossStep! - b.motion.crossStep! || (a.motion.onsetStep ?? 0) - (b.motion.onsetStep ?? 0) || a.info.id - b.info.id)
    .map((w) => w.info.id);

  const counted = verdict.startingObjects;
  const moving = verdict.movingObjects;
  const reports = work.map((w) => toReport(w, series, movedVerdict(w), sampleEvery));
  const deaths: DeathReport[] = work
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

  const explanation: Explanation = {
    levelId: input.levelId ?? null,
    dt: input.dt,
    windowSteps: end,
    threshold,
    sampleEvery,
    counted,
    moving,
    score: verdict.score,
    firstMover: firstMover?.info.id ?? null,
    origin: origin?.info.id ?? null,
    failureOrder,
    bodies: reports,
    contacts,
    deaths,
    timeline: buildTimeline(work, events, byId),
    summary: '',
  };
  explanation.summary = summarise(explanation, byId);
  return explanation;
}

interface Context {
  threshold: number;
  byId: Map<number, Work>;
  contacts: ContactReport[];
  events: readonly SimEvent[];
  series: FrameSeries;
}

function nameOf(id: number, byId: Map<number, Work>): string {
  if (id === GROUND) return 'the ground';
  if (id < 0) return 'a static collider';
  const w = byId.get(id);
  return w ? bodyName(w.info) : `#${id}`;
}

const f2 = (v: number): string => v.toFixed(2);

function reasonFor(w: Work, ctx: Context): Reason {
  const { byId } = ctx;
  const id = w.info.id;
  const onset = w.motion.onsetStep ?? w.motion.crossStep ?? w.lastStep;

  const threshold = ctx.threshold;
  if (w.removed?.reason === 'out-of-world' && w.destroyedStep === undefined && w.removed.step <= onset + 1) {
    return { kind: 'out-of-world', step: w.removed.step, text: `left the world (|x| past the level's half width) at step ${w.removed.step}` };
  }

  // Destroyed before (or as) it started moving: the impacts are the reason.
  if (w.destroyedStep !== undefined && w.destroyedStep <= onset + 1) {
    const partners = new Map<number, { damage: number; hits: number; maxSpeed: number; step: number }>();
    for (const c of ctx.contacts) {
      if (c.step > w.destroyedStep || (c.a !== id && c.b !== id)) continue;
      const other = c.a === id ? c.b : c.a;
      const p = partners.get(other) ?? { damage: 0, hits: 0, maxSpeed: 0, step: c.step };
      p.damage += c.relativeSpeed;
      p.hits += 1;
      if (c.relativeSpeed >= p.maxSpeed) {
        p.maxSpeed = c.relativeSpeed;
        p.step = c.step;
      }
      partners.set(other, p);
    }
    const worst = [...partners.entries()].sort((a, b) => b[1].damage - a[1].damage)[0];
    const total = w.damage;
    const text = worst
      ? `destroyed by impact at step ${w.destroyedStep}: ${f2(total)} damage in ${w.hits} hit(s), most from ${nameOf(worst[0], byId)} (${f2(worst[1].damage)}, up to ${f2(worst[1].maxSpeed)} u/s at step ${worst[1].step})`
      : `destroyed at step ${w.destroyedStep} (${f2(total)} damage in ${w.hits} hit(s))`;
    return { kind: 'destroyed', step: w.destroyedStep, damage: round(total), ...(worst ? { cause: worst[0], relativeSpeed: round(worst[1].maxSpeed) } : {}), text };
  }

  if (w.support.issue?.kind === 'overlap') {
    const issue = w.support.issue;
    return {
      kind: 'overlap',
      issue,
      cause: issue.with[0]!,
      text: `the level places it inside ${issue.with.map((o) => nameOf(o, byId)).join(', ')} (by ${f2(issue.depth)}): the solver pushes them apart at once`,
    };
  }

  const explosion = ctx.events.find(
    (e): e is Extract<SimEvent, { kind: 'explosion' }> =>
      e.kind === 'explosion' &&
      e.id !== id &&
      e.step <= onset + 1 &&
      e.step >= onset - REACTION_STEPS &&
      Math.hypot(e.x - w.support.load.x, e.y - (w.support.aabb.minY + w.support.aabb.maxY) / 2) <= TNT.explosion.area + 0.5,
  );
  if (explosion) {
    return { kind: 'explosion', cause: explosion.id, step: explosion.step, text: `thrown by the explosion of ${nameOf(explosion.id, byId)} at step ${explosion.step}` };
  }

  // Sinking straight down into the start gaps under it (a tall stack closing its 0.2401-grid gaps).
  const m = w.motion;
  const endDx = field(ctx.series, w.lastStep, w.index, X) - field(ctx.series, 0, w.index, X);
  const endDy = field(ctx.series, w.lastStep, w.index, Y) - field(ctx.series, 0, w.index, Y);
  const endTurn = angleDelta(field(ctx.series, 0, w.index, ANGLE), field(ctx.series, w.lastStep, w.index, ANGLE));
  if (
    w.destroyedStep === undefined &&
    w.support.issue === undefined &&
    -endDy >= threshold / 2 &&
    Math.abs(endDx) < ONSET_SHIFT &&
    Math.abs(endTurn) < ONSET_TURN &&
    -endDy <= SETTLE_PER_LAYER * (w.support.depth + 1)
  ) {
    return {
      kind: 'settled',
      text: `sank ${f2(-endDy)} straight down as the ${w.support.depth + 1} layer(s) under it closed their start gaps (XML grid 0.2401, colliders 0.21–0.22)`,
    };
  }

  // Hit by a body that was already moving when the contact began. Contacts with what it rests on or
  // what rests on it are the support relations below unless they come in fast (a real hit).
  const restsOn = new Set(w.support.contacts.map((c) => c.by));
  let hit: ContactReport | undefined;
  for (const c of ctx.contacts) {
    if (c.step < onset - REACTION_STEPS || c.step > onset + 1 || (c.a !== id && c.b !== id)) continue;
    const other = c.a === id ? c.b : c.a;
    const o = byId.get(other);
    if (!o || o.motion.onsetStep === undefined || o.motion.onsetStep >= onset || o.motion.onsetStep > c.step) continue;
    const related = restsOn.has(other) || o.support.contacts.some((k) => k.by === id);
    if (related && c.relativeSpeed < STRIKE_SPEED) continue;
    if (!hit || c.relativeSpeed > hit.relativeSpeed) hit = c;
  }
  if (hit) {
    const other = hit.a === id ? hit.b : hit.a;
    const kind = hit.relativeSpeed >= STRIKE_SPEED ? 'struck' : 'pushed';
    return {
      kind,
      cause: other,
      step: hit.step,
      relativeSpeed: round(hit.relativeSpeed),
      damage: round(hit.relativeSpeed),
      text: `${kind === 'struck' ? 'struck' : 'pushed'} by ${nameOf(other, byId)} at step ${hit.step} (relative speed ${f2(hit.relativeSpeed)} u/s, ${f2(hit.relativeSpeed)} damage)`,
    };
  }

  // What it rested on moved first (or together with it, unless it is the one whose load tips). A
  // body riding a support that tips over an edge can register its onset a few steps before the
  // support does (it sits further from the pivot), so a support with a static issue under it gets
  // REACTION_STEPS of slack.
  let support: Work | undefined;
  for (const c of w.support.contacts) {
    if (c.by === GROUND) continue;
    const s = byId.get(c.by);
    const sOnset = s?.motion.onsetStep;
    if (!s || sOnset === undefined) continue;
    const slack = !w.support.issue && unstableBelow(s, byId) ? REACTION_STEPS : 0;
    if (sOnset > onset + slack) continue;
    if (sOnset === onset && w.support.issue && !s.support.issue) continue;
    if (!support || sOnset < support.motion.onsetStep!) support = s;
  }
  if (support) {
    const sOnset = support.motion.onsetStep!;
    const dead = support.destroyedStep !== undefined && support.destroyedStep <= onset;
    const when = sOnset >= onset ? 'together with it' : `at step ${sOnset}`;
    return dead
      ? { kind: 'support-destroyed', cause: support.info.id, step: support.destroyedStep!, text: `lost its support: ${nameOf(support.info.id, byId)} under it was destroyed at step ${support.destroyedStep}` }
      : { kind: 'support-moved', cause: support.info.id, step: sOnset, text: `carried off by its support ${nameOf(support.info.id, byId)}, which started to move ${when}` };
  }

  if (w.support.issue?.kind === 'unsupported') {
    const issue = w.support.issue;
    return { kind: 'unsupported', issue, cause: issue.landsOn, text: `nothing under it: fell ${f2(issue.dropHeight)} onto ${nameOf(issue.landsOn, byId)}` };
  }
  if (w.support.issue?.kind === 'overhang') {
    const issue = w.support.issue;
    const others = issue.loadBodies.length - 1;
    const load = others > 0 ? `the centre of mass of it and the ${others} bod${others === 1 ? 'y' : 'ies'} on it` : 'its centre of mass';
    const edge = issue.edgeOf === GROUND ? 'its own bottom edge' : `the ${issue.side} edge of ${nameOf(issue.edgeOf, byId)}`;
    return {
      kind: 'overhang',
      issue,
      cause: issue.edgeOf,
      text: `overhang: ${load} (x = ${f2(issue.loadX)}) lies ${f2(issue.beyond)} past ${edge} (x = ${f2(issue.edgeX)}), so it tips`,
    };
  }

  // Pulled along by a load that tips off it.
  for (const other of byId.values()) {
    if (other === w || other.motion.onsetStep === undefined || other.motion.onsetStep > onset) continue;
    if (!other.support.contacts.some((c) => c.by === id)) continue;
    return { kind: 'dragged', cause: other.info.id, step: other.motion.onsetStep, text: `dragged by ${nameOf(other.info.id, byId)} resting on it, which started to move at step ${other.motion.onsetStep}` };
  }

  if (m.kind === 'slid') {
    const on = w.support.contacts.find((c) => c.by !== GROUND);
    const where = w.support.contacts.some((c) => c.by === GROUND) ? 'on the ground' : on ? `on ${nameOf(on.by, byId)}` : 'sideways';
    return { kind: 'slid', cause: on?.by ?? GROUND, text: `slid ${f2(Math.abs(m.dx))} ${m.dx < 0 ? 'left' : 'right'} ${where} with no hit or support change found` };
  }
  return { kind: 'unknown', text: `${m.kind === 'still' ? 'moved' : m.kind} (dx ${f2(m.dx)}, dy ${f2(m.dy)}, turn ${f2((m.turn * 180) / Math.PI)}°) with no hit, support change or static cause found` };
}

/** Whether a body, or anything under it down to the ground, starts with a static issue (it will tip or fall). */
function unstableBelow(w: Work, byId: Map<number, Work>, seen = new Set<number>()): boolean {
  if (w.support.issue) return true;
  if (seen.has(w.info.id)) return false;
  seen.add(w.info.id);
  return w.support.contacts.some((c) => {
    const s = c.by === GROUND ? undefined : byId.get(c.by);
    return s !== undefined && unstableBelow(s, byId, seen);
  });
}

const INTRINSIC: ReadonlySet<ReasonKind> = new Set(['overlap', 'overhang', 'unsupported']);

/**
 * The first mover: the block that started the failure. Among the bodies that failed (passed the
 * threshold, were judged moving, or died), each is ranked by the onset of the chain of causes it
 * belongs to (a block carried by a tipping support belongs to that support's chain); a body that is
 * its own cause comes before the ones it carries, then one with a static cause of its own (overhang,
 * nothing under it), then the lowest (the pivot of a tipping stack rather than its top). Bodies that
 * only settled into the start gaps come last: sinking is not what starts a collapse.
 */
function pickFirstMover(work: Work[], byId: Map<number, Work>, moved: (w: Work) => boolean): Work | undefined {
  const failed = work.filter(
    (w) => w.reason !== null && w.motion.onsetStep !== undefined && (w.motion.crossStep !== undefined || moved(w) || w.destroyedStep !== undefined),
  );
  const key = (w: Work) => {
    const origin = followCauses(w, byId);
    return {
      settled: Number(w.reason!.kind === 'settled'),
      chainOnset: origin === w ? w.motion.onsetStep! : (origin.motion.onsetStep ?? w.motion.onsetStep!),
      ownCause: Number(origin !== w),
      intrinsic: Number(!INTRINSIC.has(w.reason!.kind)),
    };
  };
  const keys = new Map(failed.map((w) => [w, key(w)]));
  failed.sort((a, b) => {
    const ka = keys.get(a)!;
    const kb = keys.get(b)!;
    return (
      ka.settled - kb.settled ||
      ka.chainOnset - kb.chainOnset ||
      ka.ownCause - kb.ownCause ||
      ka.intrinsic - kb.intrinsic ||
      a.support.depth - b.support.depth ||
      a.motion.onsetStep! - b.motion.onsetStep! ||
      (a.motion.crossStep ?? Infinity) - (b.motion.crossStep ?? Infinity) ||
      a.info.id - b.info.id
    );
  });
  return failed[0];
}

/** Follows "caused by another body" links to where the chain starts. */
function followCauses(start: Work, byId: Map<number, Work>): Work {
  const seen = new Set<number>();
  let current = start;
  while (!seen.has(current.info.id)) {
    seen.add(current.info.id);
    const r = current.reason;
    if (!r || r.cause === undefined || r.cause < 0) break;
    if (!['struck', 'pushed', 'support-moved', 'support-destroyed', 'dragged', 'explosion'].includes(r.kind)) break;
    const next = byId.get(r.cause);
    if (!next) break;
    current = next;
  }
  return current;
}

function toReport(w: Work, series: FrameSeries, moved: boolean, sampleEvery: number): BodyReport {
  const pose = (s: number): Pose => ({ x: round(field(series, s, w.index, X), 5), y: round(field(series, s, w.index, Y), 5), angle: round(field(series, s, w.index, ANGLE), 5) });
  const samples: number[] = [];
  for (let s = 0; s < w.motion.displacement.length; s += sampleEvery) samples.push(round(w.motion.displacement[s]!));
  if ((w.motion.displacement.length - 1) % sampleEvery !== 0) samples.push(round(w.motion.displacement[w.motion.displacement.length - 1]!));
  const m = w.motion;
  return {
    id: w.info.id,
    kind: w.info.kind,
    type: w.info.type,
    counted: w.info.counted,
    start: pose(0),
    end: pose(w.lastStep),
    lastStep: w.lastStep,
    finalDisplacement: round(m.displacement[w.lastStep] ?? 0),
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

const MOTION_VERB: Record<MotionKind, string> = {
  still: 'starts to move',
  fell: 'starts to fall',
  slid: 'starts to slide',
  tipped: 'starts to tip',
  rose: 'is lifted',
  destroyed: 'is destroyed',
};

function buildTimeline(work: Work[], events: readonly SimEvent[], byId: Map<number, Work>): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  for (const w of work) {
    if (w.reason === null) continue;
    const name = bodyName(w.info);
    if (w.motion.onsetStep !== undefined && w.reason.kind !== 'settled') {
      entries.push({ step: w.motion.onsetStep, kind: 'onset', ids: [w.info.id], text: `${name} ${MOTION_VERB[w.motion.kind]} — ${w.reason.text}` });
    }
    if (w.motion.crossStep !== undefined) {
      entries.push({ step: w.motion.crossStep, kind: 'cross', ids: [w.info.id], text: `${name} passes the movement threshold (${w.motion.kind === 'still' ? 'moved' : w.motion.kind}${w.reason.kind === 'settled' ? ', settling' : ''})` });
    }
  }
  for (const e of events) {
    if (e.kind === 'contact' && e.relativeSpeed >= NOTABLE_CONTACT_SPEED) {
      const ids = [e.a, e.b].filter((i) => i >= 0);
      entries.push({ step: e.step, kind: 'contact', ids, text: `${nameOf(e.a, byId)} hits ${nameOf(e.b, byId)} at ${f2(e.relativeSpeed)} u/s (${f2(e.relativeSpeed)} damage)` });
    } else if (e.kind === 'destroyed') {
      const w = byId.get(e.id);
      entries.push({ step: e.step, kind: 'destroyed', ids: [e.id], text: `${nameOf(e.id, byId)} destroyed (${f2(w?.damage ?? 0)} damage in ${w?.hits ?? 0} hit(s)); it falls with its collider off until removed` });
    } else if (e.kind === 'removed') {
      entries.push({ step: e.step, kind: 'removed', ids: [e.id], text: `${nameOf(e.id, byId)} removed (${e.reason === 'death' ? 'after its death' : 'out of the world'})` });
    } else if (e.kind === 'explosion') {
      entries.push({ step: e.step, kind: 'explosion', ids: [e.id], text: `${nameOf(e.id, byId)} explodes at (${f2(e.x)}, ${f2(e.y)})` });
    }
  }
  const order: Record<TimelineKind, number> = { explosion: 0, contact: 1, destroyed: 2, removed: 3, onset: 4, cross: 5 };
  entries.sort((a, b) => a.step - b.step || order[a.kind] - order[b.kind] || (a.ids[0] ?? 0) - (b.ids[0] ?? 0));
  return entries;
}

function summarise(e: Explanation, byId: Map<number, Work>): string {
  const verdict = `${e.moving} of ${e.counted} moved (≥ ${e.threshold}), stability ${e.score.toFixed(4)}`;
  if (e.firstMover === null) return `${verdict}; nothing moved.`;
  const first = byId.get(e.firstMover)!;
  const when = `step ${first.motion.onsetStep} (${((first.motion.onsetStep ?? 0) * e.dt).toFixed(2)} s)`;
  let text = `${verdict}; first mover ${bodyName(first.info)} at ${when}: ${first.reason!.text}`;
  if (e.origin !== null && e.origin !== e.firstMover) text += `; it starts at ${nameOf(e.origin, byId)}`;
  return `${text}.`;
}
