/**
 * Number printing of Unity's `JsonUtility.ToJson` for `float` fields, so stability files we write are
 * byte-identical to the Science Birds Evaluator's.
 *
 * Unity serialises through a RapidJSON-style writer: the float is widened to a double and printed with
 * Grisu2 (Loitsch 2010, "Printing floating-point numbers quickly and accurately with integers"), then
 * "prettified" (`1.0` for integers, plain decimals for 1e-6 ≤ |v| < 1e21, `1e-7` / `1.5e30` otherwise).
 * Grisu2 is not always the closest shortest representation, and the evaluator's files show it: 0.2f
 * prints `0.20000000298023225` (closest would be …224) and 0.96666670f prints `0.9666666984558106`.
 * Every float of the real evaluator files in calibration/reference-levels/∗∕stability and
 * sample-levels/sample-stability.json is reproduced by this module (see test/scoring/formats.test.ts).
 *
 * Which digit-generation variant matches: in the final rounding step of the fraction loop the
 * evaluator's writer scales the distance to the upper boundary by 10^k only for k < 9 and by 0
 * otherwise (i.e. no rounding towards the value for long fractions). That is what turns …224 into …225;
 * the variant that scales for every k gives …224 and does not match the golden files.
 *
 * 64-bit unsigned arithmetic of the original is done with BigInt and masked where C would wrap.
 */

const MASK64 = (1n << 64n) - 1n;
const BIT63 = 1n << 63n;
const HIDDEN_BIT = 1n << 52n;
const SIGNIFICAND_MASK = HIDDEN_BIT - 1n;
/** IEEE 754 double: exponent bias + 52 fraction bits. */
const EXPONENT_BIAS = 1075;
const MIN_EXPONENT = -EXPONENT_BIAS + 1;

/** A "do-it-yourself floating point": value = f · 2^e with a 64-bit unsigned f. */
interface DiyFp {
  f: bigint;
  e: number;
}

function diyFromDouble(value: number): DiyFp {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const significand = bits & SIGNIFICAND_MASK;
  return biased !== 0 ? { f: significand + HIDDEN_BIT, e: biased - EXPONENT_BIAS } : { f: significand, e: MIN_EXPONENT };
}

function normalize(x: DiyFp): DiyFp {
  let { f, e } = x;
  while ((f & BIT63) === 0n) {
    f <<= 1n;
    e -= 1;
  }
  return { f, e };
}

/** Boundaries m− and m+ halfway to the neighbouring doubles, both with m+'s (normalised) exponent. */
function normalizedBoundaries(v: DiyFp): { minus: DiyFp; plus: DiyFp } {
  let pf = (v.f << 1n) + 1n;
  let pe = v.e - 1;
  while ((pf & (HIDDEN_BIT << 1n)) === 0n) {
    pf <<= 1n;
    pe -= 1;
  }
  // Shift so the boundary uses all 64 bits (64 − 52 − 2 = 10 more bits).
  pf = (pf << 10n) & MASK64;
  pe -= 10;
  const asymmetric = v.f === HIDDEN_BIT;
  const mf = asymmetric ? (v.f << 2n) - 1n : (v.f << 1n) - 1n;
  const me = asymmetric ? v.e - 2 : v.e - 1;
  return { minus: { f: (mf << BigInt(me - pe)) & MASK64, e: pe }, plus: { f: pf, e: pe } };
}

/** 64×64 → upper 64 bits, rounded half up on bit 63 of the discarded half. */
function multiply(a: DiyFp, b: DiyFp): DiyFp {
  const product = a.f * b.f;
  return { f: ((product + BIT63) >> 64n) & MASK64, e: a.e + b.e + 64 };
}

/**
 * Cached powers 10^k for k = −348, −340, …, 340 as normalised 64-bit significands rounded to nearest
 * (the usual Grisu table, derived here from exact integer arithmetic instead of being tabulated).
 */
const CACHED_POWERS: readonly DiyFp[] = (() => {
  const table: DiyFp[] = [];
  for (let k = -348; k <= 340; k += 8) {
    let f: bigint;
    let e: number;
    if (k >= 0) {
      const n = 10n ** BigInt(k);
      const bits = n.toString(2).length;
      if (bits > 64) {
        const shift = BigInt(bits - 64);
        f = (n + (1n << (shift - 1n))) >> shift;
        e = bits - 64;
      } else {
        f = n << BigInt(64 - bits);
        e = bits - 64;
      }
    } else {
      const d = 10n ** BigInt(-k);
      const bits = d.toString(2).length;
      // 2^s / d lies in [2^63, 2^64) for s = 63 + bits.
      const s = 63 + bits;
      const num = 1n << BigInt(s);
      f = num / d;
      const rest = num - f * d;
      if (rest * 2n >= d) f += 1n;
      e = -s;
    }
    if (f >> 64n) {
      f >>= 1n;
      e += 1;
    }
    table.push({ f, e });
  }
  return table;
})();

