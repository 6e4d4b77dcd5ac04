import type { SimEvent } from '../../bridge/frames.js';
import type { MotionKind } from './motion.js';
import { bodyName, f2, nameOf } from './reasons.js';
import type { Explanation, TimelineEntry, TimelineKind, Work } from './types.js';

/** The events of a collapse in time order, and its one-sentence summary. */

/**
 * Contact speeds at or above this are reported in the text timeline (every contact begin costs its
 * relative speed in health, so 1 is a fifth of a block's 5 health: `ABBlock._life`).
 */
export const NOTABLE_CONTACT_SPEED = 1;

const MOTION_VERB: Record<MotionKind, string> = {
  still: 'starts to move',
  fell: 'starts to fall',
  slid: 'starts to slide',
  tipped: 'starts to tip',
  rose: 'is lifted',
  destroyed: 'is destroyed',
};

export function buildTimeline(work: Work[], events: readonly SimEvent[], byId: Map<number, Work>): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  for (const w of work) {
    if (w.reason === null) continue;
    const name = bodyName(w.info);
    if (w.motion.onsetStep !== undefined && w.reason.kind !== 'settled') {
      entries.push({ step: w.motion.onsetStep, kind: 'onset', ids: [w.info.id], text: `${name} ${MOTION_VERB[w.motion.kind]} — ${w.reason.text}` });
    }
    if (w.motion.crossStep !== undefined) {
      entries.push({
        step: w.motion.crossStep,
        kind: 'cross',
        ids: [w.info.id],
        text: `${name} passes the movement threshold (${w.motion.kind === 'still' ? 'moved' : w.motion.kind}${w.reason.kind === 'settled' ? ', settling' : ''})`,
      });
    }
  }
  for (const e of events) {
    if (e.kind === 'contact' && e.relativeSpeed >= NOTABLE_CONTACT_SPEED) {
      const ids = [e.a, e.b].filter((i) => i >= 0);
      entries.push({
        step: e.step,
        kind: 'contact',
        ids,
        text: `${nameOf(e.a, byId)} hits ${nameOf(e.b, byId)} at ${f2(e.relativeSpeed)} u/s (${f2(e.relativeSpeed)} damage)`,
      });
    } else if (e.kind === 'destroyed') {
      const w = byId.get(e.id);
      entries.push({
        step: e.step,
        kind: 'destroyed',
        ids: [e.id],
        text: `${nameOf(e.id, byId)} destroyed (${f2(w?.damage ?? 0)} damage in ${w?.hits ?? 0} hit(s)); it falls with its collider off until removed`,
      });
    } else if (e.kind === 'removed') {
      entries.push({
        step: e.step,
        kind: 'removed',
        ids: [e.id],
        text: `${nameOf(e.id, byId)} removed (${e.reason === 'death' ? 'after its death' : 'out of the world'})`,
      });
    } else if (e.kind === 'explosion') {
      entries.push({ step: e.step, kind: 'explosion', ids: [e.id], text: `${nameOf(e.id, byId)} explodes at (${f2(e.x)}, ${f2(e.y)})` });
    }
  }
  const order: Record<TimelineKind, number> = { explosion: 0, contact: 1, destroyed: 2, removed: 3, onset: 4, cross: 5 };
  entries.sort((a, b) => a.step - b.step || order[a.kind] - order[b.kind] || (a.ids[0] ?? 0) - (b.ids[0] ?? 0));
  return entries;
}

export function summarise(e: Explanation, byId: Map<number, Work>): string {
  const verdict = `${e.moving} of ${e.counted} moved (≥ ${e.threshold}), stability ${e.score.toFixed(4)}`;
  if (e.firstMover === null) return `${verdict}; nothing moved.`;
  const first = byId.get(e.firstMover)!;
  const when = `step ${first.motion.onsetStep} (${((first.motion.onsetStep ?? 0) * e.dt).toFixed(2)} s)`;
  let text = `${verdict}; first mover ${bodyName(first.info)} at ${when}: ${first.reason!.text}`;
  if (e.origin !== null && e.origin !== e.firstMover) text += `; it starts at ${nameOf(e.origin, byId)}`;
  return `${text}.`;
}
