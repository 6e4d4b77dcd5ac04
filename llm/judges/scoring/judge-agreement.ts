import { intervalAlpha } from './agreement.js';
import { bootstrapInterval, type Interval } from './bootstrap.js';

/**
 * Agreement between two sources of scores for the same levels — two LLM judges, or a judge and the
 * survey's raters — as Krippendorff's interval α with a bootstrap interval (levels resampled). Each
 * source's values are first mapped linearly onto 0–1 by the range of its own scale (rubric 0–100; an
 * ordering judge from its lowest rank score to 10; a survey metric from its scale's min to max), so
 * sources on different scales can be compared; for two sources on the same scale this changes
 * nothing (α is unchanged by one linear map of every value). Units are the levels both scored, each
 * with two values: the first source's and the second's (for the survey, the mean of the raters'
 * ratings of that level).
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
}

export interface PairAgreement {
  a: string;
  b: string;
  /** Levels scored by both. */
  units: number;
  alpha: number | null;
  interval: Interval | null;
}

const unit = (v: number, s: Scale) => (s.max === s.min ? 0 : (v - s.min) / (s.max - s.min));

export function pairAgreement(a: ScoredSource, b: ScoredSource, seed: number): PairAgreement {
  const units: Array<[number, number]> = [];
  for (const [key, v] of a.scores) {
    const w = b.scores.get(key);
    if (w !== undefined && Number.isFinite(v) && Number.isFinite(w)) units.push([unit(v, a.scale), unit(w, b.scale)]);
  }
  return {
    a: a.name,
    b: b.name,
    units: units.length,
    alpha: intervalAlpha(units),
    interval: bootstrapInterval(units.length, (s) => intervalAlpha(s.map((i) => units[i]!)), { seed }),
  };
}

/** Every pair of the sources (in order), and every source against every one of `others`. */
export function agreementTable(sources: readonly ScoredSource[], others: readonly ScoredSource[], seed: number): PairAgreement[] {
  const out: PairAgreement[] = [];
  for (let i = 0; i < sources.length; i += 1) for (let j = i + 1; j < sources.length; j += 1) out.push(pairAgreement(sources[i]!, sources[j]!, seed));
  for (const s of sources) for (const o of others) out.push(pairAgreement(s, o, seed));
  return out;
}
