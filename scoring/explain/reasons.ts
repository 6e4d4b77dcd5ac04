import type { BodyInfo, SimEvent } from '../../bridge/frames.js';
import { TNT } from '../../levels/catalog.js';
import { ONSET_SHIFT, ONSET_TURN } from './motion.js';
import { ANGLE, angleDelta, type FrameSeries, field, X, Y } from './series.js';
import { GROUND } from './support.js';
import type { ContactReport, Reason, Work } from './types.js';

/**
 * The likely reason each body started to move, from what happened up to its onset: its own static
 * issue (overlap, overhang, nothing under it), a hit from a moving body, its support moving or dying,
 * a load tipping off it, an explosion, destruction, settling into the start gaps, or a slide.
 */

/** A moving body arriving faster than this is "struck" rather than "pushed". */
export const STRIKE_SPEED = 0.5;
/** Steps a reaction may lag its cause (a contact registers a step or two before the hit body's onset). */
const REACTION_STEPS = 5;
/** Straight-down sinking per supporting layer that is still "closing the start gaps" (grid 0.2401 vs colliders 0.21–0.22). */
const SETTLE_PER_LAYER = 0.035;

export const round = (v: number, digits = 4): number => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};

export function bodyName(info: Pick<BodyInfo, 'id' | 'type'>): string {
  return `#${info.id} ${info.type}`;
}

interface Context {
  threshold: number;
  byId: Map<number, Work>;
  contacts: ContactReport[];
  events: readonly SimEvent[];
  series: FrameSeries;
}

export function nameOf(id: number, byId: Map<number, Work>): string {
  if (id === GROUND) return 'the ground';
  if (id < 0) return 'a static collider';
  const w = byId.get(id);
  return w ? bodyName(w.info) : `#${id}`;
}

export const f2 = (v: number): string => v.toFixed(2);

/** One candidate reason: the reason when it applies to body `w` whose motion began at `onset`, else undefined. */
type ReasonCheck = (w: Work, ctx: Context, onset: number) => Reason | undefined;

const leftTheWorld: ReasonCheck = (w, _ctx, onset) => {
  if (w.removed?.reason === 'out-of-world' && w.destroyedStep === undefined && w.removed.step <= onset + 1) {
    return { kind: 'out-of-world', step: w.removed.step, text: `left the world (|x| past the level's half width) at step ${w.removed.step}` };
  }
  return undefined;
};

/** Destroyed before (or as) it started moving: the impacts are the reason, the partner that dealt the most damage named. */
const destroyedByImpact: ReasonCheck = (w, ctx, onset) => {
  if (w.destroyedStep === undefined || w.destroyedStep > onset + 1) return undefined;
  const id = w.info.id;
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
    ? `destroyed by impact at step ${w.destroyedStep}: ${f2(total)} damage in ${w.hits} hit(s), most from ${nameOf(worst[0], ctx.byId)} (${f2(worst[1].damage)}, up to ${f2(worst[1].maxSpeed)} u/s at step ${worst[1].step})`
    : `destroyed at step ${w.destroyedStep} (${f2(total)} damage in ${w.hits} hit(s))`;
  return {
    kind: 'destroyed',
    step: w.destroyedStep,
    damage: round(total),
    ...(worst ? { cause: worst[0], relativeSpeed: round(worst[1].maxSpeed) } : {}),
    text,
  };
};

const placedInside: ReasonCheck = (w, ctx) => {
  if (w.support.issue?.kind !== 'overlap') return undefined;
  const issue = w.support.issue;
  return {
    kind: 'overlap',
    issue,
    cause: issue.with[0]!,
    text: `the level places it inside ${issue.with.map((o) => nameOf(o, ctx.byId)).join(', ')} (by ${f2(issue.depth)}): the solver pushes them apart at once`,
  };
};

const thrownByExplosion: ReasonCheck = (w, ctx, onset) => {
  const id = w.info.id;
  const explosion = ctx.events.find(
    (e): e is Extract<SimEvent, { kind: 'explosion' }> =>
      e.kind === 'explosion' &&
      e.id !== id &&
      e.step <= onset + 1 &&
      e.step >= onset - REACTION_STEPS &&
      Math.hypot(e.x - w.support.load.x, e.y - (w.support.aabb.minY + w.support.aabb.maxY) / 2) <= TNT.explosion.area + 0.5,
  );
  if (!explosion) return undefined;
  return {
    kind: 'explosion',
    cause: explosion.id,
    step: explosion.step,
    text: `thrown by the explosion of ${nameOf(explosion.id, ctx.byId)} at step ${explosion.step}`,
  };
};

