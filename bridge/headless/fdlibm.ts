/**
 * `Math.sin`, `Math.cos` and `Math.atan2` as Node's V8 computes them: V8's ports of fdlibm 5.3
 * (`src/base/ieee754.cc`: `__kernel_sin`, `__kernel_cos`, `__ieee754_rem_pio2`, `atan`, `atan2`),
 * written out in JavaScript with the same operations in the same order. The three are the only
 * transcendental functions planck and the headless engine call, and newer browsers' V8 gives other
 * last bits for them (Chromium 156 differs from Node 20 on ~3 % of sin, cos and atan2 inputs), which a
 * 10-s simulation turns into other positions. The playground's bundle (scripts/build-play.mjs) replaces
 * the three by these, so a page computes the frames Node computes; the Node path calls V8's own.
 * test/play/fdlibm.test.ts compares them with Node's on millions of inputs, angles near k·π/2 included.
 *
 * Arguments past 2^19·π/2 in size (which no body's angle reaches in a trial) go to the browser's own.
 */

// The constants are fdlibm's, written in the shortest decimal that gives the same double.
const words = new DataView(new ArrayBuffer(8));
/** The runtime's own functions, for the arguments past the reduction here (not `Math.sin`: the bundle rewrites that name to these). */
const runtime: Pick<Math, 'sin' | 'cos'> = Math;

function high(x: number): number {
  words.setFloat64(0, x);
  return words.getInt32(0);
}

function low(x: number): number {
  words.setFloat64(0, x);
  return words.getUint32(4);
}

/** `INSERT_WORDS(x, hi, 0)`. */
function withHigh(hi: number): number {
  words.setInt32(0, hi);
  words.setUint32(4, 0);
  return words.getFloat64(0);
}

const S1 = -0.16666666666666632;
const S2 = 0.00833333333332249;
const S3 = -0.0001984126982985795;
const S4 = 0.0000027557313707070068;
const S5 = -2.5050760253406863e-8;
const S6 = 1.58969099521155e-10;

function kernelSin(x: number, y: number, iy: number): number {
  const ix = high(x) & 0x7fffffff;
  if (ix < 0x3e400000 && Math.trunc(x) === 0) return x;
  const z = x * x;
  const v = z * x;
  const r = S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)));
  if (iy === 0) return x + v * (S1 + z * r);
  return x - (z * (0.5 * y - v * r) - y - v * S1);
}

const C1 = 0.0416666666666666;
const C2 = -0.001388888888887411;
const C3 = 0.00002480158728947673;
const C4 = -2.7557314351390663e-7;
const C5 = 2.087572321298175e-9;
const C6 = -1.1359647557788195e-11;

function kernelCos(x: number, y: number): number {
  const ix = high(x) & 0x7fffffff;
  if (ix < 0x3e400000 && Math.trunc(x) === 0) return 1;
  const z = x * x;
  const r = z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
  if (ix < 0x3fd33333) return 1 - (0.5 * z - (z * r - x * y));
  const qx = ix > 0x3fe90000 ? 0.28125 : withHigh(ix - 0x00200000);
  const hz = 0.5 * z - qx;
  const a = 1 - qx;
  return a - (hz - (z * r - x * y));
}

const INV_PIO2 = 0.6366197723675814;
const PIO2_1 = 1.5707963267341256;
const PIO2_1T = 6.077100506506192e-11;
const PIO2_2 = 6.077100506303966e-11;
const PIO2_2T = 2.0222662487959506e-21;
const PIO2_3 = 2.0222662487111665e-21;
const PIO2_3T = 8.4784276603689e-32;
/** High words of n·π/2 for n = 1 … 32 (fdlibm's `npio2_hw`): near them the reduction cancels. */
const NPIO2_HW = [
  0x3ff921fb, 0x400921fb, 0x4012d97c, 0x401921fb, 0x401f6a7a, 0x4022d97c, 0x4025fdbb, 0x402921fb, 0x402c463a, 0x402f6a7a, 0x4031475c, 0x4032d97c, 0x40346b9c,
  0x4035fdbb, 0x40378fdb, 0x403921fb, 0x403ab41b, 0x403c463a, 0x403dd85a, 0x403f6a7a, 0x40407e4c, 0x4041475c, 0x4042106c, 0x4042d97c, 0x4043a28c, 0x40446b9c,
  0x404534ac, 0x4045fdbb, 0x4046c6cb, 0x40478fdb, 0x404858eb, 0x404921fb,
];

