/**
 * What the bootstrap means for the reader: per team the 95 % interval of its prompt score and
 * normalised score, a simultaneous 95 % interval of its normalised score (all teams' hold together),
 * the set of ranks those allow, its rank shares, and one sentence an organizer can quote — "GridThinkers
 * ranks first in 97 % of 2000 resamples" when one team wins in at least 95 % of them, else "no clear
 * winner: GridThinkers 54 %, BlockSmith 46 %", followed by the winner's 95 % confidence set ("at 95 %
 * the winner is one of GridThinkers, BlockSmith") — plus, for each pair adjacent in the official
 * ranking, how often the upper team stays above and which letters move their gap the most.
 *
 * Shares of resamples are bootstrap proportions: how often a rank comes up when the trials are redrawn,
 * not a posterior probability of that rank.
 *
 * Intervals: the resamples' percentiles as distances from the resamples' mean, widened by √(T/(T−1))
 * and placed about the official score, on the log scale when the official score and every resample are
 * above 0 (else on the scores themselves). A bootstrap over T trials has (T−1)/T of the variance of T
 * fresh trials (a resampled mean's variance is (T−1)/T · σ²/T), so unwidened intervals are short by
 * that factor. The official score is what estimates a team's expected score without bias — the
 * resamples' mean adds the bootstrap's own bias (the weights' nonlinearity): on synthetic competitions
 * the mean prompt score sits 0.13–0.28 bootstrap SDs below the official one, and intervals about it had
 * the truth above them up to six times as often as below. The log scale: a score is a product of
 * shares, and a team whose trials went badly gets a low score and a narrow spread, so intervals on the
 * scores themselves miss the truth above more often than below (docs/uncertainty.md, Coverage). The
 * simultaneous intervals are max-t (studentized maximum) intervals: the 95 % quantile c of max over
 * teams of |x − mean| / sd over the resamples (each team on its own scale) gives
 * official ± c · sd for every team, widened the same way; when they all hold, the true best team is one whose upper end no other team's lower end
 * exceeds, and a team's rank lies in [1 + teams surely above, P − teams surely below] (Chatbot Arena's
 * conservative rank, from simultaneous rather than per-team intervals).
 */
import type { BootstrapResult, LetterSpread } from './bootstrap.js';
import { TIE_TOLERANCE } from './ranks.js';

/** A winner is clear when it wins in at least this share of the resamples (the intervals' level). */
export const CLEAR_WINNER = 0.95;
/** The intervals hold the middle 95 % of the resamples. */
export const INTERVAL_LEVEL = 0.95;
/** Letters named for a pair: the largest, until they carry half of the spread, at most this many. */
const PAIR_LETTERS = 3;

/** One row of the official ranking (exact decimals as printed). */
export interface OfficialRow {
  team: string;
  rank: number;
  promptScore: string;
  normalizedPromptScore: string;
}

interface TeamUncertainty extends OfficialRow {
  low: number;
  high: number;
  normLow: number;
  normHigh: number;
  /** Simultaneous 95 % interval of the normalised score (max-t). */
  jointLow: number;
  jointHigh: number;
  /** The ranks the simultaneous intervals allow: [best, worst]. */
  rankSet: [number, number];
  /** Monte-Carlo standard error of the interval ends (the larger of the two): prompt and normalised. */
  mcError: number;
  normMcError: number;
  /** rankProbability[r − 1]: share of resamples with rank r. */
  rankProbability: number[];
  /** Share of resamples the team wins (0 for entries that cannot win). */
  win: number;
}

interface PairLetter {
  /** `L`, or `<model>/L` over several model folders. */
  label: string;
  /** Share of the gap's variance. */
  share: number;
  /** The team ahead on that letter in the folder as it is (undefined: even). */
  leader: string | undefined;
}

export interface PairSummary {
  above: string;
  below: string;
  aboveRank: number;
  probability: number;
  letters: PairLetter[];
}

export interface UncertaintySummary {
  resamples: number;
  seed: number;
  /** Official ranking order. */
  teams: TeamUncertainty[];
  pairs: PairSummary[];
  clearWinner: boolean;
  /** Teams one of which is the winner at 95 % (simultaneous intervals), official order. */
  winnerSet: string[];
  sentence: string;
  noWinner: number;
}

/** The p-quantile of sorted values, linear between order statistics (Hyndman & Fan type 7, R's and numpy's default). */
function quantile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const a = sorted[lo] as number;
  const b = sorted[Math.min(lo + 1, n - 1)] as number;
  return a + (h - lo) * (b - a);
}

/** √(T/(T−1)): how much wider than the resamples' spread the intervals are (module comment). */
function smallSampleWidening(trials: number): number {
  return trials > 1 ? Math.sqrt(trials / (trials - 1)) : 1;
}

function mean(samples: ArrayLike<number>): number {
  let sum = 0;
  for (let r = 0; r < samples.length; r++) sum += samples[r] as number;
  return sum / samples.length;
}

