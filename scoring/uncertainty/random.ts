/**
 * The bootstrap's own seeded random numbers (no `Math.random`): xoshiro128** (Blackman & Vigna,
 * "Scrambled linear pseudorandom number generators", 2021; prng.di.unimi.it), 128 bits of state, seeded
 * through splitmix32 as its authors advise. Each team of each resample draws from its own stream,
 * seeded from (seed, the team's name, resample index): resample r can be reproduced alone (the tests
 * write single resamples out as folders), two resamples never share a stretch of numbers (a 32-bit
 * generator's streams would), and a team's draws do not change when another team joins or leaves the
 * folder.
 */

/**
 * A 32-bit word for a text (a team's name): FNV-1a over its UTF-16 code units, finished with splitmix32
 * so that names differing in one letter give unrelated words.
 */
export function textWord(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return splitmix32({ s: h });
}

/** The seed word of one team's streams: the user's seed and the team's own word, mixed. */
export function streamSeed(seed: number, word: number): number {
  return splitmix32({ s: (Math.imul(seed >>> 0, 0x9e3779b1) ^ word) | 0 });
}

/** splitmix32 step: a well-mixed 32-bit value from a counter (Vigna's splitmix, 32-bit variant). */
function splitmix32(state: { s: number }): number {
  state.s = (state.s + 0x9e3779b9) | 0;
  let z = state.s;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

const TWO_30 = 1073741824;
/** `Digits` takes bases up to this (one digit per 30-bit draw). */
export const MAX_DIGIT_BASE = TWO_30;

export class Xoshiro128 {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** A stream from two 32-bit words (e.g. the user's seed and the resample index). */
  constructor(seed: number, stream = 0) {
    this.a = this.b = this.c = this.d = 0;
    this.reseed(seed, stream);
  }

  /** Restarts as `new Xoshiro128(seed, stream)` would (the bootstrap reuses one generator per team). */
  reseed(seed: number, stream = 0): void {
    const mix = { s: (seed >>> 0) ^ Math.imul(stream >>> 0, 0x27d4eb2f) };
    const first = splitmix32(mix);
    const state = { s: first ^ (stream >>> 0) };
    this.a = splitmix32(state);
    this.b = splitmix32(state);
    this.c = splitmix32(state);
    this.d = splitmix32(state);
    // The all-zero state is the generator's one fixed point.
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1;
  }

  /** A generator with the given state words (the reference implementation's `s[0..3]`), for checks against it. */
  static fromState(a: number, b: number, c: number, d: number): Xoshiro128 {
    const g = new Xoshiro128(0);
    g.a = a | 0;
    g.b = b | 0;
    g.c = c | 0;
    g.d = d | 0;
    return g;
  }

  /** The next 32-bit output (unsigned). */
  next(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** A uniform double in [0, 1) with 53 random bits (two outputs). */
  uniform(): number {
    return ((this.next() >>> 5) * 67108864 + (this.next() >>> 6)) / 9007199254740992;
  }
}

/**
 * Uniform integers in [0, n), n ≤ 2^30, without bias, several per 32-bit output of a generator: one
 * draw y uniform in [0, n^k) (rejection on 30 bits, n^k ≤ 2^30) gives k independent uniform base-n
 * digits. For n = 10 that is nine per output, so the bootstrap's trial draws cost a ninth of the
 * generator's work. Several sources may share a generator (trial draws and perturbed-run draws
 * interleave) without disturbing each other's pending digits.
 */
export class Digits {
  private pool = 0;
  private left = 0;
  /** n^k, the largest power of n not above 2^30. */
  private readonly span: number;
  private readonly perDraw: number;
  /** The largest multiple of n^k not above 2^30: draws below it are uniform over [0, n^k) when reduced. */
  private readonly limit: number;

  constructor(
    private readonly source: Xoshiro128,
    readonly n: number,
  ) {
    if (!(Number.isInteger(n) && n >= 1 && n <= MAX_DIGIT_BASE)) throw new RangeError(`Digits needs a whole base from 1 to 2^30, got ${n}`);
    let k = 1;
    let span = n;
    while (n > 1 && span * n <= TWO_30) {
      span *= n;
      k += 1;
    }
    this.span = span;
    this.perDraw = k;
    this.limit = Math.floor(TWO_30 / span) * span;
  }

  /**
   * `count` digits into out[from …]: the digits `count` calls of `next` give (the same draws from the
   * generator, the same digits left over), in one loop with the state in locals (the bootstrap draws
   * a competition's trial indices in one call).
   */
  fill(out: Int32Array, from: number, count: number): void {
    const { n, perDraw } = this;
    if (n === 1) {
      out.fill(0, from, from + count);
      return;
    }
    let pool = this.pool;
    let left = this.left;
    for (let j = from; j < from + count; j++) {
      if (left === 0) {
        pool = this.draw();
        left = perDraw;
      }
      const rest = (pool / n) | 0;
      out[j] = pool - rest * n;
      pool = rest;
      left -= 1;
    }
    this.pool = pool;
    this.left = left;
  }

  /** Forgets pending digits (after its generator was reseeded). */
  reset(): void {
    this.pool = 0;
    this.left = 0;
  }

  /** One draw uniform in [0, n^k): rejection on 30 bits. */
  private draw(): number {
    let y = this.source.next() >>> 2;
    while (y >= this.limit) y = this.source.next() >>> 2;
    return y % this.span;
  }

  next(): number {
    const n = this.n;
    if (n === 1) return 0;
    if (this.left === 0) {
      this.pool = this.draw();
      this.left = this.perDraw;
    }
    const rest = (this.pool / n) | 0;
    const digit = this.pool - rest * n;
    this.pool = rest;
    this.left -= 1;
    return digit;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
