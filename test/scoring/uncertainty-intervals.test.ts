import { describe, expect, it } from 'vitest';
import type { BootstrapResult } from '../../scoring/uncertainty/bootstrap.js';
import { summarize } from '../../scoring/uncertainty/summary.js';

/**
 * How the intervals are built from the resamples: the percentiles' distances from the resamples' mean,
 * × √(T/(T−1)), about the official score, on the log scale when every score is above 0
 * (docs/uncertainty.md, Method; the coverage benchmark measured why).
 */
function resultOf(samples: Float64Array[], trials = 10): BootstrapResult {
  const teams = samples.map((_, i) => `team${i}`);
  return {
    resamples: samples[0]!.length,
    seed: 1,
    trials,
    teams,
    prompt: samples.map((x) => x.map((v) => v / 1000)),
    normalized: samples,
    rank: teams.map(() => new Float64Array(teams.length)),
    win: new Float64Array(teams.length),
    noWinner: 0,
    pairs: [],
  };
}

/** 0, 1, …, 1000 shifted by `shift`: the 2.5 % and 97.5 % quantiles are shift + 25 and shift + 975, the mean shift + 500. */
const ramp = (shift: number) => Float64Array.from({ length: 1001 }, (_, i) => i + shift);
/** The same values in another order (i ↦ 7i mod 1001 is a permutation): the two teams' deviations do not move together. */
const shuffled = (shift: number) => Float64Array.from({ length: 1001 }, (_, i) => ((7 * i) % 1001) + shift);

describe('the intervals of a team', () => {
  it('keep the resamples’ percentiles as distances from their mean, widened by √(T/(T−1)), about the official score', () => {
    // The resamples' mean (500) lies below the official score (520), as the bootstrap's bias puts it;
    // team0 has a resample at 0, so its intervals are on the scores themselves.
    const summary = summarize(resultOf([ramp(0), shuffled(2000)]), [
      { team: 'team1', rank: 1, promptScore: '2.52', normalizedPromptScore: '2520' },
      { team: 'team0', rank: 2, promptScore: '0.52', normalizedPromptScore: '520' },
    ]);
    const widen = Math.sqrt(10 / 9);
    const team0 = summary.teams.find((t) => t.team === 'team0')!;
    expect(team0.normLow).toBeCloseTo(520 - widen * 475, 9);
    expect(team0.normHigh).toBeCloseTo(520 + widen * 475, 9);
    expect(team0.low).toBeCloseTo(0.52 - (widen * 475) / 1000, 12);
    expect(team0.high).toBeCloseTo(0.52 + (widen * 475) / 1000, 12);
    // The simultaneous interval is about the official score too (team1's on the log scale: about it by ratio), and wider than the team's own.
    const [team1] = summary.teams;
    expect((team0.jointLow + team0.jointHigh) / 2).toBeCloseTo(520, 9);
    expect(Math.sqrt(team1!.jointLow * team1!.jointHigh)).toBeCloseTo(2520, 9);
    for (const t of summary.teams) expect(t.jointHigh - t.jointLow).toBeGreaterThan(t.normHigh - t.normLow);
    expect(summary.teams.map((t) => t.rankSet)).toEqual([
      [1, 1],
      [2, 2],
    ]);
  });

  it('are built on the log scale when the official score and every resample are above 0', () => {
    const samples = Float64Array.from({ length: 1001 }, (_, i) => 100 * Math.exp((i - 500) / 2000));
    const t = summarize(resultOf([samples]), [{ team: 'team0', rank: 1, promptScore: '0.11', normalizedPromptScore: '110' }]).teams[0]!;
    // log(sample) is a ramp about log 100 with quantiles at ∓475/2000: the interval is 110 · e^(∓√(10/9) · 0.2375).
    const widen = Math.sqrt(10 / 9);
    expect(t.normLow).toBeCloseTo(110 * Math.exp(-widen * 0.2375), 9);
    expect(t.normHigh).toBeCloseTo(110 * Math.exp(widen * 0.2375), 9);
    expect(t.low).toBeCloseTo(0.11 * Math.exp(-widen * 0.2375), 12);
    // Wider above than below, as a spread that grows with the level is.
    expect(t.normHigh - 110).toBeGreaterThan(110 - t.normLow);
  });

  it('keep a skewed spread skewed', () => {
    // Resamples 0…1000 squared / 1000: the upper tail is longer than the lower one.
    const skewed = Float64Array.from({ length: 1001 }, (_, i) => (i * i) / 1000);
    const t = summarize(resultOf([skewed], 2), [{ team: 'team0', rank: 1, promptScore: '0.3', normalizedPromptScore: '300' }]).teams[0]!;
    expect(t.normHigh - 300).toBeGreaterThan(300 - t.normLow);
  });

  it('need an official score that is a number', () => {
    expect(() => summarize(resultOf([ramp(0)]), [{ team: 'team0', rank: 1, promptScore: '', normalizedPromptScore: '100' }])).toThrow(/official score/);
  });
});
