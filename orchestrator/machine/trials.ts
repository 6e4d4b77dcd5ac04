import { combineTrials, needsAnotherTrial, type TrialStability } from '../../scoring/stability.js';
import type { LevelStability, TrialRecord } from './types.js';

/**
 * The evaluator's trial bookkeeping (up to `trials` runs, stop once a run scores 1.0, best score,
 * counts of the last run: `BaseStabilityEvaluator.IE_Evaluate`, reference/science-birds-evaluator.md §4)
 * is H2's pure code in scoring/stability.ts; these adapters give the machine's guards and actions
 * the shapes they read.
 */
type Counts = Pick<TrialRecord, 'score' | 'startingObjects' | 'movingObjects'> & { moving?: number[] };

/** The tracker's own shape and key order (`StabilityTracker.result()`), as cached by the simulate stage. */
export const asTrialStability = (t: Counts): TrialStability => ({
  startingObjects: t.startingObjects,
  movingObjects: t.movingObjects,
  score: t.score,
  moving: t.moving ?? [],
});

/** True when no further trial runs after the trials so far (the last one included). */
export function trialStops(trials: readonly Counts[], maxTrials: number): boolean {
  return !needsAnotherTrial(trials.map(asTrialStability), maxTrials);
}

/** The level's result over the trials that ran, in order. */
export function levelStability(trials: readonly TrialRecord[]): LevelStability {
  return combineTrials(trials.map(asTrialStability));
}
