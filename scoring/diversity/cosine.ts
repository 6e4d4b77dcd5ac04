/**
 * `scipy.spatial.distance.cosine(u, v)` as scipy 1.12 computes it (the diversity script pins
 * `scipy~=1.12.0`): `correlation(u, v, centered=False)` =
 *   uv = u·v, uu = u·u, vv = v·v;  dist = 1.0 − uv / math.sqrt(uu · vv);  return abs(dist)
 * and then `max(0, min(dist, 2.0))`. Two consequences that show in the files:
 * - a tiny negative rounding result comes back positive (abs), it is not clipped to 0 (scipy ≥ 1.13 clips);
 * - an exact 0 (identical vectors: sqrt(uu·uu) = uu exactly) is Python's int `0` from `max(0, 0.0)`, which
 *   `json.dumps` prints as `0`, not `0.0` — see `CosineResult.isIntZero`.
 * The dot products are summed in index order in double precision; numpy hands them to BLAS (ddot), whose
 * blocked/FMA summation order depends on the CPU, so the last bit or two can differ from a given machine's
 * scipy (relative error ~1e-16). A zero vector makes the ratio NaN (0/0); Python's `max(0, nan)` keeps the
 * first argument, so scipy 1.12 returns the int 0 there too.
 */

interface CosineResult {
  distance: number;
  /** True when scipy 1.12 returns the int 0 (exactly identical direction, to the last bit). */
  isIntZero: boolean;
}

/** The dot product summed in index order (as scipy's `np.dot` here, see above). */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

export function scipyCosine(u: ArrayLike<number>, v: ArrayLike<number>): CosineResult {
  if (u.length !== v.length) throw new RangeError(`vectors differ in length (${u.length} vs ${v.length})`);
  return scipyCosineOfDots(dot(u, v), dot(u, u), dot(v, v));
}

/**
 * The distance from the three dot products, for a caller that pairs every vector with many others and
 * computes each vector's own u·u once (the same double every time, so the same distance).
 */
export function scipyCosineOfDots(uv: number, uu: number, vv: number): CosineResult {
  const dist = Math.abs(1.0 - uv / Math.sqrt(uu * vv));
  // Python's min/max keep the first argument unless a later one compares strictly smaller/larger:
  // min(dist, 2.0) is 2.0 only if dist > 2.0; max(0, x) is x only if x > 0 (so 0 and NaN give int 0).
  const clipped = Math.min(dist, 2.0);
  return clipped > 0 ? { distance: clipped, isIntZero: false } : { distance: 0, isIntZero: true };
}

/** The distance alone (number), for callers that do not print JSON. */
export function cosineDistance(u: ArrayLike<number>, v: ArrayLike<number>): number {
  return scipyCosine(u, v).distance;
}
