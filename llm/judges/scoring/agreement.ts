/**
 * Agreement statistics for the judges and the human survey.
 *
 * Krippendorff's alpha (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability", §C and
 * §E): from the coincidence matrix of the values that different raters gave the same unit (units
 * rated by fewer than two raters are not pairable and drop out), α = 1 − D_o / D_e with observed
 * disagreement D_o = Σ o_ck δ²_ck / n and expected D_e = Σ n_c n_k δ²_ck / (n (n − 1)). Metrics δ²:
 * nominal [c ≠ k]; ordinal (Σ_{g between c and k} n_g − (n_c + n_k)/2)²; interval (c − k)².
 * Checked against the worked examples of that paper (nominal .743, ordinal .815, interval .849) and
 * of Wikipedia's article (nominal .691, interval .811) in test/llm/judges/scoring.test.ts.
 *
 * Correlations: Pearson's r, and Spearman's ρ as Pearson's r of the ranks, ties taking the mean of
 * the ranks they span (scipy.stats.spearmanr's definition).
 */
export type AlphaLevel = 'nominal' | 'ordinal' | 'interval';

/** `units[u]` = the values the raters gave unit u (missing ratings simply absent). */
export type Units = ReadonlyArray<ReadonlyArray<number>>;

export interface AlphaResult {
  /** null when undefined: fewer than two pairable values, or no variation at all (D_e = 0). */
  alpha: number | null;
  /** Pairable values (n in the formulas). */
  pairable: number;
  /** Units rated by at least two raters. */
  units: number;
  observed: number;
  expected: number;
}

export function krippendorffAlpha(units: Units, level: AlphaLevel): AlphaResult {
  const usable = units.filter((u) => u.length >= 2);
  const values = [...new Set(usable.flat())].sort((a, b) => a - b);
  const index = new Map(values.map((v, i) => [v, i]));
  const V = values.length;
  const o: number[][] = Array.from({ length: V }, () => new Array<number>(V).fill(0));
  for (const unit of usable) {
    const m = unit.length;
    for (let i = 0; i < m; i += 1) {
      for (let j = 0; j < m; j += 1) {
        if (i === j) continue;
        o[index.get(unit[i]!)!]![index.get(unit[j]!)!]! += 1 / (m - 1);
      }
    }
  }
  const nc = o.map((row) => row.reduce((a, b) => a + b, 0));
  const n = nc.reduce((a, b) => a + b, 0);
  const delta = (c: number, k: number): number => {
    if (c === k) return 0;
    if (level === 'nominal') return 1;
    if (level === 'interval') return (values[c]! - values[k]!) ** 2;
    const [lo, hi] = c < k ? [c, k] : [k, c];
    let sum = 0;
    for (let g = lo; g <= hi; g += 1) sum += nc[g]!;
    return (sum - (nc[c]! + nc[k]!) / 2) ** 2;
  };
  let observed = 0;
  let expected = 0;
  for (let c = 0; c < V; c += 1) {
    for (let k = 0; k < V; k += 1) {
      const d = delta(c, k);
      observed += o[c]![k]! * d;
      expected += nc[c]! * nc[k]! * d;
    }
  }
  if (n < 2) return { alpha: null, pairable: n, units: usable.length, observed: NaN, expected: NaN };
  observed /= n;
  expected /= n * (n - 1);
  return { alpha: expected === 0 ? null : 1 - observed / expected, pairable: n, units: usable.length, observed, expected };
}

/** Pearson's r; null for fewer than 3 pairs or a constant series. */
export function pearson(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length) throw new RangeError(`series of different lengths (${x.length}, ${y.length})`);
  const n = x.length;
  if (n < 3) return null;
  const mx = x.reduce((a, b) => a + b, 0) / n;
  const my = y.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i += 1) {
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx === 0 || syy === 0) return null;
  return sxy / Math.sqrt(sxx * syy);
}

/** Ranks 1..n, ties sharing the mean of the ranks they span. */
export function averageRanks(values: readonly number[]): number[] {
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const ranks = new Array<number>(values.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j += 1;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k += 1) ranks[order[k]![1]] = rank;
    i = j + 1;
  }
  return ranks;
}

export function spearman(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length) throw new RangeError(`series of different lengths (${x.length}, ${y.length})`);
  return pearson(averageRanks(x), averageRanks(y));
}

/** Pairs where both values are finite numbers. */
export function finitePairs(pairs: ReadonlyArray<readonly [number | undefined | null, number | undefined | null]>): { x: number[]; y: number[] } {
  const x: number[] = [];
  const y: number[] = [];
  for (const [a, b] of pairs) {
    if (typeof a === 'number' && typeof b === 'number' && Number.isFinite(a) && Number.isFinite(b)) {
      x.push(a);
      y.push(b);
    }
  }
  return { x, y };
}

/**
 * Krippendorff's interval α in one pass over the values, for the bootstrap's thousands of resamples:
 * with δ² = (c − k)², the coincidence sums reduce to squared deviations — for a unit of m pairable
 * values, Σ_{i≠j} (v_i − v_j)² = 2m Σ (v_i − v̄_u)², and over all n pairable values Σ_c Σ_k n_c n_k
 * (c − k)² = 2n Σ (v − v̄)² — so D_o = (1/n) Σ_u 2 m_u SS_u / (m_u − 1) and D_e = 2 SS / (n − 1).
 * Equal to krippendorffAlpha(units, 'interval').alpha (test/llm/judges/scoring.test.ts).
 */
export function intervalAlpha(units: Units): number | null {
  let n = 0;
  let total = 0;
  let observed = 0;
  for (const unit of units) {
    const m = unit.length;
    if (m < 2) continue;
    let s = 0;
    for (const v of unit) s += v;
    const mu = s / m;
    let ss = 0;
    for (const v of unit) ss += (v - mu) ** 2;
    observed += (2 * m * ss) / (m - 1);
    n += m;
    total += s;
  }
  if (n < 2) return null;
  const grand = total / n;
  let ss = 0;
  for (const unit of units) if (unit.length >= 2) for (const v of unit) ss += (v - grand) ** 2;
  const expected = (2 * ss) / (n - 1);
  if (expected === 0) return null;
  return 1 - observed / n / expected;
}
