/**
 * The bootstrap: R resamples (resample.ts), each drawn from its own seeded stream and scored the
 * official way; per team every resample's prompt and normalised score (for the intervals), how often
 * it took each rank and won, and for each pair of teams adjacent in the official ranking how often the
 * upper one stayed above and which letters move their gap the most. With several competitions (the
 * 2025 model folders) the same resamples also give each competition's own ranking (its prompt scores
 * normalised by its own total, as each model folder's official files rank), for its result folder.
 *
 * Letters decide a gap through its spread: a resample redraws every team × letter independently, and
 * a letter's weight depends on that letter's draws only, so the gap (Σ over letters of the character
 * score difference, / 26) has a variance that is the sum of the letters' own. A letter's share of that
 * sum says how much of the uncertainty of the pair's order it carries.
 *
 * Two ways through, with the same numbers (tested): `runBootstrap` knows the official rankings before
 * it starts and sums the pairs' letters as it goes; `sampleBootstrap` needs no ranking (so it can run
 * while the official scoring runs, orchestrator/stages/uncertainty.ts) and keeps every resample's
 * character scores, from which `finishBootstrap` sums the pairs once the rankings are known.
 */
import type { CompetitionModel, UncertaintyModel } from './model.js';
import { MAX_DIGIT_BASE } from './random.js';
import { addRankShares, addWinShares, type RankWork, rankWork, tied, type WinnerRule } from './ranks.js';
import { allocateDraws, allocateScores, identityInto, normalizeInto, type ResampleScores, resampler, scoreInto } from './resample.js';

const LETTER_COUNT = 26;

/** Who can win a ranking, and its tie-break. */
interface RankingRules {
  /** Teams that can win (default all). */
  competing?: readonly string[];
  /** The zero-shot baseline the winner must beat (2025 rules). */
  mustBeat?: string;
  /** Prompt word counts: the rules' tie-break among equal scores. */
  words?: ReadonlyMap<string, number>;
}

export interface SampleOptions extends RankingRules {
  resamples: number;
  seed: number;
  /** With several competitions: each one's own ranking rules, by competition (the per-model rankings). */
  perCompetition?: readonly RankingRules[];
}

/** The official rankings, best first (team names): the adjacent pairs. */
export interface Rankings {
  ranking: readonly string[];
  /** By competition, with `perCompetition`. */
  perCompetitionRanking?: ReadonlyArray<readonly string[]>;
}

type BootstrapOptions = SampleOptions & Rankings;

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
  /** Trials per letter (the smallest over the competitions): the intervals' small-T correction (summary.ts). */
  trials: number;
  /** The ranking's teams; every array below is indexed like it. */
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
  /** With `perCompetition`: each competition's own ranking, from the same resamples. */
  perCompetition?: BootstrapResult[];
}

/** One ranking's per-resample figures, before its pairs (`finishBootstrap` adds those). */
interface RankingSamples {
  teams: readonly string[];
  prompt: Float64Array[];
  normalized: Float64Array[];
  /** counts[team·P + rank − 1]: resamples (tied places shared). */
  rankCounts: Float64Array;
  winCounts: Float64Array;
  noWinner: number;
}

export interface Samples {
  resamples: number;
  seed: number;
  overall: RankingSamples;
  /** With `perCompetition`, by competition. */
  perCompetition?: RankingSamples[];
  /** [competition]: every resample's character scores, resample r's 26 × P block at r·26·P. */
  character: Float64Array[];
}

/** The samples of one ranking, filled resample by resample. */
class RankingSampler {
  readonly samples: RankingSamples;
  private readonly work: RankWork;
  private readonly all: Int32Array;
  private readonly rule: WinnerRule;
  private readonly eligible: Int32Array;

