/**
 * Pillow's resampling of 8-bit images, reproduced bit for bit.
 *
 * The official similarity script resizes with `PIL.Image.resize(size, BILINEAR)` (through transformers'
 * `image_transforms.resize`, `reducing_gap=None`). Pillow does it in `src/libImaging/Resample.c`
 * (`ImagingResampleInner`): a separable two-pass convolution, horizontal pass first (only over the rows the
 * vertical pass will read), each pass rounding to 8 bits. Filter weights are computed in double precision
 * (`precompute_coeffs`), normalised to sum 1, then turned into fixed-point integers with
 * `PRECISION_BITS = 32 - 8 - 2 = 22` fractional bits (`normalize_coeffs_8bpc`); each output sample is
 * `clip8((1 << 21) + Σ pixel·coeff) = clamp((…) >> 22, 0, 255)`. This code is unchanged from Pillow 10.2
 * (the official `pillow~=10.2.0`) to 11.x except for formatting. Everything below follows those functions
 * operation for operation, because a different summation order or rounding changes output pixels.
 */

/** PIL's `Image.Resampling` numbers (as in `preprocessor_config.json` `resample`). */
export const PIL_RESAMPLE = { NEAREST: 0, LANCZOS: 1, BILINEAR: 2, BICUBIC: 3, BOX: 4, HAMMING: 5 } as const;
export type PilResample = (typeof PIL_RESAMPLE)[keyof typeof PIL_RESAMPLE];

interface Filter {
  name: string;
  support: number;
  weight(x: number): number;
}

// The filters of Resample.c, same expressions, same constants.
const BOX: Filter = { name: 'BOX', support: 0.5, weight: (x) => (x > -0.5 && x <= 0.5 ? 1.0 : 0.0) };
const BILINEAR: Filter = {
  name: 'BILINEAR',
  support: 1.0,
  weight: (x) => {
    if (x < 0.0) x = -x;
    return x < 1.0 ? 1.0 - x : 0.0;
  },
};
// `0.54f + 0.46f * cos(x)`: float literals promoted to double.
const F054 = Math.fround(0.54);
const F046 = Math.fround(0.46);
const HAMMING: Filter = {
  name: 'HAMMING',
  support: 1.0,
  weight: (x) => {
    if (x < 0.0) x = -x;
    if (x === 0.0) return 1.0;
    if (x >= 1.0) return 0.0;
    x = x * Math.PI;
    return (Math.sin(x) / x) * (F054 + F046 * Math.cos(x));
  },
};
const BICUBIC: Filter = {
  name: 'BICUBIC',
  support: 2.0,
  weight: (x) => {
    const a = -0.5;
    if (x < 0.0) x = -x;
    if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
    if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
    return 0.0;
  },
};
function sinc(x: number): number {
  if (x === 0.0) return 1.0;
  x = x * Math.PI;
  return Math.sin(x) / x;
}
const LANCZOS: Filter = {
  name: 'LANCZOS',
  support: 3.0,
  weight: (x) => (-3.0 <= x && x < 3.0 ? sinc(x) * sinc(x / 3) : 0.0),
};

const FILTERS: Partial<Record<number, Filter>> = { 1: LANCZOS, 2: BILINEAR, 3: BICUBIC, 4: BOX, 5: HAMMING };

export function isSupportedResample(resample: number): boolean {
  return FILTERS[resample] !== undefined;
}

const PRECISION_BITS = 32 - 8 - 2;

/** Fixed-point coefficients of one axis: for output i, taps start at `bounds[2i]`, count `bounds[2i+1]`. */
interface AxisCoefficients {
  ksize: number;
  bounds: Int32Array;
  /** `outSize × ksize` integers with 22 fractional bits. */
  coeffs: Int32Array;
}

/** `precompute_coeffs` + `normalize_coeffs_8bpc`. `in0`/`in1` are the (float) box edges, here 0 and inSize. */
export function axisCoefficients(inSize: number, outSize: number, filter: Filter, in0 = 0, in1 = inSize): AxisCoefficients {
  const box0 = Math.fround(in0);
  const box1 = Math.fround(in1);
  const scale = Math.fround(box1 - box0) / outSize;
  const filterscale = Math.max(scale, 1.0);
  const support = filter.support * filterscale;
  const ksize = Math.ceil(support) * 2 + 1;
  const bounds = new Int32Array(outSize * 2);
  const coeffs = new Int32Array(outSize * ksize);
  const k = new Float64Array(ksize);
  for (let xx = 0; xx < outSize; xx++) {
    const center = box0 + (xx + 0.5) * scale;
    let ww = 0.0;
    const ss = 1.0 / filterscale;
    let xmin = Math.trunc(center - support + 0.5);
    if (xmin < 0) xmin = 0;
    let xmax = Math.trunc(center + support + 0.5);
    if (xmax > inSize) xmax = inSize;
    xmax -= xmin;
    for (let x = 0; x < xmax; x++) {
      const w = filter.weight((x + xmin - center + 0.5) * ss);
      k[x] = w;
      ww += w;
    }
    for (let x = 0; x < ksize; x++) {
      let v = x < xmax ? k[x]! : 0;
      if (x < xmax && ww !== 0.0) v /= ww;
      // (int)(±0.5 + v * (1 << PRECISION_BITS)): C truncation toward zero.
      coeffs[xx * ksize + x] = v < 0 ? Math.trunc(-0.5 + v * (1 << PRECISION_BITS)) : Math.trunc(0.5 + v * (1 << PRECISION_BITS));
    }
    bounds[xx * 2] = xmin;
    bounds[xx * 2 + 1] = xmax;
  }
  return { ksize, bounds, coeffs };
}

