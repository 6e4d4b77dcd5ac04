import { ALPHABET } from '../../orchestrator/layout/competition.js';

/**
 * The per-trial seed rule: `seed = master + 26 × (trial − 1) + letterIndex` (A = 0 … Z = 25), so with
 * the 2025 master seed 6280 trial 1 uses 6280 (A) … 6305 (Z), trial 2 uses 6306 … 6331, and trial 10
 * of Z uses 6539. Every call of a trial (each turn of a chat script, each call of a program) uses the
 * trial's seed.
 *
 * Why this rule: the seed of a trial depends only on (master, letter, trial), never on which models,
 * letters or trial counts one invocation happens to run — running `--chars A-C` today and `--chars D-Z`
 * tomorrow, or one model at a time, gives the same seeds as one big run; and every model sees the same
 * seed for the same (letter, trial), so model comparisons are paired. The 2025 organisers say only
 * "Ollama starting seed 6280" (2025-llms4pcg result page); the llms4pcg 2.0.1 package itself sends no
 * seed (its `seed = 0 + trial_number` line is commented out), so the exact official per-call seeds
 * cannot be reproduced and this rule is sbeval's own, documented choice.
 */
export const OFFICIAL_MASTER_SEED_2025 = 6280;

export function trialSeed(master: number, character: string, trial: number): number {
  const letter = ALPHABET.indexOf(character);
  if (letter < 0) throw new RangeError(`character ${character} is not A-Z`);
  if (!Number.isInteger(trial) || trial < 1) throw new RangeError(`trial ${trial} is not a positive integer`);
  if (!Number.isInteger(master)) throw new RangeError(`master seed ${master} is not an integer`);
  return master + ALPHABET.length * (trial - 1) + letter;
}