  constructor(teams: readonly string[], resamples: number, rules: RankingRules) {
    const p = teams.length;
    this.samples = {
      teams,
      prompt: teams.map(() => new Float64Array(resamples)),
      normalized: teams.map(() => new Float64Array(resamples)),
      rankCounts: new Float64Array(p * p),
      winCounts: new Float64Array(p),
      noWinner: 0,
    };
    this.work = rankWork(p, rules.words ? teams.map((t) => rules.words?.get(t)) : undefined);
    this.all = Int32Array.from(teams, (_, i) => i);
    const competing = rules.competing ? this.all.filter((i) => rules.competing?.includes(teams[i] as string) === true) : this.all;
    const mustBeat = rules.mustBeat !== undefined ? teams.indexOf(rules.mustBeat) : -1;
    this.rule = { competing, ...(mustBeat >= 0 ? { mustBeat } : {}) };
    this.eligible = new Int32Array(p);
  }

  add(r: number, prompt: Float64Array, normalized: Float64Array): void {
    const { samples } = this;
    for (let i = 0; i < samples.teams.length; i++) {
      (samples.prompt[i] as Float64Array)[r] = prompt[i] as number;
      (samples.normalized[i] as Float64Array)[r] = normalized[i] as number;
    }
    addRankShares(normalized, this.all, samples.rankCounts, this.work);
    if (!addWinShares(normalized, this.rule, samples.winCounts, this.work, this.eligible)) samples.noWinner += 1;
  }
}

function checkOptions(model: UncertaintyModel, options: SampleOptions): void {
  const { resamples } = options;
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`resamples must be a whole number ≥ 1, got ${resamples}`);
  if (model.competitions.some((c) => c.trials < 2 || c.trials > MAX_DIGIT_BASE))
    throw new RangeError(`the bootstrap needs 2 to ${MAX_DIGIT_BASE} trials per letter`);
  if (options.perCompetition && options.perCompetition.length !== model.competitions.length)
    throw new RangeError('perCompetition needs one entry per competition');
}

/** Every resample drawn and scored, its rankings sampled; `each` sees its scores (the pairs' letters). */
function sample(model: UncertaintyModel, options: SampleOptions, each: (r: number, scores: ResampleScores) => void): Omit<Samples, 'character'> {
  checkOptions(model, options);
  const { resamples, seed } = options;
  const overall = new RankingSampler(model.teams, resamples, options);
  const own = options.perCompetition?.map((rules, m) => new RankingSampler((model.competitions[m] as CompetitionModel).teams, resamples, rules));
  const ownNormalized = model.competitions.map((c) => new Float64Array(c.teams.length));
  const draws = allocateDraws(model);
  const scores = allocateScores(model);
  const resample = resampler(model);
  for (let r = 0; r < resamples; r++) {
    resample(seed, r, draws, scores);
    overall.add(r, scores.prompt, scores.normalized);
    own?.forEach((sampler, m) => {
      normalizeInto(scores.competitionPrompt[m] as Float64Array, ownNormalized[m] as Float64Array);
      sampler.add(r, scores.competitionPrompt[m] as Float64Array, ownNormalized[m] as Float64Array);
    });
    each(r, scores);
  }
  return { resamples, seed, overall: overall.samples, ...(own ? { perCompetition: own.map((s) => s.samples) } : {}) };
}

/**
 * Sums per pair × competition × letter of the difference minus its value in the folder as it is (a
 * shift that keeps Σx² − (Σx)²/n free of cancellation); variance and mean follow at the end.
 */
interface PairPlan {
  /** Indices in the ranking's teams. */
  above: number;
  below: number;
  /** Per competition m: the two teams' indices in it at [2m] and [2m + 1] (−1 when absent, or when the ranking is another competition's). */
  local: Int32Array;
  shift: Float64Array;
  sum: Float64Array;
  squares: Float64Array;
}

/** The official character scores in doubles (the folder as it is), by competition. */
function officialCharacters(model: UncertaintyModel): Float64Array[] {
  const draws = allocateDraws(model);
  const scores = allocateScores(model);
  identityInto(model, draws);
  scoreInto(model, draws, scores);
  return scores.character;
}

