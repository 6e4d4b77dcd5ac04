import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { SbevalError } from '../../core/errors.js';
import { decodePngToRgb } from '../../scoring/similarity/decode.js';
import { pilResize } from '../../scoring/similarity/pil-resample.js';
import { decodeGreyPng } from '../../scoring/similarity/png-grey.js';
import { pngToModelInput } from '../../scoring/similarity/prepare.js';
import { parsePreprocessorConfig, preprocessRgb, VIT_DEFAULT_PREPROCESSOR } from '../../scoring/similarity/preprocess.js';
import { expectedNormalized, expectedResized, loadManifest, manifestPath, PILLOW_DIR } from './pillow-golden.js';

const PILLOW_INPUTS = join(PILLOW_DIR, 'inputs');

const manifest = loadManifest();

function firstDifference(a: Uint8Array, b: Uint8Array): string {
  let count = 0;
  let first = -1;
  let max = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i]! - b[i]!);
    if (d > 0) {
      count += 1;
      if (first < 0) first = i;
      max = Math.max(max, d);
    }
  }
  return count === 0 ? 'identical' : `${count} bytes differ (first at ${first}, max abs diff ${max})`;
}

describe('preprocessing equals Pillow + ViTImageProcessor on the golden vectors', () => {
  it('covers real renders, every PNG colour type, odd sizes and non-default configs', () => {
    const modes = new Set(manifest.cases.map((c) => c.pilMode));
    for (const m of ['RGB', 'RGBA', 'L', 'LA', 'P', '1']) expect(modes).toContain(m);
    expect([...modes].some((m) => m === 'I' || m === 'I;16')).toBe(true); // 16-bit grey: 'I' in Pillow 10.2, 'I;16' in 11
    expect(manifest.cases.filter((c) => c.source.startsWith('golden/')).length).toBeGreaterThanOrEqual(12);
    expect(new Set(manifest.cases.map((c) => c.config.resample ?? 2))).toEqual(new Set([1, 2, 3, 4, 5]));
  });

  for (const c of manifest.cases) {
    it(`${c.name} (${c.pilMode} ${c.inputSize.join('×')}: ${c.what})`, async () => {
      const rgb = await decodePngToRgb(readFileSync(manifestPath(c)));
      expect([rgb.width, rgb.height]).toEqual(c.inputSize);
      const config = parsePreprocessorConfig({ ...manifest.defaultConfig, ...c.config });
      const { resized, tensor } = preprocessRgb(rgb, config);
      expect([resized.width, resized.height]).toEqual([c.output.width, c.output.height]);
      // max abs diff 0 on the uint8 resize
      const want = expectedResized(c);
      expect(firstDifference(resized.data, want)).toBe('identical');
      expect(createHash('sha256').update(resized.data).digest('hex')).toBe(c.resizedSha256);
      // ≤ 1e-6 after normalisation (where the float32 tensor is committed), bit-identical by digest otherwise
      const bytes = new Uint8Array(tensor.buffer, tensor.byteOffset, tensor.byteLength);
      const normalized = expectedNormalized(c);
      if (normalized) {
        expect(tensor.length).toBe(normalized.length);
        let max = 0;
        for (let i = 0; i < tensor.length; i++) max = Math.max(max, Math.abs(tensor[i]! - normalized[i]!));
        expect(max).toBeLessThanOrEqual(1e-6);
      }
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(c.normalizedSha256);
      // The similarity stage's path (grey images resized as one channel) gives the same tensor.
      const fast = await pngToModelInput(readFileSync(manifestPath(c)), config);
      expect(
        createHash('sha256')
          .update(new Uint8Array(fast.buffer, fast.byteOffset, fast.byteLength))
          .digest('hex'),
      ).toBe(c.normalizedSha256);
    });
  }
});