/** `clip8`: the `_clip8_lookups` table is clamp(in >> 22, 0, 255) over its whole range. */
function clip8(sum: number): number {
  const v = sum >> PRECISION_BITS;
  return Math.max(0, Math.min(255, v));
}

const ROUND = 1 << (PRECISION_BITS - 1);

/** An 8-bit image with interleaved channels. */
export interface Image8 {
  width: number;
  height: number;
  channels: number;
  data: Uint8Array;
}

function horizontal(src: Image8, outWidth: number, rowOffset: number, rows: number, c: AxisCoefficients): Image8 {
  const out = new Uint8Array(outWidth * rows * src.channels);
  if (src.channels === 3) horizontalRgb(src, out, outWidth, rowOffset, rows, c);
  else if (src.channels === 1) horizontalGrey(src, out, outWidth, rowOffset, rows, c);
  else horizontalAny(src, out, outWidth, rowOffset, rows, c);
  return { width: outWidth, height: rows, channels: src.channels, data: out };
}

/** The common case (RGB), unrolled: same sums in the same order as the generic loop (horizontalAny). */
function horizontalRgb(src: Image8, out: Uint8Array, outWidth: number, rowOffset: number, rows: number, c: AxisCoefficients): void {
  const data = src.data;
  const { bounds, coeffs, ksize } = c;
  for (let yy = 0; yy < rows; yy++) {
    const rowStart = (yy + rowOffset) * src.width * 3;
    for (let xx = 0; xx < outWidth; xx++) {
      const xmin = bounds[xx * 2]!;
      const xmax = bounds[xx * 2 + 1]!;
      const kBase = xx * ksize;
      let s0 = ROUND;
      let s1 = ROUND;
      let s2 = ROUND;
      let p = rowStart + xmin * 3;
      for (let x = 0; x < xmax; x++, p += 3) {
        const w = coeffs[kBase + x]!;
        s0 += data[p]! * w;
        s1 += data[p + 1]! * w;
        s2 += data[p + 2]! * w;
      }
      const o = (yy * outWidth + xx) * 3;
      out[o] = clip8(s0);
      out[o + 1] = clip8(s1);
      out[o + 2] = clip8(s2);
    }
  }
}

/** Σ coefficients of each output sample's window. */
function windowWeightSums(outWidth: number, c: AxisCoefficients): Float64Array {
  const weightSums = new Float64Array(outWidth);
  for (let xx = 0; xx < outWidth; xx++) {
    let sum = 0;
    for (let x = 0; x < c.bounds[xx * 2 + 1]!; x++) sum += c.coeffs[xx * c.ksize + x]!;
    weightSums[xx] = sum;
  }
  return weightSums;
}

/**
 * changes[i]: how many j in 1..i have data[j] ≠ data[j − 1] in the row starting at `rowStart`; a window
 * [a, a + n) is uniform when changes[a + n − 1] = changes[a].
 */
function countChanges(data: Uint8Array, rowStart: number, width: number, changes: Int32Array): void {
  let count = 0;
  let last = data[rowStart]!;
  changes[0] = 0;
  for (let x = 1; x < width; x++) {
    const v = data[rowStart + x]!;
    if (v !== last) {
      count += 1;
      last = v;
    }
    changes[x] = count;
  }
}

/** Whether `length` bytes at `a` and at `b` are equal (plain JS, no Buffer: the playground's page resizes with this module too). */
function sameBytes(data: Uint8Array, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (data[a + i] !== data[b + i]) return false;
  return true;
}

/**
 * Greyscale (every evaluator image is black on white): one sum per output sample, with two exact
 * shortcuts for what these images are made of — rows repeated and long runs of one value:
 * - a source row equal to the one before gives the same output row (copied);
 * - a window of taps over one value v sums to ROUND + v × Σ coefficients, the same integer as the tap
 *   loop (every partial sum is an integer far below 2^53), so it is looked up instead of summed.
 */
