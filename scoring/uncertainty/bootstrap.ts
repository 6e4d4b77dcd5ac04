/**
 * The bootstrap: R resamples (resample.ts), each drawn from its own seeded stream and scored the
 * official way; per team every resample's prompt and normalised score (for the intervals), how often
 * it took each rank and won, and for each pair of teams adjacent in the official ranking how often the
 * upper one stayed above and which letters move their gap the most.
 *
 * Letters decide a gap through its spread: a resample redraws every team × letter independently, and
 * a letter's weight depends on that letter's draws only, so the gap (Σ over letters of the character
 * score difference, / 26) has a variance that is the sum of the letters' own. A letter's share of that
 * sum says how much of the uncertainty of the pair's order it carries.
 */
import type { UncertaintyModel } from './model.js';
import { addRankShares, addWinShares, rankWork, tied, type WinnerRule } from './ranks.js';
import { MAX_DIGIT_BASE } from './random.js';
import { allocateDraws, allocateScores, identityInto, resampler, scoreInto } from './resample.js';

interface BootstrapOptions {
  resamples: number;
  seed: number;
  /** The official ranking, best first (team names of the model): the adjacent pairs. */
  ranking: readonly string[];
  /** Teams that can win (default all). */
  competing?: readonly string[];
  /** The zero-shot baseline the winner must beat (2025 rules). */
  mustBeat?: string;
  /** Prompt word counts: the rules' tie-break among equal scores. */
  words?: ReadonlyMap<string, number>;
}

/** One letter's part in the spread of a pair's gap. */
export interface LetterSpread {
  /** Model folder label ('' for a single competition). */
  competition: string;
  character: string;
  /** Variance of the character-score difference over the resamples. */
  variance: number;
  /** Mean difference (upper − lower team) over the resamples. */
  mean: number;
  /** The difference in the folder as it is (the official character scores, in doubles). */
  official: number;
}

interface PairOutcome {
  above: string;
  below: string;
  /** Share of resamples where `above` scores higher (a tie counts half). */
  probability: number;
  /** Letters by their share of the gap's variance, largest first. */
  letters: LetterSpread[];
}

export interface BootstrapResult {
  resamples: number;
  seed: number;
  /** The model's teams; every array below is indexed like it. */
  teams: readonly string[];
  /** samples[team][r]: prompt score (summed over model folders) and normalised score of resample r. */
  prompt: Float64Array[];
  normalized: Float64Array[];
  /** rank[team][rank − 1]: share of resamples. */
  rank: Float64Array[];
  /** Share of resamples each team wins. */
  win: Float64Array;
  /** Share of resamples without a winner (no eligible score above 0 / the baseline). */
  noWinner: number;
  pairs: PairOutcome[];
}

/**
 * Sums per pair × competition × letter of the difference minus its value in the folder as it is (a
 * shift that keeps Σx² − (Σx)²/n free of cancellation); variance and mean follow at the end.
 */
interface PairPlan {
  above: number;
  below: number;
  /** Per competition: the two teams' indices in it (−1 when absent). */
  local: Array<[number, number]>;
  shift: Float64Array;
  sum: Float64Array;
  squares: Float64Array;
}

function pairPlans(model: UncertaintyModel, ranking: readonly string[]): PairPlan[] {
  const index = (team: string) => model.teams.indexOf(team);
  const plans: PairPlan[] = [];
  const size = model.competitions.length * 26;
  for (let r = 0; r + 1 < ranking.length; r++) {
    const above = index(ranking[r] as string);
    const below = index(ranking[r + 1] as string);
    if (above < 0 || below < 0) continue;
    const local = model.competitions.map((c): [number, number] => [c.teams.indexOf(ranking[r] as string), c.teams.indexOf(ranking[r + 1] as string)]);
    plans.push({ above, below, local, shift: new Float64Array(size), sum: new Float64Array(size), squares: new Float64Array(size) });
  }
  return plans;
}

function addPairSample(plan: PairPlan, model: UncertaintyModel, character: readonly Float64Array[]): void {
  for (let m = 0; m < model.competitions.length; m++) {
    for (let l = 0; l < 26; l++) {
      const at = m * 26 + l;
      const d = letterDifference(plan, model, character, m, l) - (plan.shift[at] as number);
      plan.sum[at] = (plan.sum[at] as number) + d;
      plan.squares[at] = (plan.squares[at] as number) + d * d;
    }
  }
}

