/**
 * Who wins (competition rules; competition-results.md §4): the highest score among the competing
 * teams; equal scores go to the shorter prompt (word count as the 2023 rules count words); teams
 * still equal are co-winners. Since 2025 the winner must also score more than the zero-shot baseline.
 * Baselines and other non-competing entries never win, but they count in P and in the normalisation.
 */
import { type Decimal, plain, ZERO } from './decimal.js';

export interface WinnerOptions {
  /** The zero-shot baseline's team folder. */
  baseline?: string;
  /** Other entries that do not compete (e.g. the strong baseline). */
  nonCompeting?: readonly string[];
  mustBeatBaseline: boolean;
  /** Prompt word counts for the tie-break. */
  words?: ReadonlyMap<string, number>;
}

export interface WinnerDecision {
  winners: string[];
  /** Competing teams that passed the baseline rule. */
  eligible: string[];
  baselineScore?: Decimal;
  /** What was decided and why, one sentence each (for the report). */
  notes: string[];
}

export function decideWinners(teams: readonly string[], scores: ReadonlyMap<string, Decimal>, options: WinnerOptions): WinnerDecision {
  const notes: string[] = [];
  const excluded = new Set(options.nonCompeting ?? []);
  if (options.baseline !== undefined) excluded.add(options.baseline);
  let eligible = teams.filter((team) => !excluded.has(team));
  let baselineScore: Decimal | undefined;
  if (options.baseline !== undefined && teams.includes(options.baseline)) baselineScore = scores.get(options.baseline) ?? ZERO;
  if (options.mustBeatBaseline) {
    if (baselineScore === undefined) {
      notes.push(
        options.baseline === undefined
          ? 'No zero-shot baseline given: the "must beat the baseline" rule was not applied.'
          : `Zero-shot baseline "${options.baseline}" not found: the "must beat the baseline" rule was not applied.`,
      );
    } else {
      const base = baselineScore;
      const beaten = eligible.filter((team) => (scores.get(team) ?? ZERO).gt(base));
      const failed = eligible.filter((team) => !beaten.includes(team));
      if (failed.length > 0) notes.push(`Not above the zero-shot baseline "${options.baseline}" (${plain(base)}): ${failed.join(', ')}.`);
      eligible = beaten;
    }
  }
  const positive = eligible.filter((team) => (scores.get(team) ?? ZERO).gt(0));
  if (positive.length === 0) {
    notes.push('No competing team has a score above 0 (and above the baseline where required): no winner.');
    return { winners: [], eligible, ...(baselineScore ? { baselineScore } : {}), notes };
  }
  let top = ZERO;
  for (const team of positive) if ((scores.get(team) ?? ZERO).gt(top)) top = scores.get(team) ?? ZERO;
  let tied = positive.filter((team) => (scores.get(team) ?? ZERO).eq(top));
  if (tied.length > 1) {
    const words = options.words;
    const unknown = tied.filter((team) => words?.get(team) === undefined);
    if (unknown.length > 0) {
      notes.push(`${tied.join(', ')} tie at ${plain(top)}; no prompt word count for ${unknown.join(', ')}, so the tie stands: co-winners.`);
    } else {
      const shortest = Math.min(...tied.map((team) => words?.get(team) ?? Infinity));
      const shorter = tied.filter((team) => words?.get(team) === shortest);
      notes.push(`${tied.join(', ')} tie at ${plain(top)}; the shorter prompt wins (${tied.map((t) => `${t}: ${words?.get(t)} words`).join(', ')}).`);
      if (shorter.length > 1) notes.push(`${shorter.join(', ')} have equally long prompts (${shortest} words): co-winners.`);
      tied = shorter;
    }
  }
  return { winners: tied, eligible, ...(baselineScore ? { baselineScore } : {}), notes };
}
