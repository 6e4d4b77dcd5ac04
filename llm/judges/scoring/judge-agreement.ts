import { intervalAlpha, spearman } from './agreement.js';
import { bootstrapInterval, type Interval } from './bootstrap.js';

/**
 * Agreement between two sources of scores for the same levels — two LLM judges, or a judge and the
 * survey's raters — with a bootstrap interval (levels resampled). Two sources on one scale (the same
 * min and max: two rubric judges, two ordering judges with the same rank scores) get Krippendorff's
 * interval α, which counts any offset or stretch between them as disagreement. Sources on different
 * scales get Spearman's ρ instead: a linear map of one scale onto another is a choice, and α after it
 * penalises the choice (measured: Pearson 0.90, α 0.76 on the same pairs). Units are the levels both
 * scored, each with two values (for the survey, the mean of the raters' ratings of that level); a level
 * that does not exist for both sources (both scored it by the failure rule) is left out: it says
 * nothing about the judges, and two "worst" scores would count as agreement.
 */
export interface Scale {
  min: number;
  max: number;
}

export interface ScoredSource {
  name: string;
  scale: Scale;
  /** level key → score. */
  scores: ReadonlyMap<string, number>;
  /** Level keys with no level to judge (scored by the failure rule). */
  missing?: ReadonlySet<string>;
}

export interface PairAgreement {
  a: string;
  b: string;
  /** Levels scored by both (levels missing for both left out). */
  units: number;
  /** `alpha` on one scale, `spearman` across scales. */
  statistic: 'alpha' | 'spearman';
  value: number | null;
  interval: Interval | null;
}

const sameScale = (a: Scale, b: Scale) => a.min === b.min && a.max === b.max;

export function pairAgreement(a: ScoredSource, b: ScoredSource, seed: number): PairAgreement {
  const units: Array<[number, number]> = [];
  for (const [key, v] of a.scores) {
    const w = b.scores.get(key);
    if (a.missing?.has(key) === true && b.missing?.has(key) === true) continue;
    if (w !== undefined && Number.isFinite(v) && Number.isFinite(w)) units.push([v, w]);
  }
  const statistic = sameScale(a.scale, b.scale) ? 'alpha' : 'spearman';
  const of = (sample: ReadonlyArray<[number, number]>) =>
    statistic === 'alpha'
      ? intervalAlpha(sample)
      : spearman(
          sample.map((u) => u[0]),
          sample.map((u) => u[1]),
        );
  return {
    a: a.name,
    b: b.name,
    units: units.length,
    statistic,
    value: of(units),
    interval: bootstrapInterval(units.length, (s) => of(s.map((i) => units[i]!)), { seed }),
  };
}

/** Every pair of the sources (in order), and every source against every one of `others`. */
export function agreementTable(sources: readonly ScoredSource[], others: readonly ScoredSource[], seed: number): PairAgreement[] {
  const out: PairAgreement[] = [];
  for (let i = 0; i < sources.length; i += 1) for (let j = i + 1; j < sources.length; j += 1) out.push(pairAgreement(sources[i]!, sources[j]!, seed));
  for (const s of sources) for (const o of others) out.push(pairAgreement(s, o, seed));
  return out;
}
