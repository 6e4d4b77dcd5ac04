/**
 * The official scoring chain (chatgpt4pcg/scoring-and-ranking-script `src/score.ts`, `src/index.ts`;
 * reference/official-pipeline.md §7), with the trial join by trial id of the 2024-02-06 fix:
 *
 * - `w_sta(C) = max(1 − Σ_teams Σ_all raws score / (P·T), 1/26)`, `w_sim` the same over the similarity
 *   `trials`, `w_div(C) = max(1 − Σ_teams diversityRate / P, 1/26)`; weight = w_sta·w_sim·w_div
 *   (2023: w_sta·w_sim). The sums take every entry of every file, as the script does, even entries
 *   whose trial index is a duplicate or beyond T. P counts every team folder.
 * - trial i (1..T): sta / sim = the first entry whose trial index is i, else 0;
 *   `trial = weight·sta·sim`; `character = (Σ trial / T)·div` (2023: without ·div);
 *   `prompt = Σ character / 26`; `competition = Σ prompt`; `normalised = prompt / competition · 100`
 *   (divisor 1 when competition is 0).
 * - Every division to 20 decimals HALF_UP; +, − and × exact (decimal.ts).
 *
 * Values that are not finite numbers are taken as 0 here (checks.ts reports them).
 */
import { Decimal, decimalOf, ONE, ZERO } from './decimal.js';
import { CHARACTERS, DEFAULT_TRIALS, type RuleSet } from './rules.js';
import type { CharacterInput, CharacterScore, CharacterWeight, RankedTeam, ScoreInput, ScoreResult, TrialScore, TrialValue } from './types.js';

function finite(value: number | undefined): number {
  return value !== undefined && Number.isFinite(value) ? value : 0;
}

function sumAll(values: readonly TrialValue[] | undefined): Decimal {
  let sum = ZERO;
  for (const v of values ?? []) sum = sum.plus(decimalOf(finite(v.value)));
  return sum;
}

function cell(input: ScoreInput, team: string, character: string): CharacterInput | undefined {
  return input.inputs.get(team)?.get(character);
}

/** The weights of every character over all teams (`getWeights`). */
export function computeWeights(input: ScoreInput, rules: RuleSet): CharacterWeight[] {
  const p = input.teams.length;
  const t = input.trials ?? DEFAULT_TRIALS;
  if (p === 0) throw new RangeError('no teams to score');
  const floor = ONE.dividedBy(CHARACTERS.length);
  return CHARACTERS.map((character) => {
    let stability = ZERO;
    let similarity = ZERO;
    let diversity = ZERO;
    for (const team of input.teams) {
      const c = cell(input, team, character);
      stability = stability.plus(sumAll(c?.stability));
      similarity = similarity.plus(sumAll(c?.similarity));
      diversity = diversity.plus(decimalOf(finite(c?.diversityRate)));
    }
    const weightStability = Decimal.max(ONE.minus(stability.dividedBy(p * t)), floor);
    const weightSimilarity = Decimal.max(ONE.minus(similarity.dividedBy(p * t)), floor);
    const weightDiversity = rules.diversity ? Decimal.max(ONE.minus(diversity.dividedBy(p)), floor) : ONE;
    const weight = rules.diversity ? weightStability.times(weightSimilarity).times(weightDiversity) : weightStability.times(weightSimilarity);
    return { character, weight, weightStability, weightSimilarity, weightDiversity };
  });
}

/** The value of trial `i`: the first entry with that index, in file order (`Array.find`), else 0. */
function trialValue(values: readonly TrialValue[] | undefined, i: number): Decimal {
  const found = values?.find((v) => v.trial === i);
  return found ? decimalOf(finite(found.value)) : ZERO;
}

export interface RankingOptions {
  /**
   * Word counts of the prompts, used to order teams with equal scores (the rules' tie-break: the
   * shorter prompt first). Teams without a count keep their folder order among equals.
   */
  words?: ReadonlyMap<string, number>;
}

/**
 * Orders teams by score, highest first. Equal scores: shorter prompt first when both word counts are
 * known, else folder order. (The official comparator leaves the order of equal scores to the sort
 * implementation; ranks are 1..P without shared ranks, as the official file has them.)
 */
export function rankTeams(teams: readonly string[], scores: ReadonlyMap<string, Decimal>, options: RankingOptions = {}): string[] {
  const index = new Map(teams.map((team, i) => [team, i]));
  return [...teams].sort((a, b) => {
    const sa = scores.get(a) ?? ZERO;
    const sb = scores.get(b) ?? ZERO;
    const byScore = sb.comparedTo(sa) ?? 0;
    if (byScore !== 0) return byScore;
    const wa = options.words?.get(a);
    const wb = options.words?.get(b);
    if (wa !== undefined && wb !== undefined && wa !== wb) return wa - wb;
    return (index.get(a) ?? 0) - (index.get(b) ?? 0);
  });
}

/** `prompt / divisor · 100`, divisor 1 when the total is 0 (`getNormalizedPromptScores`). */
export function normalize(score: Decimal, total: Decimal): Decimal {
  const divisor = total.isZero() ? ONE : total;
  return score.dividedBy(divisor).times(100);
}

/** The whole chain for one competition folder (one model). */
export function scoreCompetition(input: ScoreInput, rules: RuleSet, options: RankingOptions = {}): ScoreResult {
  const t = input.trials ?? DEFAULT_TRIALS;
  const weights = computeWeights(input, rules);
  const weightOf = new Map(weights.map((w) => [w.character, w.weight]));
  const trials: TrialScore[] = [];
  const characters: CharacterScore[] = [];
  const prompts = new Map<string, Decimal>();

  for (const team of input.teams) {
    let promptSum = ZERO;
    for (const character of CHARACTERS) {
      const c = cell(input, team, character);
      const weight = weightOf.get(character) ?? ZERO;
      const diversity = rules.diversity ? decimalOf(finite(c?.diversityRate)) : ZERO;
      let trialSum = ZERO;
      let stabilitySum = ZERO;
      let similaritySum = ZERO;
      for (let i = 1; i <= t; i++) {
        const stability = trialValue(c?.stability, i);
        const similarity = trialValue(c?.similarity, i);
        const trialScore = weight.times(stability).times(similarity);
        trials.push({ team, character, trial: i, trialScore, stability, similarity, diversity });
        trialSum = trialSum.plus(trialScore);
        stabilitySum = stabilitySum.plus(stability);
        similaritySum = similaritySum.plus(similarity);
      }
      const mean = trialSum.dividedBy(t);
      const characterScore = rules.diversity ? mean.times(diversity) : mean;
      characters.push({
        team,
        character,
        characterScore,
        averageStability: stabilitySum.dividedBy(t),
        averageSimilarity: similaritySum.dividedBy(t),
        diversity,
      });
      promptSum = promptSum.plus(characterScore);
    }
    prompts.set(team, promptSum.dividedBy(CHARACTERS.length));
  }

  let competitionScore = ZERO;
  for (const score of prompts.values()) competitionScore = competitionScore.plus(score);
  const normalized = new Map([...prompts].map(([team, score]) => [team, normalize(score, competitionScore)]));
  const ranking: RankedTeam[] = rankTeams(input.teams, normalized, options).map((team, i) => ({
    team,
    promptScore: prompts.get(team) ?? ZERO,
    normalizedPromptScore: normalized.get(team) ?? ZERO,
    rank: i + 1,
  }));
  return { rules, teams: input.teams, trialsPerCharacter: t, weights, trials, characters, prompts, competitionScore, ranking };
}