/** The adjacent pairs of a ranking of `teams`, over every competition or (`only`) one. */
function pairPlans(
  model: UncertaintyModel,
  teams: readonly string[],
  ranking: readonly string[],
  official: readonly Float64Array[],
  only?: number,
): PairPlan[] {
  const plans: PairPlan[] = [];
  const size = model.competitions.length * LETTER_COUNT;
  for (let r = 0; r + 1 < ranking.length; r++) {
    const above = teams.indexOf(ranking[r] as string);
    const below = teams.indexOf(ranking[r + 1] as string);
    if (above < 0 || below < 0) continue;
    const local = Int32Array.from(
      model.competitions.flatMap((c, m) =>
        only === undefined || only === m ? [c.teams.indexOf(ranking[r] as string), c.teams.indexOf(ranking[r + 1] as string)] : [-1, -1],
      ),
    );
    const plan: PairPlan = { above, below, local, shift: new Float64Array(size), sum: new Float64Array(size), squares: new Float64Array(size) };
    for (let m = 0; m < model.competitions.length; m++)
      for (let l = 0; l < LETTER_COUNT; l++) plan.shift[m * LETTER_COUNT + l] = letterDifference(plan, model, official, m, l);
    plans.push(plan);
  }
  return plans;
}

/**
 * Adds one scoring's letter differences of a pair, read from character scores stored at `offset` in
 * each competition's array (a loop over typed arrays: it runs for every pair of every resample).
 */
function addPairSample(plan: PairPlan, model: UncertaintyModel, character: readonly Float64Array[], resample: number): void {
  const { shift, sum, squares, local } = plan;
  for (let m = 0; m < model.competitions.length; m++) {
    const a = local[2 * m] as number;
    const b = local[2 * m + 1] as number;
    if (a < 0 && b < 0) continue;
    const p = (model.competitions[m] as CompetitionModel).teams.length;
    const scores = character[m] as Float64Array;
    const offset = resample * LETTER_COUNT * p;
    for (let l = 0, at = m * LETTER_COUNT; l < LETTER_COUNT; l++, at++) {
      const row = offset + l * p;
      const d = (a >= 0 ? (scores[row + a] as number) : 0) - (b >= 0 ? (scores[row + b] as number) : 0) - (shift[at] as number);
      sum[at] = (sum[at] as number) + d;
      squares[at] = (squares[at] as number) + d * d;
    }
  }
}

/** Character-score difference of a pair on letter l of competition m, from one scoring's character scores. */
function letterDifference(plan: PairPlan, model: UncertaintyModel, character: readonly Float64Array[], m: number, l: number): number {
  const p = model.competitions[m]?.teams.length ?? 0;
  const a = plan.local[2 * m] as number;
  const b = plan.local[2 * m + 1] as number;
  const scores = character[m] as Float64Array;
  return (a >= 0 ? (scores[l * p + a] as number) : 0) - (b >= 0 ? (scores[l * p + b] as number) : 0);
}

function pairOutcome(plan: PairPlan, model: UncertaintyModel, samples: RankingSamples, resamples: number, official: readonly Float64Array[]): PairOutcome {
  const letters: LetterSpread[] = [];
  model.competitions.forEach((c, m) => {
    if ((plan.local[2 * m] as number) < 0 && (plan.local[2 * m + 1] as number) < 0) return;
    c.letters.forEach((letter, l) => {
      if (!letter) return;
      const at = m * LETTER_COUNT + l;
      const sum = plan.sum[at] as number;
      const variance = resamples > 1 ? Math.max(0, ((plan.squares[at] as number) - (sum * sum) / resamples) / (resamples - 1)) : 0;
      letters.push({
        competition: c.label,
        character: letter.character,
        variance,
        mean: (plan.shift[at] as number) + sum / resamples,
        official: letterDifference(plan, model, official, m, l),
      });
    });
  });
  letters.sort((x, y) => y.variance - x.variance || x.competition.localeCompare(y.competition) || x.character.localeCompare(y.character));
  const above = samples.normalized[plan.above] as Float64Array;
  const below = samples.normalized[plan.below] as Float64Array;
  let count = 0;
  for (let r = 0; r < resamples; r++) count += tied(above[r] as number, below[r] as number) ? 0.5 : (above[r] as number) > (below[r] as number) ? 1 : 0;
  return { above: samples.teams[plan.above] as string, below: samples.teams[plan.below] as string, probability: count / resamples, letters };
}