describe('preprocessor_config.json', () => {
  it('fills ViTImageProcessor defaults and reads the in21k form (size as an int)', () => {
    expect(parsePreprocessorConfig({})).toEqual(VIT_DEFAULT_PREPROCESSOR);
    const c = parsePreprocessorConfig({
      do_normalize: true,
      do_resize: true,
      image_mean: [0.5, 0.5, 0.5],
      image_std: [0.5, 0.5, 0.5],
      size: 384,
      feature_extractor_type: 'ViTFeatureExtractor',
    });
    expect([c.height, c.width]).toEqual([384, 384]);
  });

  it('rejects what ViTImageProcessor cannot use, with the key in the message', () => {
    expect(() => parsePreprocessorConfig({ size: { shortest_edge: 224 } })).toThrow(/height and width/);
    expect(() => parsePreprocessorConfig({ resample: 0 })).toThrow(SbevalError);
    expect(() => parsePreprocessorConfig({ image_mean: [0.5, 0.5] })).toThrow(/image_mean/);
    expect(() => parsePreprocessorConfig({ image_std: 0 })).toThrow(/image_std/);
    expect(() => parsePreprocessorConfig([])).toThrow(SbevalError);
  });
});

describe('decoding', () => {
  it('refuses non-PNG and broken input with a decode error', async () => {
    const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } })
      .jpeg()
      .toBuffer();
    await expect(decodePngToRgb(jpeg)).rejects.toThrow(/not a PNG/);
    await expect(decodePngToRgb(new TextEncoder().encode('not an image'))).rejects.toBeInstanceOf(SbevalError);
    const png = readFileSync(manifestPath(manifest.cases[0]!));
    await expect(decodePngToRgb(png.subarray(0, png.length >> 1))).rejects.toBeInstanceOf(SbevalError);
  });

  it('resize of a same-size image is a copy (Pillow returns self.copy())', () => {
    const img = { width: 2, height: 2, channels: 3, data: Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]) };
    const out = pilResize(img, 2, 2);
    expect(out.data).toEqual(img.data);
    expect(out.data).not.toBe(img.data);
  });
});

/** A greyscale PNG (1 or 8 bits) with the given row filters, written here independently of the decoder. */
function greyPng(width: number, height: number, depth: 1 | 8, pixel: (x: number, y: number) => number, filterOf: (y: number) => number): Buffer {
  const rowBytes = depth === 1 ? Math.ceil(width / 8) : width;
  const raw: Uint8Array[] = [];
  for (let y = 0; y < height; y++) {
    const row = new Uint8Array(rowBytes);
    for (let x = 0; x < width; x++) {
      if (depth === 8) row[x] = pixel(x, y);
      else if (pixel(x, y) > 127) row[x >> 3]! |= 0x80 >> (x & 7);
    }
    raw.push(row);
  }
  const lines: number[] = [];
  raw.forEach((row, y) => {
    const up = y > 0 ? raw[y - 1]! : new Uint8Array(rowBytes);
    const f = filterOf(y);
    lines.push(f);
    for (let i = 0; i < rowBytes; i++) {
      const a = i > 0 ? row[i - 1]! : 0;
      const b = up[i]!;
      const c = i > 0 ? up[i - 1]! : 0;
      const p = a + b - c;
      const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      const predictor = [0, a, b, (a + b) >> 1, paeth][f]!;
      lines.push((row[i]! - predictor) & 0xff);
    }
  });
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const chunk = (type: string, data: Uint8Array) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, 'latin1');
    Buffer.from(data).copy(out, 8);
    let c = 0xffffffff;
    for (const v of out.subarray(4, 8 + data.length)) c = crcTable[(c ^ v) & 0xff]! ^ (c >>> 8);
    out.writeUInt32BE((c ^ 0xffffffff) >>> 0, 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = depth;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Uint8Array.from(lines))),
    chunk('IEND', new Uint8Array()),
  ]);
}

