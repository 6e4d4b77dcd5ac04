/**
 * A whole number from a bench environment variable (`SBEVAL_BENCH_…`): `fallback` when unset or empty,
 * else a whole number in `min..max`, or the bench stops and names the variable.
 */
export function envInteger(name: string, fallback: number, min: number, max: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be ${min}..${max}, got ${value}`);
  return n;
}
