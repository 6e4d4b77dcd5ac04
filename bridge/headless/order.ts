import { decodeOrder, type ObjectPlan } from './objects.js';

/**
 * Body creation order per trial. Unity's evaluator runs up to 3 trials of a level in one long-lived
 * Box2D world (scenes are loaded additively), so broadphase and contact order differ between trials
 * and chaotic collapses diverge. A deterministic engine reproduces "a different run" by changing the
 * creation order, which sets planck's body, fixture and contact order: trial 1 is DecodeLevel's order,
 * trial 2 its reverse, trial 3 and later a shuffle seeded by the level's content and the trial number
 * (reference/headless-fidelity.md: this bookkeeping reached 150/150 on the evaluator's own levels).
 */
export function creationOrder(plans: readonly ObjectPlan[], trial: number, seed: number): number[] {
  const order = decodeOrder(plans);
  if (trial <= 1) return order;
  if (trial === 2) return order.reverse();
  const random = mulberry32((seed ^ Math.imul(trial, 0x9e3779b1)) >>> 0);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return order;
}

/** A perturbed run's creation order (`Perturbation.shuffleOrder`): DecodeLevel's order shuffled by `seed`. */
export function shuffledOrder(plans: readonly ObjectPlan[], seed: number): number[] {
  const order = decodeOrder(plans);
  const random = mulberry32(seed);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return order;
}

/** mulberry32: a tiny seeded PRNG (no Math.random anywhere in the simulation). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a 32-bit hash of a string: the level seed (same XML text → same trials everywhere). */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