describe('the grey PNG fast path', () => {
  it("gives sharp's pixels for 1- and 8-bit grey with every row filter and odd widths", async () => {
    const pixel = (x: number, y: number) => ((x * 7 + y * 13) % 11 < 5 ? 0 : 255) ^ ((x * y) & 0x3c);
    for (const depth of [1, 8] as const) {
      for (const [width, height] of [
        [37, 9],
        [64, 5],
        [1, 3],
      ] as const) {
        const png = greyPng(width, height, depth, pixel, (y) => y % 5);
        const fast = decodeGreyPng(png, 1 << 26);
        expect(fast, `${depth}-bit ${width}×${height}`).toBeDefined();
        const rgb = await decodePngToRgb(png);
        expect(fast!.channels).toBe(1);
        expect(Array.from(fast!.data)).toEqual(Array.from({ length: width * height }, (_, i) => rgb.data[i * 3]!));
      }
    }
  });

  it('declines what it does not handle, so sharp decides: a bad CRC, colour, interlace, too many pixels', () => {
    const png = greyPng(
      16,
      4,
      1,
      () => 255,
      () => 0,
    );
    expect(decodeGreyPng(png, 1 << 26)).toBeDefined();
    const broken = Buffer.from(png);
    broken[broken.length - 20] = broken[broken.length - 20]! ^ 0xff; // inside IDAT: its CRC no longer matches
    expect(decodeGreyPng(broken, 1 << 26)).toBeUndefined();
    expect(decodeGreyPng(png, 63)).toBeUndefined();
    expect(decodeGreyPng(readFileSync(manifestPath(manifest.cases.find((c) => c.pilMode === 'RGB')!)), 1 << 26)).toBeUndefined();
    expect(decodeGreyPng(readFileSync(join(PILLOW_INPUTS, 'rgb-adam7-97x31.png')), 1 << 26)).toBeUndefined();
  });
});

describe('the grey resize shortcuts (repeated rows, uniform tap windows)', () => {
  it('give the same bytes as resizing the image as RGB, for every filter, down and up, with runs and noise', () => {
    // Rows repeated in bands, long runs of one value (not only 0 and 255), isolated noise pixels and a
    // ramp: every kind of window (uniform, mixed, at the edges) and both row paths are met.
    const make = (width: number, height: number, seed: number) => {
      const grey = new Uint8Array(width * height);
      let state = seed;
      const random = () => ((state = (state * 1103515245 + 12345) >>> 0) >>> 8) / 2 ** 24;
      for (let y = 0; y < height; y++) {
        const band = Math.floor(y / 7);
        for (let x = 0; x < width; x++) {
          let v = band % 3 === 0 ? 255 : x > width / 3 && x < (2 * width) / 3 ? 0 : 128 + (band % 5);
          if (band % 4 === 1) v = (x * 255) / (width - 1);
          if (random() < 0.01) v = Math.floor(random() * 256);
          grey[y * width + x] = v;
        }
      }
      const rgb = new Uint8Array(width * height * 3);
      for (let i = 0; i < grey.length; i++) rgb[i * 3] = rgb[i * 3 + 1] = rgb[i * 3 + 2] = grey[i]!;
      return { grey: { width, height, channels: 1, data: grey }, rgb: { width, height, channels: 3, data: rgb } };
    };
    for (const [width, height, outW, outH] of [
      [301, 257, 64, 48],
      [97, 131, 224, 224],
      [200, 60, 199, 17],
    ] as const) {
      const { grey, rgb } = make(width, height, width * 31 + height);
      for (const resample of [1, 2, 3, 4, 5]) {
        const fast = pilResize(grey, outW, outH, resample);
        const full = pilResize(rgb, outW, outH, resample);
        const expected = new Uint8Array(outW * outH);
        for (let i = 0; i < expected.length; i++) expected[i] = full.data[i * 3]!;
        expect(firstDifference(fast.data, expected), `${width}×${height} → ${outW}×${outH}, filter ${resample}`).toBe('identical');
      }
    }
  });
});
