/**
 * What the bootstrap means for the reader: per team the 95 % percentile interval of its prompt score
 * and normalised score, its rank probabilities, and one sentence an organizer can quote — "GridThinkers
 * ranks first in 97 % of 2000 resamples" when one team wins in at least 95 % of them, else "no clear
 * winner: GridThinkers 54 %, BlockSmith 46 %" — plus, for each pair adjacent in the official ranking,
 * how often the upper team stays above and which letters move their gap the most.
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

function interval(samples: Float64Array): [number, number] {
  const sorted = Float64Array.from(samples).sort();
  const tail = (1 - INTERVAL_LEVEL) / 2;
  return [quantile(sorted, tail), quantile(sorted, 1 - tail)];
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
    out.push({ label: labelled && l.competition ? `${l.competition}/${l.character}` : l.character, share, leader: even ? undefined : l.official > 0 ? above : below });
  }
  return out;
}

/** The quotable sentence (see the module comment); `competingOnly`: some entries cannot win. */
function winnerSentence(teams: readonly TeamUncertainty[], resamples: number, noWinner: number, competingOnly: boolean): { sentence: string; clear: boolean } {
  const candidates = teams.filter((t) => t.win > 0).sort((a, b) => b.win - a.win || a.rank - b.rank);
  const top = candidates[0];
  if (!top) return { sentence: `no team wins in any of ${resamples} resamples`, clear: false };
  if (top.win >= CLEAR_WINNER) {
    return { sentence: `${top.team} ranks first${competingOnly ? ' among the competing teams' : ''} in ${percent(top.win)} of ${resamples} resamples`, clear: true };
  }
  const shown = candidates.filter((t) => t.win >= 0.005).slice(0, 5);
  const entries: Array<[string, number]> = shown.map((t) => [t.team, t.win]);
  const rest = candidates.slice(shown.length).reduce((s, t) => s + t.win, 0);
  if (rest > 0) entries.push(['others', rest]);
  if (noWinner > 0) entries.push(['no winner', noWinner]);
  const whole = wholePercents(entries.map(([, share]) => share));
  // Whole percents that sum to 100 when the shares allow it; otherwise each rounded share says it is one.
  const parts = entries.map(([label, share], i) => (whole ? `${label} ${whole[i]} %` : `${label} ${/^[<>]/.test(percent(share)) ? '' : '≈ '}${percent(share)}`));
  return { sentence: `no clear winner: ${parts.join(', ')}`, clear: false };
}

/**
 * Shares that make a whole (they sum to 1), as whole percents that sum to exactly 100: each rounded
 * down, the points left over given to the largest remainders (Hamilton's method). Undefined when the
 * shares are not a whole, or when a share above 0 would print as 0 %.
 */
function wholePercents(shares: readonly number[]): number[] | undefined {
  const total = shares.reduce((a, b) => a + b, 0);
  if (!(Math.abs(total - 1) <= 1e-9)) return undefined;
  const raw = shares.map((s) => s * 100);
  const out = raw.map((r) => Math.floor(r + 1e-9));
  let left = 100 - out.reduce((a, b) => a + b, 0);
  const order = raw.map((r, i) => [r - out[i]!, i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of order) {
    if (left <= 0) break;
    out[i]! += 1;
    left -= 1;
  }
  return out.some((p, i) => (p === 0 && shares[i]! > 0) || (p === 100 && shares[i]! < 1)) ? undefined : out;
}

export function summarize(result: BootstrapResult, official: readonly OfficialRow[], options: { competingOnly?: boolean } = {}): UncertaintySummary {
  const index = new Map(result.teams.map((t, i) => [t, i]));
  const teams = official.map((row): TeamUncertainty => {
    const i = index.get(row.team);
    if (i === undefined) throw new RangeError(`team ${row.team} is not in the bootstrap`);
    const [low, high] = interval(result.prompt[i] as Float64Array);
    const [normLow, normHigh] = interval(result.normalized[i] as Float64Array);
    return { ...row, low, high, normLow, normHigh, rankProbability: Array.from(result.rank[i] as Float64Array), win: result.win[i] as number };
  });
  const rankOf = new Map(official.map((r) => [r.team, r.rank]));
  const labelled = new Set(result.pairs.flatMap((p) => p.letters.map((l) => l.competition))).size > 1;
  const pairs = result.pairs.map((p): PairSummary => ({ above: p.above, below: p.below, aboveRank: rankOf.get(p.above) ?? 0, probability: p.probability, letters: pairLetters(p.letters, p.above, p.below, labelled) }));
  const { sentence, clear } = winnerSentence(teams, result.resamples, result.noWinner, options.competingOnly === true);
  return { resamples: result.resamples, seed: result.seed, teams, pairs, clearWinner: clear, sentence, noWinner: result.noWinner };
}
