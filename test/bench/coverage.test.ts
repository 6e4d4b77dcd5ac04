import { describe, expect, it } from 'vitest';
import { plain, scoreCompetition } from '../../scoring/score/index.js';
import { CHARACTERS, RULE_SETS } from '../../scoring/score/rules.js';
import { Xoshiro128 } from '../../scoring/uncertainty/index.js';
import { withError } from '../../scripts/bench/coverage.js';
import { type CellParams, type Design, drawCompetition, estimateTruth, makeDesign, modelOf, officialScores } from '../../scripts/bench/coverage-design.js';

/** A design whose every team × letter is `cell`: the teams are exchangeable. */
function uniformDesign(cell: CellParams, teams: number, noise: number): Design {
  return {
    name: 'uniform',
    description: '',
    teams: Array.from({ length: teams }, (_, i) => `t${i}`),
    trials: 10,
    noise,
    cells: Array.from({ length: teams }, () => CHARACTERS.map(() => cell)),
  };
}

/** |x − expected| within z binomial standard errors of a share p of n. */
function withinBinomial(x: number, p: number, n: number, z = 4): boolean {
  return Math.abs(x - p) <= z * Math.sqrt((p * (1 - p)) / n);
}

describe("the coverage benchmark's synthetic competitions", () => {
  it("draws each cell's trials with the design's failure rate and chance to stand; without noise every similarity is e^a / (e^a + 25)", () => {
    const cell = { failure: 0.2, stands: 0.6, advantage: 3 };
    const design = uniformDesign(cell, 2, 0);
    const random = new Xoshiro128(3, 0);
    let trials = 0;
    let levels = 0;
    let standing = 0;
    for (let c = 0; c < 10; c++) {
      const input = drawCompetition(design, random);
      for (const team of design.teams) {
        for (const character of CHARACTERS) {
          const entry = input.inputs.get(team)?.get(character);
          trials += design.trials;
          levels += entry?.stability?.length ?? 0;
          for (const s of entry?.stability ?? []) {
            expect(s.value).toBeGreaterThanOrEqual(0);
            expect(s.value).toBeLessThanOrEqual(1);
            standing += s.value === 1 ? 1 : 0;
          }
          for (const s of entry?.similarity ?? []) expect(s.value).toBe(Math.fround(Math.exp(3) / (Math.exp(3) + 25)));
          // Identical vectors: no diversity.
          expect(entry?.diversityRate).toBe(0);
        }
      }
    }
    expect(withinBinomial(1 - levels / trials, cell.failure, trials)).toBe(true);
    expect(withinBinomial(standing / levels, cell.stands, levels)).toBe(true);
  });

  it('gives each trial a softmax vector whose target entry is its similarity and a diversity rate its vectors give', () => {
    const design = makeDesign({ name: 'x', description: '', qualities: [-1, 0, 1], seed: 4 });
    const input = drawCompetition(design, new Xoshiro128(5, 0));
    for (const team of design.teams) {
      CHARACTERS.forEach((character, l) => {
        const entry = input.inputs.get(team)?.get(character);
        expect(entry?.vectors?.length).toBe(entry?.similarity?.length);
        entry?.vectors?.forEach((v, i) => {
          expect(v.vector).toHaveLength(26);
          expect(v.vector.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
          expect(entry.similarity?.[i]?.value).toBe(v.vector[l]);
        });
      });
    }
    // The bootstrap's model recomputes every diversity from the vectors and notes any rate they do not give.
    expect(modelOf(input).notes).toEqual([]);
  });

  it("scores a competition as sbeval's exact official scorer does (to 1e-12)", () => {
    const design = makeDesign({ name: 'x', description: '', qualities: [-1, 0, 1], seed: 6 });
    const input = drawCompetition(design, new Xoshiro128(7, 0));
    const doubles = officialScores(modelOf(input));
    const exact = scoreCompetition(input, RULE_SETS['2024']);
    for (const row of exact.ranking) {
      const k = design.teams.indexOf(row.team);
      const prompt = Number(plain(row.promptScore));
      expect(prompt).toBeGreaterThan(0);
      expect(Math.abs(doubles.prompt[k]! - prompt)).toBeLessThanOrEqual(1e-12 * prompt);
      expect(Math.abs(doubles.normalized[k]! - Number(plain(row.normalizedPromptScore)))).toBeLessThanOrEqual(1e-10);
    }
  });

  it('estimates E[normalised] = 100/P for exchangeable teams within its own Monte-Carlo error, and orders teams by quality', () => {
    const truth = estimateTruth(uniformDesign({ failure: 0.1, stands: 0.7, advantage: 2 }, 3, 1), 300, new Xoshiro128(8, 1));
    expect(truth.competitions).toBe(300);
    for (let k = 0; k < 3; k++) {
      expect(truth.normalized.sd[k]).toBeGreaterThan(0);
      expect(truth.normalized.error[k]).toBeCloseTo(truth.normalized.sd[k]! / Math.sqrt(300), 12);
      expect(Math.abs(truth.normalized.mean[k]! - 100 / 3)).toBeLessThanOrEqual(4 * truth.normalized.error[k]!);
    }
    const graded = estimateTruth(makeDesign({ name: 'x', description: '', qualities: [-1, 0, 1], seed: 9 }), 40, new Xoshiro128(10, 1));
    expect(graded.normalized.mean[0]).toBeLessThan(graded.normalized.mean[1]!);
    expect(graded.normalized.mean[1]).toBeLessThan(graded.normalized.mean[2]!);
  });

  it('prints a share to the decimal place of its standard error', () => {
    expect(withError(0.9483, 0.0069)).toBe('0.948 ± 0.007');
    expect(withError(0.9483, 0.0154)).toBe('0.948 ± 0.015');
    expect(withError(0.95, 0.03)).toBe('0.95 ± 0.03');
  });
});