function cachedPower(e: number): { power: DiyFp; k: number } {
  // Same double arithmetic as the original so the same table entry is chosen.
  const dk = (-61 - e) * 0.30102999566398114 + 347;
  let k = Math.trunc(dk);
  if (dk - k > 0) k += 1;
  const index = (k >> 3) + 1;
  const power = CACHED_POWERS[index];
  if (!power) throw new RangeError(`no cached power for binary exponent ${e}`);
  return { power, k: -(-348 + index * 8) };
}

const POW10 = Array.from({ length: 10 }, (_, i) => 10n ** BigInt(i));

function grisuRound(digits: number[], delta: bigint, restIn: bigint, tenKappa: bigint, wpW: bigint): void {
  let rest = restIn;
  const closer = () => {
    const next = (rest + tenKappa) & MASK64;
    return next < wpW || wpW - rest > ((next - wpW) & MASK64);
  };
  while (rest < wpW && delta - rest >= tenKappa && closer()) {
    const last = digits.length - 1;
    digits[last] = (digits[last] ?? 0) - 1;
    rest = (rest + tenKappa) & MASK64;
  }
}

function digitGen(w: DiyFp, mp: DiyFp, deltaIn: bigint, kIn: number): { digits: number[]; k: number } {
  const shift = BigInt(-mp.e);
  const one = 1n << shift;
  const wpW = (mp.f - w.f) & MASK64;
  let p1 = mp.f >> shift;
  let p2 = mp.f & (one - 1n);
  let delta = deltaIn;
  let k = kIn;
  let kappa = p1.toString().length; // decimal digits of p1 (p1 < 10^9 here)
  if (p1 === 0n) kappa = 1;
  const digits: number[] = [];
  while (kappa > 0) {
    const div = POW10[kappa - 1] ?? 1n;
    const d = p1 / div;
    p1 %= div;
    if (d !== 0n || digits.length > 0) digits.push(Number(d));
    kappa -= 1;
    const rest = (p1 << shift) + p2;
    if (rest <= delta) {
      k += kappa;
      grisuRound(digits, delta, rest, (POW10[kappa] ?? 0n) << shift, wpW);
      return { digits, k };
    }
  }
  for (;;) {
    p2 = (p2 * 10n) & MASK64;
    delta = (delta * 10n) & MASK64;
    const d = p2 >> shift;
    if (d !== 0n || digits.length > 0) digits.push(Number(d));
    p2 &= one - 1n;
    kappa -= 1;
    if (p2 < delta) {
      k += kappa;
      const index = -kappa;
      const scale = index < 9 ? (POW10[index] ?? 0n) : 0n;
      grisuRound(digits, delta, p2, one, (wpW * scale) & MASK64);
      return { digits, k };
    }
  }
}

/** Grisu2 digits and decimal exponent: value ≈ digits × 10^k. */
function grisu2(value: number): { digits: number[]; k: number } {
  const v = diyFromDouble(value);
  const { minus, plus } = normalizedBoundaries(v);
  const { power, k } = cachedPower(plus.e);
  const w = multiply(normalize(v), power);
  const wPlus = multiply(plus, power);
  const wMinus = multiply(minus, power);
  const upper = { f: wPlus.f - 1n, e: wPlus.e };
  const lower = wMinus.f + 1n;
  return digitGen(w, upper, upper.f - lower, k);
}

function exponent(k: number): string {
  return k < 0 ? `-${-k}` : String(k);
}

/** Places the decimal point like the writer's "prettify" step. */
function prettify(digits: string, k: number): string {
  const length = digits.length;
  const kk = length + k; // 10^(kk−1) ≤ v < 10^kk
  if (k >= 0 && kk <= 21) return `${digits}${'0'.repeat(k)}.0`;
  if (kk > 0 && kk <= 21) return `${digits.slice(0, kk)}.${digits.slice(kk)}`;
  if (kk > -6 && kk <= 0) return `0.${'0'.repeat(-kk)}${digits}`;
  if (length === 1) return `${digits}e${exponent(kk - 1)}`;
  return `${digits[0]}.${digits.slice(1)}e${exponent(kk - 1)}`;
}

/** Prints a double the way Unity's JSON writer does (`1.0`, `0.3333333432674408`, `1e-7`). */
export function formatUnityDouble(value: number): string {
  if (!Number.isFinite(value)) {
    // JsonUtility writes non-finite floats as these literals (not valid JSON); kept for completeness.
    return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
  }
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const sign = value < 0 ? '-' : '';
  const { digits, k } = grisu2(Math.abs(value));
  return sign + prettify(digits.join(''), k);
}

/** Prints a C# `float` field: rounded to float32, widened, then printed as above. */
export function formatUnityFloat(value: number): string {
  return formatUnityDouble(Math.fround(value));
}
