import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, describe, expect, it } from 'vitest';
import { SbevalError } from '../../core/errors.js';
import { convertHfVit, safetensorsWeights } from '../../scoring/similarity/convert.js';
import { modelInfoFromMetadata } from '../../scoring/similarity/model-info.js';
import { scanOnnxMetadata } from '../../scoring/similarity/onnx-metadata.js';
import { concatPieces } from '../../scoring/similarity/onnx-writer.js';
import { encodeSafetensors, parseSafetensors, toFloat32 } from '../../scoring/similarity/safetensors.js';
import { parseVitConfig, vitParameterShapes } from '../../scoring/similarity/vit-config.js';
import { runSbeval } from '../helpers/cli.js';
import { hfConfig, randomPixels, randomWeights, referenceForward, type TinyVitSpec, writeHfFolder } from './tiny-vit.js';

const tmp = mkdtempSync(join(tmpdir(), 'sbeval-vit-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function convertFolder(dir: string): Uint8Array {
  const { pieces } = convertHfVit({
    config: JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')),
    preprocessor: undefined,
    weights: safetensorsWeights(readFileSync(join(dir, 'model.safetensors'))),
  });
  return concatPieces(pieces);
}

async function runOnnx(bytes: Uint8Array, s: TinyVitSpec, images: Float32Array[]) {
  const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, graphOptimizationLevel: 'all' });
  const batch = new Float32Array(images.length * images[0]!.length);
  images.forEach((img, i) => batch.set(img, i * img.length));
  const out = await session.run({ pixel_values: new ort.Tensor('float32', batch, [images.length, 3, s.image, s.image]) });
  await session.release();
  return { logits: out.logits!.data as Float32Array, cls: out.cls_hidden!.data as Float32Array, logitsDims: out.logits!.dims, clsDims: out.cls_hidden!.dims };
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

const SPECS: Array<[string, TinyVitSpec]> = [
  ['ViT-like, 26 labels, exact GELU', { hidden: 32, layers: 2, heads: 4, intermediate: 48, image: 32, patch: 8, labels: 26, act: 'gelu' }],
  [
    'other patch / image / label count, tanh GELU, eps 1e-6',
    { hidden: 24, layers: 3, heads: 3, intermediate: 40, image: 30, patch: 5, labels: 7, act: 'gelu_new', eps: 1e-6 },
  ],
  [
    'no qkv bias, quick_gelu, 1 layer',
    { hidden: 16, layers: 1, heads: 2, intermediate: 20, image: 16, patch: 4, labels: 3, act: 'quick_gelu', qkvBias: false },
  ],
  ['gelu_fast, one head', { hidden: 12, layers: 2, heads: 1, intermediate: 30, image: 12, patch: 6, labels: 26, act: 'gelu_fast' }],
];

describe('HF ViTForImageClassification → ONNX matches an independent reference forward', () => {
  for (const [label, spec] of SPECS) {
    it(label, async () => {
      const dir = join(tmp, label.replace(/\W+/g, '-'));
      const weights = randomWeights(spec, 1234 + spec.hidden);
      writeHfFolder(dir, spec, weights);
      const bytes = convertFolder(dir);
      const images = [0, 1, 2, 3].map((i) => randomPixels(spec, 99 + i));
      const got = await runOnnx(bytes, spec, images);
      expect(got.logitsDims).toEqual([4, spec.labels]);
      expect(got.clsDims).toEqual([4, spec.hidden]);
      let spread = 0;
      images.forEach((img, i) => {
        const ref = referenceForward(spec, weights, img);
        expect(maxAbsDiff(got.logits.subarray(i * spec.labels, (i + 1) * spec.labels), ref.logits)).toBeLessThanOrEqual(1e-4);
        expect(maxAbsDiff(got.cls.subarray(i * spec.hidden, (i + 1) * spec.hidden), ref.cls)).toBeLessThanOrEqual(1e-4);
        spread = Math.max(spread, Math.max(...ref.logits) - Math.min(...ref.logits));
      });
      // The comparison is meaningful only if outputs vary (random weights with real scale).
      expect(spread).toBeGreaterThan(0.1);
      // cls_hidden is pre-LayerNorm: it is not normalised (mean 0 / var 1 would mean the wrong tap).
      const cls0 = Array.from(got.cls.subarray(0, spec.hidden));
      const mean = cls0.reduce((a, b) => a + b, 0) / spec.hidden;
      const variance = cls0.reduce((a, b) => a + (b - mean) ** 2, 0) / spec.hidden;
      expect(Math.abs(variance - 1) + Math.abs(mean)).toBeGreaterThan(0.05);
    });
  }

  it('batched and single-image runs agree', async () => {
    const spec = SPECS[0]![1];
    const dir = join(tmp, 'batch');
    const weights = randomWeights(spec, 7);
    writeHfFolder(dir, spec, weights);
    const bytes = convertFolder(dir);
    const images = [0, 1, 2].map((i) => randomPixels(spec, 500 + i));
    const all = await runOnnx(bytes, spec, images);
    for (let i = 0; i < images.length; i++) {
      const one = await runOnnx(bytes, spec, [images[i]!]);
      expect(maxAbsDiff(one.logits, all.logits.subarray(i * spec.labels, (i + 1) * spec.labels))).toBeLessThanOrEqual(1e-5);
    }
  });
});