/** Character-score difference of a pair on letter l of competition m, from one scoring's character scores. */
function letterDifference(plan: PairPlan, model: UncertaintyModel, character: readonly Float64Array[], m: number, l: number): number {
  const p = model.competitions[m]?.teams.length ?? 0;
  const [a, b] = plan.local[m] as [number, number];
  const scores = character[m] as Float64Array;
  return (a >= 0 ? (scores[l * p + a] as number) : 0) - (b >= 0 ? (scores[l * p + b] as number) : 0);
}

function pairOutcome(plan: PairPlan, model: UncertaintyModel, above: number, resamples: number, official: readonly Float64Array[]): PairOutcome {
  const letters: LetterSpread[] = [];
  model.competitions.forEach((c, m) => {
    c.letters.forEach((letter, l) => {
      if (!letter) return;
      const at = m * 26 + l;
      const sum = plan.sum[at] as number;
      const variance = resamples > 1 ? Math.max(0, ((plan.squares[at] as number) - (sum * sum) / resamples) / (resamples - 1)) : 0;
      letters.push({ competition: c.label, character: letter.character, variance, mean: (plan.shift[at] as number) + sum / resamples, official: letterDifference(plan, model, official, m, l) });
    });
  });
  letters.sort((x, y) => y.variance - x.variance || x.competition.localeCompare(y.competition) || x.character.localeCompare(y.character));
  return { above: model.teams[plan.above] as string, below: model.teams[plan.below] as string, probability: above / resamples, letters };
}

export function runBootstrap(model: UncertaintyModel, options: BootstrapOptions): BootstrapResult {
  const { resamples, seed } = options;
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`resamples must be a whole number ≥ 1, got ${resamples}`);
  if (model.competitions.some((c) => c.trials < 2 || c.trials > MAX_DIGIT_BASE)) throw new RangeError(`the bootstrap needs 2 to ${MAX_DIGIT_BASE} trials per letter`);
  const p = model.teams.length;
  const work = rankWork(p, options.words ? model.teams.map((t) => options.words?.get(t)) : undefined);
  const all = Int32Array.from(model.teams, (_, i) => i);
  const competing = options.competing ? all.filter((i) => options.competing?.includes(model.teams[i] as string) === true) : all;
  const mustBeat = options.mustBeat !== undefined ? model.teams.indexOf(options.mustBeat) : -1;
  const rule: WinnerRule = { competing, ...(mustBeat >= 0 ? { mustBeat } : {}) };
  const eligible = new Int32Array(p);
  const prompt = model.teams.map(() => new Float64Array(resamples));
  const normalized = model.teams.map(() => new Float64Array(resamples));
  const rankCounts = new Float64Array(p * p);
  const win = new Float64Array(p);
  let noWinner = 0;
  const plans = pairPlans(model, options.ranking);
  const aboveCounts = new Float64Array(plans.length);

  const draws = allocateDraws(model);
  const scores = allocateScores(model);
  const resample = resampler(model);
  // The folder as it is, for which team is ahead on each letter.
  identityInto(model, draws);
  scoreInto(model, draws, scores);
  const official = scores.character.map((c) => Float64Array.from(c));
  for (const plan of plans) for (let m = 0; m < model.competitions.length; m++) for (let l = 0; l < 26; l++) plan.shift[m * 26 + l] = letterDifference(plan, model, official, m, l);
  for (let r = 0; r < resamples; r++) {
    resample(seed, r, draws, scores);
    for (let i = 0; i < p; i++) {
      (prompt[i] as Float64Array)[r] = scores.prompt[i] as number;
      (normalized[i] as Float64Array)[r] = scores.normalized[i] as number;
    }
    addRankShares(scores.normalized, all, rankCounts, work);
    if (!addWinShares(scores.normalized, rule, win, work, eligible)) noWinner += 1;
    for (let k = 0; k < plans.length; k++) {
      const plan = plans[k] as PairPlan;
      const a = scores.normalized[plan.above] as number;
      const b = scores.normalized[plan.below] as number;
      aboveCounts[k] = (aboveCounts[k] as number) + (tied(a, b) ? 0.5 : a > b ? 1 : 0);
      addPairSample(plan, model, scores.character);
    }
  }
  return {
    resamples,
    seed,
    teams: model.teams,
    prompt,
    normalized,
    rank: model.teams.map((_, i) => Float64Array.from(rankCounts.subarray(i * p, (i + 1) * p), (c) => c / resamples)),
    win: Float64Array.from(win, (c) => c / resamples),
    noWinner: noWinner / resamples,
    pairs: plans.map((plan, k) => pairOutcome(plan, model, aboveCounts[k] as number, resamples, official)),
  };
}