function horizontalGrey(src: Image8, out: Uint8Array, outWidth: number, rowOffset: number, rows: number, c: AxisCoefficients): void {
  const data = src.data;
  const { bounds, coeffs, ksize } = c;
  const width = src.width;
  const weightSums = windowWeightSums(outWidth, c);
  const changes = new Int32Array(width);
  for (let yy = 0; yy < rows; yy++) {
    const rowStart = (yy + rowOffset) * width;
    const o = yy * outWidth;
    if (yy > 0 && sameBytes(data, rowStart - width, rowStart, width)) {
      out.copyWithin(o, o - outWidth, o);
      continue;
    }
    countChanges(data, rowStart, width, changes);
    for (let xx = 0; xx < outWidth; xx++) {
      const xmin = bounds[xx * 2]!;
      const xmax = bounds[xx * 2 + 1]!;
      const p = rowStart + xmin;
      if (xmax > 0 && changes[xmin + xmax - 1] === changes[xmin]) {
        out[o + xx] = clip8(ROUND + data[p]! * weightSums[xx]!);
        continue;
      }
      const kBase = xx * ksize;
      let s0 = ROUND;
      for (let x = 0; x < xmax; x++) s0 += data[p + x]! * coeffs[kBase + x]!;
      out[o + xx] = clip8(s0);
    }
  }
}

/** Any number of channels: Pillow's generic loop. */
function horizontalAny(src: Image8, out: Uint8Array, outWidth: number, rowOffset: number, rows: number, c: AxisCoefficients): void {
  const { channels } = src;
  const data = src.data;
  const { bounds, coeffs, ksize } = c;
  const sums = new Array<number>(channels);
  for (let yy = 0; yy < rows; yy++) {
    const rowStart = (yy + rowOffset) * src.width * channels;
    for (let xx = 0; xx < outWidth; xx++) {
      const xmin = bounds[xx * 2]!;
      const xmax = bounds[xx * 2 + 1]!;
      const kBase = xx * ksize;
      for (let ch = 0; ch < channels; ch++) sums[ch] = ROUND;
      for (let x = 0; x < xmax; x++) {
        const w = coeffs[kBase + x]!;
        const p = rowStart + (x + xmin) * channels;
        for (let ch = 0; ch < channels; ch++) sums[ch]! += data[p + ch]! * w;
      }
      const o = (yy * outWidth + xx) * channels;
      for (let ch = 0; ch < channels; ch++) out[o + ch] = clip8(sums[ch]!);
    }
  }
}

function vertical(src: Image8, outHeight: number, c: AxisCoefficients, boundShift: number): Image8 {
  const { channels, width } = src;
  const stride = width * channels;
  const out = new Uint8Array(outHeight * stride);
  const data = src.data;
  // Row by row: each tap's coefficient is read once per output row and the input row is walked in
  // memory order. The sums are exact integers (far below 2^53), so accumulating tap by tap over a row
  // gives the same values as Pillow's per-sample loop.
  const sums = new Float64Array(stride);
  for (let yy = 0; yy < outHeight; yy++) {
    const ymin = c.bounds[yy * 2]! - boundShift;
    const ymax = c.bounds[yy * 2 + 1]!;
    const kBase = yy * c.ksize;
    sums.fill(ROUND);
    for (let y = 0; y < ymax; y++) {
      const w = c.coeffs[kBase + y]!;
      const row = (y + ymin) * stride;
      for (let i = 0; i < stride; i++) sums[i]! += data[row + i]! * w;
    }
    const o = yy * stride;
    for (let i = 0; i < stride; i++) out[o + i] = clip8(sums[i]!);
  }
  return { width, height: outHeight, channels, data: out };
}

/**
 * `Image.resize((width, height), resample)` on an 8-bit image with the default box (the whole image) and
 * `reducing_gap=None`, as `ImagingResampleInner` computes it. Same size → a copy (Pillow returns
 * `self.copy()` before resampling). NEAREST goes through a different Pillow path and is not supported.
 */
export function pilResize(src: Image8, width: number, height: number, resample: number = PIL_RESAMPLE.BILINEAR): Image8 {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new RangeError(`resize target must be positive integers, got ${width}×${height}`);
  }
  if (src.data.length !== src.width * src.height * src.channels) {
    throw new RangeError(`image buffer holds ${src.data.length} bytes, expected ${src.width}×${src.height}×${src.channels}`);
  }
  if (src.width === width && src.height === height) return { ...src, data: src.data.slice() };
  const filter = FILTERS[resample];
  if (!filter) throw new RangeError(`PIL resample filter ${resample} is not supported (supported: 1 LANCZOS, 2 BILINEAR, 3 BICUBIC, 4 BOX, 5 HAMMING)`);
  // Pillow's sums are C `int`s (31 bits + sign); the widest filter here keeps them far inside that range,
  // so JS numbers (exact to 2^53) hold the same values and `>>` sees the same integer.
  const needHorizontal = width !== src.width;
  const needVertical = height !== src.height;
  const horiz = axisCoefficients(src.width, width, filter);
  const vert = axisCoefficients(src.height, height, filter);
  const yFirst = vert.bounds[0]!;
  const yLast = vert.bounds[height * 2 - 2]! + vert.bounds[height * 2 - 1]!;
  let image = src;
  let shift = 0;
  if (needHorizontal) {
    image = horizontal(src, width, yFirst, yLast - yFirst, horiz);
    shift = yFirst;
  }
  if (needVertical) image = vertical(image, height, vert, shift);
  return image;
}
