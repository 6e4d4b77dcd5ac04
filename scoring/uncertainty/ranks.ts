/**
 * Ranks and winners of one resample, as shares: a team that ties with others splits their places
 * equally. The official file never shares a rank, but its order among equal scores is the sort's
 * (scoring/score/compute.ts), i.e. arbitrary, so each order is taken as equally likely. The rules'
 * own tie-break is kept: among equal scores the shorter prompt goes first when every tied team's word
 * count is known (`--prompts`).
 *
 * Equal means within a relative 1e-12: the resample's scores are doubles (resample.ts), whose
 * rounding differs from the official decimals' in the last bits, so two teams whose exact scores are
 * equal must not be told apart by that noise.
 *
 * Called once per resample: the work arrays are allocated once (`RankWork`), nothing per call.
 */

/** Relative tolerance under which two resample scores are equal. */
export const TIE_TOLERANCE = 1e-12;

export function tied(a: number, b: number): boolean {
  return Math.abs(a - b) <= TIE_TOLERANCE * Math.max(Math.abs(a), Math.abs(b));
}

/** Work arrays for P teams. */
export interface RankWork {
  order: Int32Array;
  /** Word counts by team (NaN: unknown); undefined when no team has one. */
  words: Float64Array | undefined;
}

export function rankWork(teams: number, words?: ReadonlyArray<number | undefined>): RankWork {
  const known = words?.some((w) => w !== undefined) === true;
  return { order: new Int32Array(teams), words: known ? Float64Array.from(words ?? [], (w) => w ?? Number.NaN) : undefined };
}

/** Members sorted best first (insertion sort: P is small), ties by word count, then index. Returns the count. */
function sortMembers(values: ArrayLike<number>, members: ArrayLike<number>, count: number, work: RankWork): number {
  const { order, words } = work;
  for (let i = 0; i < count; i++) {
    const team = members[i] as number;
    let j = i - 1;
    while (j >= 0 && before(team, order[j] as number, values, words)) {
      order[j + 1] = order[j] as number;
      j--;
    }
    order[j + 1] = team;
  }
  return count;
}

function before(a: number, b: number, values: ArrayLike<number>, words: Float64Array | undefined): boolean {
  const va = values[a] as number;
  const vb = values[b] as number;
  if (!tied(va, vb)) return va > vb;
  if (words) {
    const wa = words[a] as number;
    const wb = words[b] as number;
    if (!Number.isNaN(wa) && !Number.isNaN(wb) && wa !== wb) return wa < wb;
  }
  return a < b;
}

/** Whether order[i] and order[j] share a place: equal scores and no word-count difference that decides. */
function samePlace(a: number, b: number, values: ArrayLike<number>, words: Float64Array | undefined): boolean {
  if (!tied(values[a] as number, values[b] as number)) return false;
  if (!words) return true;
  const wa = words[a] as number;
  const wb = words[b] as number;
  return !(!Number.isNaN(wa) && !Number.isNaN(wb) && wa !== wb);
}

/** Length of the group of equal places that starts at `start` in the sorted order. */
function groupEnd(start: number, count: number, values: ArrayLike<number>, work: RankWork): number {
  const first = work.order[start] as number;
  let end = start + 1;
  while (end < count && samePlace(first, work.order[end] as number, values, work.words)) end++;
  return end;
}

/** Adds this resample's rank shares to `counts` (team-major: counts[team·P + rank − 1]); every team takes part. */
export function addRankShares(values: ArrayLike<number>, members: ArrayLike<number>, counts: Float64Array, work: RankWork): void {
  const p = values.length;
  const count = sortMembers(values, members, members.length, work);
  for (let start = 0; start < count; ) {
    const end = groupEnd(start, count, values, work);
    const share = 1 / (end - start);
    for (let i = start; i < end; i++) {
      const team = work.order[i] as number;
      for (let r = start; r < end; r++) counts[team * p + r] = (counts[team * p + r] as number) + share;
    }
    start = end;
  }
}

export interface WinnerRule {
  /** Teams that can win (not baselines or other non-competing entries). */
  competing: Int32Array;
  /** The zero-shot baseline's index, when the winner must score above it (2025). */
  mustBeat?: number;
}

/** Adds this resample's winner shares to `wins`; returns false when no team can win (every eligible score ≤ 0 or not above the baseline). */
export function addWinShares(values: ArrayLike<number>, rule: WinnerRule, wins: Float64Array, work: RankWork, eligible: Int32Array): boolean {
  const floor = rule.mustBeat !== undefined ? (values[rule.mustBeat] as number) : 0;
  let count = 0;
  for (let c = 0; c < rule.competing.length; c++) {
    const i = rule.competing[c] as number;
    const v = values[i] as number;
    if (v > 0 && v > floor && !(rule.mustBeat !== undefined && tied(v, floor))) eligible[count++] = i;
  }
  if (count === 0) return false;
  sortMembers(values, eligible, count, work);
  const end = groupEnd(0, count, values, work);
  for (let i = 0; i < end; i++) {
    const team = work.order[i] as number;
    wins[team] = (wins[team] as number) + 1 / end;
  }
  return true;
}
