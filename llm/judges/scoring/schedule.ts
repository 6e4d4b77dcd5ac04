import { mulberry32 } from '../../../bridge/headless/order.js';

/**
 * Who is compared with whom, and in which order the judge sees them (sbeval's protocol; the document's
 * protocol shows every team once, reference first: llm/judges/order-plan.ts).
 *
 * Groups: with at most `size` (4) teams, one group of all of them. With more, a seeded greedy
 * covering of every pair: start a group from an uncovered pair (the first, in a seeded shuffle of
 * all pairs), then add, one at a time, the team that covers the most uncovered pairs with the group
 * (ties: the team seen in fewest groups so far, then the seeded order), until the group is full;
 * repeat until every pair of teams shares at least one group. The greedy runs COVERING_TRIES times
 * from derived seeds and the smallest schedule is kept. The smallest possible schedules (covering
 * numbers C(v, 4, 2), Mills 1979) are 3, 3, 5, 6, 8, 9, 11, 12 groups for 5…12 teams; the test
 * measures how close this comes. Each team's mean is over its own groups. With a reference team
 * (`--reference`), the reference is in every group: the other teams are covered by groups of
 * `size − 1` and the reference joins each, so every comparison with it is direct.
 *
 * Presentations: a group of m ≥ 3 shown teams is asked 2m times: the m rotations of a seeded order,
 * and each rotation with all but its first member reversed (a group of 2: its two orders). Every team
 * is in every position equally often (a tail reversal moves position j ≥ 2 to m + 2 − j), every pair
 * of teams is shown in each of its two orders equally often, and — what a judge with a first-position
 * effect needs — for each team shown first, every other pair is shown in each order once. So a judge
 * that favours a position gives each team that advantage equally often, one that breaks ties towards
 * the earlier level favours neither of two equal levels, and one that adds a bonus to the first
 * position too: two identical teams get identical scores (tested for groups of 2–6, on ranks and on
 * the nonlinear score scales). Rotations alone give every position once but not every pair's order
 * equally often: with a group of 3 the tie-breaking judge then splits identical teams in every
 * question; a Williams design (m rows for even m) balances pairs but not pairs given the first team.
 */
export const GROUP_SIZE = 4;

export function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  const random = mulberry32(seed >>> 0);
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** A 32-bit seed from several parts (a letter, a trial number …), stable across runs and platforms. */
export function mixSeed(...parts: Array<number | string>): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    const text = `${String(part)}\u0000`;
    for (let i = 0; i < text.length; i += 1) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
  }
  return h >>> 0;
}

const pairKey = (a: number, b: number) => (a < b ? `${a}:${b}` : `${b}:${a}`);

/** Seeded greedy attempts tried per schedule; the smallest covering wins (ties: the most even appearance counts, then the first). */
export const COVERING_TRIES = 64;

/** Groups of team indices (0-based into `teams`) that together cover every pair; seeded. */
export function coveringGroups(teams: number, seed: number, size = GROUP_SIZE): number[][] {
  if (teams <= 0) return [];
  if (teams <= size) return [Array.from({ length: teams }, (_, i) => i)];
  let best: number[][] | undefined;
  let bestSpread = Infinity;
  for (let k = 0; k < COVERING_TRIES; k += 1) {
    const groups = greedyCovering(teams, mixSeed(seed, k), size);
    const counts = new Array<number>(teams).fill(0);
    for (const g of groups) for (const t of g) counts[t]! += 1;
    const spread = Math.max(...counts) - Math.min(...counts);
    if (!best || groups.length < best.length || (groups.length === best.length && spread < bestSpread)) {
      best = groups;
      bestSpread = spread;
    }
  }
  return best!;
}

function greedyCovering(teams: number, seed: number, size: number): number[][] {
  const pairs: Array<[number, number]> = [];
  for (let a = 0; a < teams; a += 1) for (let b = a + 1; b < teams; b += 1) pairs.push([a, b]);
  const order = seededShuffle(pairs, seed);
  const rank = new Map(
    seededShuffle(
      Array.from({ length: teams }, (_, i) => i),
      seed ^ 0x5bd1e995,
    ).map((t, i) => [t, i]),
  );
  const uncovered = new Set(pairs.map(([a, b]) => pairKey(a, b)));
  const appearances = new Array<number>(teams).fill(0);
  const groups: number[][] = [];
  while (uncovered.size > 0) {
    const start = order.find(([a, b]) => uncovered.has(pairKey(a, b)))!;
    const group = [start[0], start[1]];
    while (group.length < size) {
      let best = -1;
      let bestGain = -1;
      for (let t = 0; t < teams; t += 1) {
        if (group.includes(t)) continue;
        const gain = group.filter((g) => uncovered.has(pairKey(g, t))).length;
        const better =
          gain > bestGain ||
          (gain === bestGain && (appearances[t]! < appearances[best]! || (appearances[t] === appearances[best] && rank.get(t)! < rank.get(best)!)));
        if (better) {
          best = t;
          bestGain = gain;
        }
      }
      group.push(best);
    }
    for (let i = 0; i < group.length; i += 1) for (let j = i + 1; j < group.length; j += 1) uncovered.delete(pairKey(group[i]!, group[j]!));
    for (const t of group) appearances[t]! += 1;
    groups.push(group.sort((a, b) => a - b));
  }
  return groups;
}

/**
 * Groups that all contain `reference` (an index into the teams) and together cover every pair of the
 * other teams; with `teams ≤ size`, the one group of all of them.
 */
export function referenceGroups(teams: number, reference: number, seed: number, size = GROUP_SIZE): number[][] {
  if (teams <= size) return coveringGroups(teams, seed, size);
  const others = Array.from({ length: teams }, (_, i) => i).filter((i) => i !== reference);
  return coveringGroups(others.length, seed, size - 1).map((g) => [reference, ...g.map((i) => others[i]!)].sort((a, b) => a - b));
}

/** The presentation orders of a group (module comment): rotations of a seeded order, and for m ≥ 3 each with its tail reversed. */
export function balancedOrders<T>(group: readonly T[], seed: number): T[][] {
  const base = seededShuffle(group, seed);
  const rotations = base.map((_, p) => [...base.slice(p), ...base.slice(0, p)]);
  if (base.length < 3) return rotations;
  return [...rotations, ...rotations.map(([first, ...rest]) => [first as T, ...rest.reverse()])];
}