/**
 * A team's scores on the scale its intervals are built on: the logarithm when its official score and
 * every resample are above 0 (its spread then grows with its level, as for a product of shares), else
 * the scores themselves. `back` maps a point of the scale back to a score.
 */
interface Scale {
  values: Float64Array;
  centre: number;
  back: (x: number) => number;
}

function scaleOf(samples: Float64Array, official: number): Scale {
  if (official > 0 && samples.every((x) => x > 0)) return { values: samples.map(Math.log), centre: Math.log(official), back: Math.exp };
  return { values: samples, centre: official, back: (x) => x };
}

/**
 * The interval of one team's samples about its official score (module comment), and the Monte-Carlo
 * standard error of its ends: for the end at p, the ends at the quantiles one binomial standard
 * deviation √(p(1−p)/R) away, half their distance (the order-statistic interval of a quantile, e.g.
 * Maritz & Jarrett 1978's setting).
 */
function interval(samples: Float64Array, widen: number, official: number): { bounds: [number, number]; error: number } {
  const scale = scaleOf(samples, official);
  const sorted = Float64Array.from(scale.values).sort();
  const m = mean(scale.values);
  const end = (p: number) => scale.back(scale.centre + widen * (quantile(sorted, Math.min(1, Math.max(0, p))) - m));
  const s = (p: number) => Math.sqrt((p * (1 - p)) / sorted.length);
  const tail = (1 - INTERVAL_LEVEL) / 2;
  const error = (p: number) => (end(p + s(p)) - end(p - s(p))) / 2;
  return { bounds: [end(tail), end(1 - tail)], error: Math.max(error(tail), error(1 - tail)) };
}

/** Max-t simultaneous intervals of every team's samples about its official score, each on its own scale (module comment), widened by `widen`. */
function jointIntervals(samples: readonly Float64Array[], widen: number, officials: readonly number[]): Array<[number, number]> {
  const n = samples[0]?.length ?? 0;
  const scales = samples.map((x, i) => scaleOf(x, officials[i] as number));
  const means = scales.map((scale) => mean(scale.values));
  const sds = scales.map(({ values }, i) => {
    let sum = 0;
    for (let r = 0; r < n; r++) sum += ((values[r] as number) - (means[i] as number)) ** 2;
    return n > 1 ? Math.sqrt(sum / (n - 1)) : 0;
  });
  const maxT = new Float64Array(n);
  scales.forEach(({ values }, i) => {
    const sd = sds[i] as number;
    if (!(sd > 0)) return;
    for (let r = 0; r < n; r++) maxT[r] = Math.max(maxT[r] as number, Math.abs((values[r] as number) - (means[i] as number)) / sd);
  });
  const c = quantile(maxT.sort(), INTERVAL_LEVEL);
  return scales.map(({ centre, back }, i) => [back(centre - widen * c * (sds[i] as number)), back(centre + widen * c * (sds[i] as number))]);
}

/** "97 %"; never "100 %" or "0 %" for a share that is not exactly 1 or 0. */
export function percent(share: number): string {
  if (share >= 1) return '100 %';
  if (share <= 0) return '0 %';
  const rounded = Math.round(share * 100);
  if (rounded >= 100) return '> 99 %';
  if (rounded <= 0) return '< 1 %';
  return `${rounded} %`;
}

function pairLetters(spreads: readonly LetterSpread[], above: string, below: string, labelled: boolean): PairLetter[] {
  const total = spreads.reduce((s, l) => s + l.variance, 0);
  if (!(total > 0)) return [];
  const out: PairLetter[] = [];
  let covered = 0;
  for (const l of spreads) {
    if (out.length >= PAIR_LETTERS || covered >= 0.5 || !(l.variance > 0)) break;
    const share = l.variance / total;
    covered += share;
    // Equal letters differ only by the doubles' rounding noise, far below the letter's own spread.
    const even = Math.abs(l.official) <= TIE_TOLERANCE * Math.sqrt(l.variance);
    out.push({
      label: labelled && l.competition ? `${l.competition}/${l.character}` : l.character,
      share,
      leader: even ? undefined : l.official > 0 ? above : below,
    });
  }
  return out;
}

/** The quotable sentence (see the module comment); `competingOnly`: some entries cannot win. */
function winnerSentence(teams: readonly TeamUncertainty[], resamples: number, noWinner: number, competingOnly: boolean): { sentence: string; clear: boolean } {
  const candidates = teams.filter((t) => t.win > 0).sort((a, b) => b.win - a.win || a.rank - b.rank);
  const top = candidates[0];
  if (!top) return { sentence: `no team wins in any of ${resamples} resamples`, clear: false };
  if (top.win >= CLEAR_WINNER) {
    return {
      sentence: `${top.team} ranks first${competingOnly ? ' among the competing teams' : ''} in ${percent(top.win)} of ${resamples} resamples`,
      clear: true,
    };
  }
  const shown = candidates.filter((t) => t.win >= 0.005).slice(0, 5);
  const entries: Array<[string, number]> = shown.map((t) => [t.team, t.win]);
  const rest = candidates.slice(shown.length).reduce((s, t) => s + t.win, 0);
  if (rest > 0) entries.push(['others', rest]);
  if (noWinner > 0) entries.push(['no winner', noWinner]);
  // Each share printed as the tables and the heat map print it (percent), so the sentence and the
  // report's P(wins) column never disagree; when those whole percents do not sum to 100 the sentence
  // says so by marking each rounded share "≈" (rounding to a sum, e.g. Hamilton's method, would print
  // some share unlike its table cell).
  const printed = entries.map(([, share]) => percent(share));
  const whole = printed.every((p) => /^\d+ %$/.test(p)) && printed.reduce((s, p) => s + Number.parseInt(p, 10), 0) === 100;
  const parts = entries.map(([label], i) => `${label} ${whole || /^[<>]/.test(printed[i]!) ? '' : '≈ '}${printed[i]}`);
  return { sentence: `no clear winner: ${parts.join(', ')}`, clear: false };
}