/** `__ieee754_rem_pio2` for |x| ≤ 2^19·π/2: x = n·π/2 + (y0 + y1); undefined beyond. */
function remPio2(x: number): [number, number, number] | undefined {
  const hx = high(x);
  const ix = hx & 0x7fffffff;
  if (ix < 0x4002d97c) {
    const sign = hx > 0 ? 1 : -1;
    let z = x - sign * PIO2_1;
    if (ix !== 0x3ff921fb) {
      const y0 = z - sign * PIO2_1T;
      return [sign, y0, z - y0 - sign * PIO2_1T];
    }
    z -= sign * PIO2_2;
    const y0 = z - sign * PIO2_2T;
    return [sign, y0, z - y0 - sign * PIO2_2T];
  }
  if (ix > 0x413921fb) return undefined;
  const t = Math.abs(x);
  const n = Math.trunc(t * INV_PIO2 + 0.5);
  const fn = n;
  let r = t - fn * PIO2_1;
  let w = fn * PIO2_1T;
  let y0 = r - w;
  if (!(n < 32 && ix !== NPIO2_HW[n - 1])) {
    const j = ix >> 20;
    let i = j - ((high(y0) >> 20) & 0x7ff);
    if (i > 16) {
      let u = r;
      w = fn * PIO2_2;
      r = u - w;
      w = fn * PIO2_2T - (u - r - w);
      y0 = r - w;
      i = j - ((high(y0) >> 20) & 0x7ff);
      if (i > 49) {
        u = r;
        w = fn * PIO2_3;
        r = u - w;
        w = fn * PIO2_3T - (u - r - w);
        y0 = r - w;
      }
    }
  }
  const y1 = r - y0 - w;
  return hx < 0 ? [-n, -y0, -y1] : [n, y0, y1];
}

export function fdlibmSin(x: number): number {
  const ix = high(x) & 0x7fffffff;
  if (ix <= 0x3fe921fb) return kernelSin(x, 0, 0);
  if (ix >= 0x7ff00000) return x - x;
  const reduced = remPio2(x);
  if (!reduced) return runtime.sin(x);
  const [n, y0, y1] = reduced;
  switch (n & 3) {
    case 0:
      return kernelSin(y0, y1, 1);
    case 1:
      return kernelCos(y0, y1);
    case 2:
      return -kernelSin(y0, y1, 1);
    default:
      return -kernelCos(y0, y1);
  }
}

export function fdlibmCos(x: number): number {
  const ix = high(x) & 0x7fffffff;
  if (ix <= 0x3fe921fb) return kernelCos(x, 0);
  if (ix >= 0x7ff00000) return x - x;
  const reduced = remPio2(x);
  if (!reduced) return runtime.cos(x);
  const [n, y0, y1] = reduced;
  switch (n & 3) {
    case 0:
      return kernelCos(y0, y1);
    case 1:
      return -kernelSin(y0, y1, 1);
    case 2:
      return -kernelCos(y0, y1);
    default:
      return kernelSin(y0, y1, 1);
  }
}

const ATAN_HI = [0.4636476090008061, 0.7853981633974483, 0.982793723247329, 1.5707963267948966];
const ATAN_LO = [2.2698777452961687e-17, 3.061616997868383e-17, 1.3903311031230998e-17, 6.123233995736766e-17];
const AT = [
  0.3333333333333293, -0.19999999999876483, 0.14285714272503466, -0.11111110405462356, 0.09090887133436507, -0.0769187620504483, 0.06661073137387531,
  -0.058335701337905735, 0.049768779946159324, -0.036531572744216916, 0.016285820115365782,
];

