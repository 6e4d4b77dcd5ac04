import { describe, expect, it } from 'vitest';
import type { BootstrapResult } from '../../scoring/uncertainty/bootstrap.js';
import { uncertaintySection } from '../../scoring/uncertainty/report.js';
import { summarize, type UncertaintySummary } from '../../scoring/uncertainty/summary.js';

/**
 * The winner sentence's rounded shares are the ones the report's tables print, and say what they add
 * up to: whole percents that sum to 100 as they stand, else every rounded share marked "≈". (Printed
 * were "64 %, 37 %" for 63.5 % and 36.5 %, a sum of 101; rounded to a sum of 100 instead, the sentence
 * said 36 % where the P(wins) column says 37 %.)
 */
function summaryOf(wins: readonly number[], noWinner = 0): UncertaintySummary {
  const teams = wins.map((_, i) => `team${i}`);
  const samples = () => teams.map(() => Float64Array.from([1, 2, 3]));
  const result: BootstrapResult = {
    resamples: 2000,
    seed: 1,
    trials: 10,
    teams,
    prompt: samples(),
    normalized: samples(),
    rank: teams.map(() => new Float64Array(teams.length)),
    win: Float64Array.from(wins),
    noWinner,
    pairs: [],
  };
  return summarize(
    result,
    teams.map((team, i) => ({ team, rank: i + 1, promptScore: '1', normalizedPromptScore: '1' })),
  );
}

/** The shares part; the winner's confidence set that follows it is another clause (test/scoring/uncertainty.test.ts). */
const sentence = (wins: readonly number[], noWinner = 0) => summaryOf(wins, noWinner).sentence.split('; ')[0]!;

const percents = (text: string) => [...text.matchAll(/(\d+) %/g)].map((m) => Number(m[1]));

/** The P(wins) column (the last) of the report's interval table, one cell per team. */
function winsColumn(summary: UncertaintySummary): string[] {
  const rows = uncertaintySection(summary)
    .markdown.split('\n')
    .filter((l) => /^\| \d+ \| team\d+ \|/.test(l));
  return rows.map((l) => l.split(' | ').at(-1)!.replace(/ \|$/, ''));
}

describe('the winner sentence adds up and agrees with the tables', () => {
  it('63.5 % and 36.5 %: 64 % and 37 % as the tables print them, each marked "≈" (they sum to 101)', () => {
    const summary = summaryOf([0.635, 0.365]);
    expect(summary.sentence.split('; ')[0]).toBe('no clear winner: team0 ≈ 64 %, team1 ≈ 37 %');
    expect(winsColumn(summary)).toEqual(['64 %', '37 %']);
  });

  it('60.5 % and 39.5 % (200 resamples): the sentence and the P(wins) column print the same numbers', () => {
    const summary = summaryOf([0.605, 0.395]);
    const text = summary.sentence.split('; ')[0]!;
    expect(percents(text).map((p) => `${p} %`)).toEqual(winsColumn(summary));
    expect(text).toContain('≈');
  });

  it('shares whose whole percents sum to 100 are printed plain', () => {
    const text = sentence([0.6625, 0.3375]);
    expect(text).toBe('no clear winner: team0 66 %, team1 34 %');
    expect(percents(text).reduce((a, b) => a + b, 0)).toBe(100);
  });

  it('three teams and resamples without a winner: 34 + 34 + 32 + 1 = 101, so each is "≈"', () => {
    const text = sentence([0.335, 0.335, 0.32], 0.01);
    expect(text).toBe('no clear winner: team0 ≈ 34 %, team1 ≈ 34 %, team2 ≈ 32 %, no winner ≈ 1 %');
  });

  it('a share too small for a whole percent: every rounded share says "≈"', () => {
    const text = sentence([0.86, 0.1395, 0.0005]);
    expect(text).toBe('no clear winner: team0 ≈ 86 %, team1 ≈ 14 %, others < 1 %');
  });
});