/** [1 + teams whose joint interval lies wholly above, P − teams whose joint interval lies wholly below]. */
function rankSets(joint: ReadonlyArray<[number, number]>): Array<[number, number]> {
  return joint.map(([low, high]) => [1 + joint.filter(([l]) => l > high).length, joint.length - joint.filter(([, h]) => h < low).length]);
}

/**
 * The teams that can be the winner when every simultaneous interval holds: competing teams above 0
 * (and not wholly below the baseline they must beat) that no competing team lies wholly above.
 */
function winnerSetOf(teams: readonly TeamUncertainty[], competing: (team: string) => boolean, mustBeat: string | undefined): string[] {
  const baseline = teams.find((t) => t.team === mustBeat);
  const eligible = teams.filter((t) => competing(t.team) && t.jointHigh > 0 && !(baseline && t.jointHigh < baseline.jointLow));
  return eligible.filter((t) => !eligible.some((o) => o.jointLow > t.jointHigh)).map((t) => t.team);
}

function winnerSetText(set: readonly string[]): string {
  if (set.length === 0) return 'at 95 % no team is sure to score above the others or the baseline';
  if (set.length === 1) return `at 95 % (simultaneous intervals) the winner is ${set[0]}`;
  return `at 95 % (simultaneous intervals) the winner is one of ${set.join(', ')}`;
}

/** An official score as printed (exact decimals) in doubles: an interval's centre. */
function officialValue(text: string, team: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) throw new RangeError(`team ${team}: official score ${JSON.stringify(text)} is not a number`);
  return value;
}

export function summarize(
  result: BootstrapResult,
  official: readonly OfficialRow[],
  options: { competing?: readonly string[]; mustBeat?: string } = {},
): UncertaintySummary {
  const index = new Map(result.teams.map((t, i) => [t, i]));
  const widen = smallSampleWidening(result.trials);
  const order = official.map((row) => {
    const i = index.get(row.team);
    if (i === undefined) throw new RangeError(`team ${row.team} is not in the bootstrap`);
    return i;
  });
  const joint = jointIntervals(
    order.map((i) => result.normalized[i] as Float64Array),
    widen,
    official.map((row) => officialValue(row.normalizedPromptScore, row.team)),
  );
  const ranks = rankSets(joint);
  const teams = official.map((row, o): TeamUncertainty => {
    const i = order[o] as number;
    const prompt = interval(result.prompt[i] as Float64Array, widen, officialValue(row.promptScore, row.team));
    const normalized = interval(result.normalized[i] as Float64Array, widen, officialValue(row.normalizedPromptScore, row.team));
    const [low, high] = prompt.bounds;
    const [normLow, normHigh] = normalized.bounds;
    const [jointLow, jointHigh] = joint[o] as [number, number];
    return {
      ...row,
      low,
      high,
      normLow,
      normHigh,
      jointLow,
      jointHigh,
      mcError: prompt.error,
      normMcError: normalized.error,
      rankSet: ranks[o] as [number, number],
      rankProbability: Array.from(result.rank[i] as Float64Array),
      win: result.win[i] as number,
    };
  });
  const rankOf = new Map(official.map((r) => [r.team, r.rank]));
  const labelled = new Set(result.pairs.flatMap((p) => p.letters.map((l) => l.competition))).size > 1;
  const pairs = result.pairs.map(
    (p): PairSummary => ({
      above: p.above,
      below: p.below,
      aboveRank: rankOf.get(p.above) ?? 0,
      probability: p.probability,
      letters: pairLetters(p.letters, p.above, p.below, labelled),
    }),
  );
  const competing = options.competing ? new Set(options.competing) : undefined;
  const { sentence, clear } = winnerSentence(
    teams,
    result.resamples,
    result.noWinner,
    teams.some((t) => competing?.has(t.team) === false),
  );
  const winnerSet = winnerSetOf(teams, (team) => competing?.has(team) ?? true, options.mustBeat);
  return {
    resamples: result.resamples,
    seed: result.seed,
    teams,
    pairs,
    clearWinner: clear,
    winnerSet,
    sentence: `${sentence}; ${winnerSetText(winnerSet)}`,
    noWinner: result.noWinner,
  };
}