describe('conversion inputs', () => {
  it('ViT-B/16 with 26 labels has the parameter count of the competition model card (85,818,650)', () => {
    const config = parseVitConfig({
      model_type: 'vit',
      id2label: Object.fromEntries(Array.from({ length: 26 }, (_, i) => [String(i), String.fromCharCode(65 + i)])),
    });
    expect(config.labels[25]).toBe('Z');
    let total = 0;
    for (const shape of vitParameterShapes(config).values()) total += shape.reduce((a, b) => a * b, 1);
    expect(total).toBe(85_818_650);
  });

  it('records labels and preprocessing in the model metadata', () => {
    const spec: TinyVitSpec = {
      hidden: 8,
      layers: 1,
      heads: 2,
      intermediate: 8,
      image: 8,
      patch: 4,
      labels: 3,
      act: 'relu',
      id2label: { 0: 'cat', 1: 'dog', 2: 'emu' },
    };
    const { pieces } = convertHfVit({
      config: hfConfig(spec),
      preprocessor: { size: { height: 8, width: 8 }, image_mean: [0.1, 0.2, 0.3], image_std: 0.25, resample: 3 },
      weights: safetensorsWeights(concatPieces(encodeSafetensors(randomWeights(spec, 3)))),
      source: 'test/tiny@main',
    });
    const bytes = concatPieces(pieces);
    const info = modelInfoFromMetadata(scanOnnxMetadata((p, l) => bytes.subarray(p, p + l), bytes.length));
    expect(info.labels).toEqual(['cat', 'dog', 'emu']);
    expect(info.preprocessor).toMatchObject({ height: 8, width: 8, mean: [0.1, 0.2, 0.3], std: [0.25, 0.25, 0.25], resample: 3 });
    expect(info.source).toBe('test/tiny@main');
  });

  it('names the missing or mis-shaped tensor, the unsupported activation, the size mismatch', () => {
    const spec: TinyVitSpec = { hidden: 8, layers: 1, heads: 2, intermediate: 8, image: 8, patch: 4, labels: 3, act: 'gelu' };
    const weights = randomWeights(spec, 5);
    const without = new Map(weights);
    without.delete('vit.encoder.layer.0.intermediate.dense.bias');
    const st = (w: typeof weights) => safetensorsWeights(concatPieces(encodeSafetensors(w)));
    expect(() => convertHfVit({ config: hfConfig(spec), preprocessor: undefined, weights: st(without) })).toThrow(
      /vit\.encoder\.layer\.0\.intermediate\.dense\.bias/,
    );
    const wrong = new Map(weights);
    wrong.set('classifier.weight', { shape: [4, 8], data: new Float32Array(32) });
    expect(() => convertHfVit({ config: hfConfig(spec), preprocessor: undefined, weights: st(wrong) })).toThrow(SbevalError);
    expect(() => parseVitConfig({ ...hfConfig(spec), hidden_act: 'mish' })).toThrow(SbevalError);
    expect(() => parseVitConfig({ ...hfConfig(spec), model_type: 'deit' })).toThrow(/vit/);
    expect(() => convertHfVit({ config: hfConfig(spec), preprocessor: { size: 224 }, weights: st(weights) })).toThrow(SbevalError);
  });

  it('safetensors: reads F32/F16/BF16, rejects truncated files', () => {
    const header = JSON.stringify({
      a: { dtype: 'F16', shape: [3], data_offsets: [0, 6] },
      b: { dtype: 'BF16', shape: [2], data_offsets: [6, 10] },
    });
    const h = Buffer.from(header);
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(h.length));
    // F16: 1.0 = 0x3c00, -2.0 = 0xc000, 0.5 = 0x3800; BF16: 1.5 = 0x3fc0, -0.25 = 0xbe80
    const data = Buffer.from([0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38, 0xc0, 0x3f, 0x80, 0xbe]);
    const st = parseSafetensors(Buffer.concat([len, h, data]));
    expect(Array.from(toFloat32(st.tensors.get('a')!))).toEqual([1, -2, 0.5]);
    expect(Array.from(toFloat32(st.tensors.get('b')!))).toEqual([1.5, -0.25]);
    expect(() => parseSafetensors(Buffer.concat([len, h, data.subarray(0, 7)]))).toThrow(SbevalError);
    expect(() => parseSafetensors(Buffer.from([1, 2, 3]))).toThrow(SbevalError);
  });
});

describe('sbeval model convert (CLI)', () => {
  it('converts an HF folder into a runnable ONNX file', async () => {
    const spec: TinyVitSpec = { hidden: 16, layers: 1, heads: 2, intermediate: 16, image: 16, patch: 8, labels: 26, act: 'gelu' };
    const dir = join(tmp, 'cli');
    const weights = randomWeights(spec, 11);
    writeHfFolder(dir, spec, weights, { size: 16, image_mean: 0.5, image_std: 0.5 });
    const out = join(tmp, 'cli.onnx');
    const res = await runSbeval(['model', 'convert', dir, '--out', out]);
    expect(res.stderr).toBe('');
    expect(res.exitCode).toBe(0);
    const img = randomPixels(spec, 1);
    const got = await runOnnx(readFileSync(out), spec, [img]);
    expect(maxAbsDiff(got.logits, referenceForward(spec, weights, img).logits)).toBeLessThanOrEqual(1e-4);
    writeFileSync(join(dir, 'config.json'), '{"hidden_size": "big"}');
    const bad = await runSbeval(['model', 'convert', dir, '--out', join(tmp, 'bad.onnx')]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/hidden_size/);
  });
});