function resultOf(samples: RankingSamples, resamples: number, seed: number, trials: number, pairs: PairOutcome[]): BootstrapResult {
  const p = samples.teams.length;
  return {
    resamples,
    seed,
    trials,
    teams: samples.teams,
    prompt: samples.prompt,
    normalized: samples.normalized,
    rank: samples.teams.map((_, i) => Float64Array.from(samples.rankCounts.subarray(i * p, (i + 1) * p), (c) => c / resamples)),
    win: Float64Array.from(samples.winCounts, (c) => c / resamples),
    noWinner: samples.noWinner / resamples,
    pairs,
  };
}

/** The rankings' pair plans: the overall one, then each competition's own (with `perCompetition`). */
function allPlans(
  model: UncertaintyModel,
  rankings: Rankings,
  perCompetition: boolean,
): { overall: PairPlan[]; own: PairPlan[][] | undefined; official: Float64Array[] } {
  const official = officialCharacters(model);
  const overall = pairPlans(model, model.teams, rankings.ranking, official);
  if (!perCompetition) return { overall, own: undefined, official };
  const own = model.competitions.map((c, m) => pairPlans(model, c.teams, rankings.perCompetitionRanking?.[m] ?? [], official, m));
  return { overall, own, official };
}

function finish(model: UncertaintyModel, samples: Omit<Samples, 'character'>, plans: ReturnType<typeof allPlans>): BootstrapResult {
  const { resamples, seed } = samples;
  const trials = Math.min(...model.competitions.map((c) => c.trials));
  const outcomes = (list: readonly PairPlan[], of: RankingSamples) => list.map((plan) => pairOutcome(plan, model, of, resamples, plans.official));
  const result = resultOf(samples.overall, resamples, seed, trials, outcomes(plans.overall, samples.overall));
  const own = samples.perCompetition;
  if (own && plans.own) result.perCompetition = own.map((s, m) => resultOf(s, resamples, seed, trials, outcomes(plans.own?.[m] ?? [], s)));
  return result;
}

/** The bootstrap with the official rankings known: the pairs' letters summed as the resamples are scored. */
export function runBootstrap(model: UncertaintyModel, options: BootstrapOptions): BootstrapResult {
  const plans = allPlans(model, options, options.perCompetition !== undefined);
  const every = [...plans.overall, ...(plans.own ?? []).flat()];
  const samples = sample(model, options, (_, scores) => {
    for (const plan of every) addPairSample(plan, model, scores.character, 0);
  });
  return finish(model, samples, plans);
}

/** Doubles `sampleBootstrap` keeps per resample (every competition's 26 × P character scores). */
export function storedPerResample(model: UncertaintyModel): number {
  return model.competitions.reduce((n, c) => n + LETTER_COUNT * c.teams.length, 0);
}

/** The resamples before any ranking is known, every resample's character scores kept (`storedPerResample` doubles each). */
export function sampleBootstrap(model: UncertaintyModel, options: SampleOptions): Samples {
  const character = model.competitions.map((c) => new Float64Array(Math.max(0, options.resamples) * LETTER_COUNT * c.teams.length));
  const rest = sample(model, options, (r, scores) => {
    scores.character.forEach((scoresOf, m) => (character[m] as Float64Array).set(scoresOf, r * scoresOf.length));
  });
  return { ...rest, character };
}

/** `sampleBootstrap`'s samples with the official rankings: the result `runBootstrap` gives. */
export function finishBootstrap(model: UncertaintyModel, samples: Samples, rankings: Rankings): BootstrapResult {
  const plans = allPlans(model, rankings, samples.perCompetition !== undefined);
  for (const plan of [...plans.overall, ...(plans.own ?? []).flat()]) {
    for (let r = 0; r < samples.resamples; r++) addPairSample(plan, model, samples.character, r);
  }
  return finish(model, samples, plans);
}
