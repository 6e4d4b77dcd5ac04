import { describe, expect, it } from 'vitest';
import type { BootstrapResult } from '../../scoring/uncertainty/bootstrap.js';
import { summarize } from '../../scoring/uncertainty/summary.js';

/**
 * The winner sentence's rounded shares say what they add up to: whole percents that sum to 100 when the
 * shares allow it (64 % + 37 % was printed for 63.5 % and 36.5 %), else every rounded share marked "≈".
 */
function sentence(wins: readonly number[], noWinner = 0): string {
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
  // The shares part; the winner's confidence set that follows it is another clause (test/scoring/uncertainty.test.ts).
  return summarize(
    result,
    teams.map((team, i) => ({ team, rank: i + 1, promptScore: '1', normalizedPromptScore: '1' })),
  ).sentence.split('; ')[0]!;
}

const percents = (text: string) => [...text.matchAll(/(\d+) %/g)].map((m) => Number(m[1]));

describe('the winner sentence adds up', () => {
  it('63.5 % and 36.5 %: 64 % and 36 %, not 64 % and 37 %', () => {
    const text = sentence([0.635, 0.365]);
    expect(text).toBe('no clear winner: team0 64 %, team1 36 %');
    expect(percents(text).reduce((a, b) => a + b, 0)).toBe(100);
  });

  it('three teams and resamples without a winner sum to 100 too', () => {
    // Each rounded on its own: 34 + 34 + 32 + 1 = 101.
    const text = sentence([0.335, 0.335, 0.32], 0.01);
    expect(percents(text).reduce((a, b) => a + b, 0)).toBe(100);
    expect(text).toMatch(/^no clear winner: team0 \d+ %, team1 \d+ %, team2 32 %, no winner 1 %$/);
  });

  it('a share too small for a whole percent: every rounded share says "≈"', () => {
    const text = sentence([0.86, 0.1395, 0.0005]);
    expect(text).toBe('no clear winner: team0 ≈ 86 %, team1 ≈ 14 %, others < 1 %');
  });
});
