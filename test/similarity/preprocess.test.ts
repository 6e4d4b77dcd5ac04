import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { decodePngToRgb, ImageDecodeError } from '../../scoring/similarity/decode.js';
import { parsePreprocessorConfig, preprocessRgb, PreprocessorConfigError, VIT_DEFAULT_PREPROCESSOR } from '../../scoring/similarity/preprocess.js';
import { pilResize } from '../../scoring/similarity/pil-resample.js';
import { pngToModelInput } from '../../scoring/similarity/prepare.js';
import { expectedNormalized, expectedResized, inputPath, loadManifest } from './pillow-golden.js';

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
      const rgb = await decodePngToRgb(readFileSync(inputPath(c)));
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
      const fast = await pngToModelInput(readFileSync(inputPath(c)), config);
      expect(createHash('sha256').update(new Uint8Array(fast.buffer, fast.byteOffset, fast.byteLength)).digest('hex')).toBe(c.normalizedSha256);
    });
  }
});

describe('preprocessor_config.json', () => {
  it('fills ViTImageProcessor defaults and reads the in21k form (size as an int)', () => {
    expect(parsePreprocessorConfig({})).toEqual(VIT_DEFAULT_PREPROCESSOR);
    const c = parsePreprocessorConfig({ do_normalize: true, do_resize: true, image_mean: [0.5, 0.5, 0.5], image_std: [0.5, 0.5, 0.5], size: 384, feature_extractor_type: 'ViTFeatureExtractor' });
    expect([c.height, c.width]).toEqual([384, 384]);
  });

  it('rejects what ViTImageProcessor cannot use, with the key in the message', () => {
    expect(() => parsePreprocessorConfig({ size: { shortest_edge: 224 } })).toThrow(/height and width/);
    expect(() => parsePreprocessorConfig({ resample: 0 })).toThrow(PreprocessorConfigError);
    expect(() => parsePreprocessorConfig({ image_mean: [0.5, 0.5] })).toThrow(/image_mean/);
    expect(() => parsePreprocessorConfig({ image_std: 0 })).toThrow(/image_std/);
    expect(() => parsePreprocessorConfig([])).toThrow(PreprocessorConfigError);
  });
});

describe('decoding', () => {
  it('refuses non-PNG and broken input with a decode error', async () => {
    const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } }).jpeg().toBuffer();
    await expect(decodePngToRgb(jpeg)).rejects.toThrow(/not a PNG/);
    await expect(decodePngToRgb(new TextEncoder().encode('not an image'))).rejects.toBeInstanceOf(ImageDecodeError);
    const png = readFileSync(inputPath(manifest.cases[0]!));
    await expect(decodePngToRgb(png.subarray(0, png.length >> 1))).rejects.toBeInstanceOf(ImageDecodeError);
  });

  it('resize of a same-size image is a copy (Pillow returns self.copy())', () => {
    const img = { width: 2, height: 2, channels: 3, data: Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]) };
    const out = pilResize(img, 2, 2);
    expect(out.data).toEqual(img.data);
    expect(out.data).not.toBe(img.data);
  });
});