function atan(input: number): number {
  const hx = high(input);
  const ix = hx & 0x7fffffff;
  let x = input;
  let id: number;
  if (ix >= 0x44100000) {
    if (Number.isNaN(x)) return x + x;
    return hx > 0 ? ATAN_HI[3]! + ATAN_LO[3]! : -ATAN_HI[3]! - ATAN_LO[3]!;
  }
  if (ix < 0x3fdc0000) {
    if (ix < 0x3e400000) return x;
    id = -1;
  } else {
    x = Math.abs(x);
    if (ix < 0x3ff30000) {
      if (ix < 0x3fe60000) {
        id = 0;
        x = (2 * x - 1) / (2 + x);
      } else {
        id = 1;
        x = (x - 1) / (x + 1);
      }
    } else if (ix < 0x40038000) {
      id = 2;
      x = (x - 1.5) / (1 + 1.5 * x);
    } else {
      id = 3;
      x = -1 / x;
    }
  }
  const z = x * x;
  const w = z * z;
  const s1 = z * (AT[0]! + w * (AT[2]! + w * (AT[4]! + w * (AT[6]! + w * (AT[8]! + w * AT[10]!)))));
  const s2 = w * (AT[1]! + w * (AT[3]! + w * (AT[5]! + w * (AT[7]! + w * AT[9]!))));
  if (id < 0) return x - x * (s1 + s2);
  const r = ATAN_HI[id]! - (x * (s1 + s2) - ATAN_LO[id]! - x);
  return hx < 0 ? -r : r;
}

const PI_O_4 = Math.PI / 4;
const PI_O_2 = Math.PI / 2;
const PI = Math.PI;
const PI_LO = 1.2246467991473532e-16;
const TINY = 1.0e-300;

/** Both arguments zero or infinite, or x = 1: fdlibm's special cases; undefined otherwise. */
function atan2Special(y: number, x: number, m: number): number | undefined {
  const ix = high(x) & 0x7fffffff;
  const iy = high(y) & 0x7fffffff;
  if (x === 1) return atan(y);
  if (y === 0) return m < 2 ? y : m === 2 ? PI + TINY : -PI - TINY;
  if (x === 0) return high(y) < 0 ? -PI_O_2 - TINY : PI_O_2 + TINY;
  if (ix === 0x7ff00000 && low(x) === 0) {
    if (iy === 0x7ff00000 && low(y) === 0) return [PI_O_4 + TINY, -PI_O_4 - TINY, 3 * PI_O_4 + TINY, -3 * PI_O_4 - TINY][m];
    return [0, -0, PI + TINY, -PI - TINY][m];
  }
  if (iy === 0x7ff00000 && low(y) === 0) return high(y) < 0 ? -PI_O_2 - TINY : PI_O_2 + TINY;
  return undefined;
}

export function fdlibmAtan2(y: number, x: number): number {
  if (Number.isNaN(x) || Number.isNaN(y)) return x + y;
  const hx = high(x);
  const hy = high(y);
  let m = ((hy >>> 31) & 1) | ((hx >>> 30) & 2);
  const special = atan2Special(y, x, m);
  if (special !== undefined) return special;
  const k = ((hy & 0x7fffffff) - (hx & 0x7fffffff)) >> 20;
  let z: number;
  if (k > 60) {
    z = PI_O_2 + 0.5 * PI_LO;
    m &= 1;
  } else if (hx < 0 && k < -60) z = 0;
  else z = atan(Math.abs(y / x));
  switch (m) {
    case 0:
      return z;
    case 1:
      return -z;
    case 2:
      return PI - (z - PI_LO);
    default:
      return z - PI_LO - PI;
  }
}