/** Sinking straight down into the start gaps under it (a tall stack closing its 0.2401-grid gaps). */
const settledIntoGaps: ReasonCheck = (w, ctx) => {
  const endDx = field(ctx.series, w.lastStep, w.index, X) - field(ctx.series, 0, w.index, X);
  const endDy = field(ctx.series, w.lastStep, w.index, Y) - field(ctx.series, 0, w.index, Y);
  const endTurn = angleDelta(field(ctx.series, 0, w.index, ANGLE), field(ctx.series, w.lastStep, w.index, ANGLE));
  if (
    w.destroyedStep === undefined &&
    w.support.issue === undefined &&
    -endDy >= ctx.threshold / 2 &&
    Math.abs(endDx) < ONSET_SHIFT &&
    Math.abs(endTurn) < ONSET_TURN &&
    -endDy <= SETTLE_PER_LAYER * (w.support.depth + 1)
  ) {
    return {
      kind: 'settled',
      text: `sank ${f2(-endDy)} straight down as the ${w.support.depth + 1} layer(s) under it closed their start gaps (XML grid 0.2401, colliders 0.21–0.22)`,
    };
  }
  return undefined;
};

/**
 * Hit by a body that was already moving when the contact began. Contacts with what it rests on or what
 * rests on it are the support relations below unless they come in fast (a real hit).
 */
const hitByMovingBody: ReasonCheck = (w, ctx, onset) => {
  const { byId } = ctx;
  const id = w.info.id;
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
  if (!hit) return undefined;
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
};

/**
 * What it rested on moved first (or together with it, unless it is the one whose load tips). A body
 * riding a support that tips over an edge can register its onset a few steps before the support does
 * (it sits further from the pivot), so a support with a static issue under it gets REACTION_STEPS of slack.
 */
const supportMovedOrDestroyed: ReasonCheck = (w, ctx, onset) => {
  const { byId } = ctx;
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
  if (!support) return undefined;
  const sOnset = support.motion.onsetStep!;
  const dead = support.destroyedStep !== undefined && support.destroyedStep <= onset;
  const when = sOnset >= onset ? 'together with it' : `at step ${sOnset}`;
  return dead
    ? {
        kind: 'support-destroyed',
        cause: support.info.id,
        step: support.destroyedStep!,
        text: `lost its support: ${nameOf(support.info.id, byId)} under it was destroyed at step ${support.destroyedStep}`,
      }
    : {
        kind: 'support-moved',
        cause: support.info.id,
        step: sOnset,
        text: `carried off by its support ${nameOf(support.info.id, byId)}, which started to move ${when}`,
      };
};

/** The level's own static issue: nothing under it, or an overhang that tips. */
const staticIssue: ReasonCheck = (w, ctx) => {
  const { byId } = ctx;
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
  return undefined;
};

/** Pulled along by a load that tips off it. */
const draggedByLoad: ReasonCheck = (w, ctx, onset) => {
  for (const other of ctx.byId.values()) {
    if (other === w || other.motion.onsetStep === undefined || other.motion.onsetStep > onset) continue;
    if (!other.support.contacts.some((c) => c.by === w.info.id)) continue;
    return {
      kind: 'dragged',
      cause: other.info.id,
      step: other.motion.onsetStep,
      text: `dragged by ${nameOf(other.info.id, ctx.byId)} resting on it, which started to move at step ${other.motion.onsetStep}`,
    };
  }
  return undefined;
};

/** When nothing else explains the motion: a slide, or an unknown cause described by the motion itself. */
function slidOrUnknown(w: Work, ctx: Context): Reason {
  const m = w.motion;
  if (m.kind === 'slid') {
    const on = w.support.contacts.find((c) => c.by !== GROUND);
    const where = w.support.contacts.some((c) => c.by === GROUND) ? 'on the ground' : on ? `on ${nameOf(on.by, ctx.byId)}` : 'sideways';
    return {
      kind: 'slid',
      cause: on?.by ?? GROUND,
      text: `slid ${f2(Math.abs(m.dx))} ${m.dx < 0 ? 'left' : 'right'} ${where} with no hit or support change found`,
    };
  }
  return {
    kind: 'unknown',
    text: `${m.kind === 'still' ? 'moved' : m.kind} (dx ${f2(m.dx)}, dy ${f2(m.dy)}, turn ${f2((m.turn * 180) / Math.PI)}°) with no hit, support change or static cause found`,
  };
}

/** The candidate reasons in order of precedence: the first that applies is the body's reason. */
const REASON_CHECKS: readonly ReasonCheck[] = [
  leftTheWorld,
  destroyedByImpact,
  placedInside,
  thrownByExplosion,
  settledIntoGaps,
  hitByMovingBody,
  supportMovedOrDestroyed,
  staticIssue,
  draggedByLoad,
];

export function reasonFor(w: Work, ctx: Context): Reason {
  const onset = w.motion.onsetStep ?? w.motion.crossStep ?? w.lastStep;
  for (const check of REASON_CHECKS) {
    const reason = check(w, ctx, onset);
    if (reason) return reason;
  }
  return slidOrUnknown(w, ctx);
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
