import type { Perturbation } from '../bridge/engine.js';
import { fnv1a } from '../bridge/headless/order.js';

/**
 * Knife-edge verdicts: how a level's stability verdict holds up when the simulation is re-run under tiny
 * perturbations of the kind that make Unity's own runs of one level differ — the bodies' creation order
 * (Unity's trials share one long-lived physics world, so broadphase and contact order change between
 * them), creation positions within 1e-4 units (float noise of the level loader's arithmetic), and the
 * contact solver's warm start (impulses carried over, or not, from the previous step).
 *
 * A perturbed run is one trial (no image) judged by the same rule as the official one; it is *stable* when
 * no counted object moved (score 1). The official verdict (up to 3 trials, best score) is never changed:
 * this only tells how far a verdict is from flipping. A verdict is *fragile* when fewer than 90% of the
 * perturbed runs agree with it (an officially stable level that stands in < 90% of the runs; an officially
 * moving level that stands in > 10% of them).
 */
/** 1e-4 units: position noise far below the 0.1 movement threshold and below Box2D's 0.005 linear slop. */
export const ROBUSTNESS_POSITION_NOISE = 1e-4;

/** Agreement with the official verdict below which a verdict is fragile (90%, the definition). */
export const FRAGILE_AGREEMENT = 0.9;

/**
 * Run `k` (0-based) of a level: seeded by the level's own seed (its XML text) and k, so the same level gets
 * the same runs on any machine and in any order. Every run shuffles the creation order and moves the
 * positions; every other run has warm starting off, so half the runs see each solver start.
 */
export function perturbationFor(levelSeed: number, k: number, positionNoise = ROBUSTNESS_POSITION_NOISE): Perturbation {
  return { seed: fnv1a(`robustness:${levelSeed}:${k}`), shuffleOrder: true, positionNoise, warmStarting: k % 2 === 0 };
}

export interface LevelRobustness {
  runs: number;
  /** Runs in which no counted object moved. */
  stableRuns: number;
  /** stableRuns / runs. */
  stableShare: number;
  /** Moving objects over the runs. */
  moving: { min: number; max: number; mean: number };
  /** The official verdict (best of up to 3 trials = 1). */
  officialStable: boolean;
  /** Share of the runs whose verdict is the official one. */
  agreement: number;
  fragile: boolean;
}

/** From the moving count of each perturbed run and the official score (best of up to 3 trials). */
export function summarizeRobustness(counts: readonly number[], officialScore: number): LevelRobustness {
  if (counts.length === 0) throw new RangeError('summarizeRobustness needs at least one run');
  const stableRuns = counts.filter((m) => m === 0).length;
  const officialStable = officialScore >= 1;
  const stableShare = stableRuns / counts.length;
  const agreement = officialStable ? stableShare : 1 - stableShare;
  return {
    runs: counts.length,
    stableRuns,
    stableShare,
    moving: { min: Math.min(...counts), max: Math.max(...counts), mean: counts.reduce((a, b) => a + b, 0) / counts.length },
    officialStable,
    agreement,
    fragile: agreement < FRAGILE_AGREEMENT,
  };
}

/** "85% (17/20)": the share of stable runs as the report and CSV show it. */
export function formatStableShare(r: LevelRobustness): string {
  return `${Math.round(100 * r.stableShare)}% (${r.stableRuns}/${r.runs})`;
}

/** "0–3": the range of the moving count. */
export function formatMovingRange(r: LevelRobustness): string {
  return r.moving.min === r.moving.max ? String(r.moving.min) : `${r.moving.min}–${r.moving.max}`;
}
