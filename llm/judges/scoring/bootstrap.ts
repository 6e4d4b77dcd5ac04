import { mulberry32 } from '../../../bridge/headless/order.js';

/**
 * Seeded percentile bootstrap (Efron & Tibshirani 1993, ch. 13): the statistic is recomputed on
 * `resamples` samples of the units drawn with replacement, and the interval is the 2.5th and 97.5th
 * percentiles of those values (linear interpolation between order statistics, numpy's default
 * "linear" method). Units are what is independent: a level for a team's mean rubric score, a
 * question for the ordering judge (all teams of a question move together), a rated item for an
 * agreement coefficient. A resample on which the statistic is undefined (null) is left out; when more
 * than half are, there is no interval. The same seed gives the same interval.
 */
export const BOOTSTRAP_RESAMPLES = 2000;
export const CONFIDENCE = 0.95;

export interface Interval {
  low: number;
  high: number;
}

export interface BootstrapOptions {
  resamples?: number;
  seed: number;
}

/** The q-quantile of sorted values (linear interpolation). */
export function quantile(sorted: readonly number[], q: number): number {
  const at = q * (sorted.length - 1);
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

export function bootstrapInterval(units: number, statistic: (sample: readonly number[]) => number | null, options: BootstrapOptions): Interval | null {
  if (units < 2) return null;
  const resamples = options.resamples ?? BOOTSTRAP_RESAMPLES;
  const random = mulberry32(options.seed >>> 0);
  const values: number[] = [];
  const sample = new Array<number>(units);
  for (let b = 0; b < resamples; b += 1) {
    for (let i = 0; i < units; i += 1) sample[i] = Math.floor(random() * units);
    const v = statistic(sample);
    if (v !== null && Number.isFinite(v)) values.push(v);
  }
  if (values.length * 2 < resamples) return null;
  values.sort((a, b) => a - b);
  const tail = (1 - CONFIDENCE) / 2;
  return { low: quantile(values, tail), high: quantile(values, 1 - tail) };
}

/** The mean of `values` with its bootstrap interval (units = the values). */
export function meanInterval(values: readonly number[], options: BootstrapOptions): { mean: number | null; interval: Interval | null } {
  if (values.length === 0) return { mean: null, interval: null };
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const interval = bootstrapInterval(values.length, (s) => s.reduce((a, i) => a + values[i]!, 0) / s.length, options);
  return { mean, interval };
}
