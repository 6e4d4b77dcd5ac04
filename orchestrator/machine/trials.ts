import type { LevelStability, TrialRecord } from './types.js';

/**
 * The evaluator's trial bookkeeping as the machine's guards and actions need it.
 * Source: `BaseStabilityEvaluator.IE_Evaluate` (reference/science-birds-evaluator.md §4): up to
 * `trials` runs, stop early once a run scores 1.0, keep the maximum score, and report the object
 * counts of the last run (not the best one).
 */

/** True when no further trial runs after this one. */
export function trialStops(score: number, trial: number, maxTrials: number): boolean {
  return score >= 1 || trial >= maxTrials;
}

/** The level's result over the trials that ran, in order. */
export function levelStability(trials: readonly TrialRecord[]): LevelStability {
  const last = trials.at(-1);
  if (!last) throw new RangeError('a level result needs at least one trial');
  return {
    score: Math.max(...trials.map((t) => t.score)),
    startingObjects: last.startingObjects,
    movingObjects: last.movingObjects,
    trialsRun: trials.length,
  };
}
