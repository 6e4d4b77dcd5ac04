import type { ReasonKind, Work } from './types.js';

/** The first mover of a collapse and the chain of causes behind a body. */

/** Reasons that are a body's own (a static issue of the level), not caused by another body. */
const INTRINSIC: ReadonlySet<ReasonKind> = new Set(['overlap', 'overhang', 'unsupported']);

/**
 * The first mover: the block that started the failure. Among the bodies that failed (passed the
 * threshold, were judged moving, or died), each is ranked by the onset of the chain of causes it
 * belongs to (a block carried by a tipping support belongs to that support's chain); a body that is
 * its own cause comes before the ones it carries, then one with a static cause of its own (overhang,
 * nothing under it), then the lowest (the pivot of a tipping stack rather than its top). Bodies that
 * only settled into the start gaps come last: sinking is not what starts a collapse.
 */
export function pickFirstMover(work: Work[], byId: Map<number, Work>, moved: (w: Work) => boolean): Work | undefined {
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
export function followCauses(start: Work, byId: Map<number, Work>): Work {
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
