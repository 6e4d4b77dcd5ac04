/**
 * Test-side tiny ViTs: seeded random weights in Hugging Face layout (config.json + model.safetensors, written
 * here with the test's own safetensors writer), and an independent reference forward of
 * ViTForImageClassification in plain TypeScript (float64 loops, written from transformers' modeling_vit
 * semantics, sharing no code with scoring/similarity/vit-graph.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32 as prng } from '../../bridge/headless/order.js';

export interface TinyVitSpec {
  hidden: number;
  layers: number;
  heads: number;
  intermediate: number;
  image: number;
  patch: number;
  labels: number;
  act: string;
  eps?: number;
  qkvBias?: boolean;
  id2label?: Record<string, string>;
}

export type Weights = Map<string, { shape: number[]; data: Float32Array }>;

/** Seeded PRNG: the engine's own mulberry32 (one implementation in the project). */
export { mulberry32 as prng } from '../../bridge/headless/order.js';

export function randomWeights(s: TinyVitSpec, seed: number): Weights {
  const rand = prng(seed);
  const w: Weights = new Map();
  const put = (name: string, shape: number[], scale: number, offset = 0) => {
    const n = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    for (let i = 0; i < n; i++) data[i] = offset + (rand() * 2 - 1) * scale;
    w.set(name, { shape, data });
  };
  const H = s.hidden;
  const seq = (s.image / s.patch) ** 2 + 1;
  put('vit.embeddings.cls_token', [1, 1, H], 0.5);
  put('vit.embeddings.position_embeddings', [1, seq, H], 0.5);
  put('vit.embeddings.patch_embeddings.projection.weight', [H, 3, s.patch, s.patch], 1 / Math.sqrt(3 * s.patch * s.patch));
  put('vit.embeddings.patch_embeddings.projection.bias', [H], 0.1);
  for (let i = 0; i < s.layers; i++) {
    const p = `vit.encoder.layer.${i}.`;
    for (const n of ['query', 'key', 'value']) {
      put(`${p}attention.attention.${n}.weight`, [H, H], 1.5 / Math.sqrt(H));
      if (s.qkvBias !== false) put(`${p}attention.attention.${n}.bias`, [H], 0.1);
    }
    put(`${p}attention.output.dense.weight`, [H, H], 1 / Math.sqrt(H));
    put(`${p}attention.output.dense.bias`, [H], 0.1);
    put(`${p}intermediate.dense.weight`, [s.intermediate, H], 1 / Math.sqrt(H));
    put(`${p}intermediate.dense.bias`, [s.intermediate], 0.1);
    put(`${p}output.dense.weight`, [H, s.intermediate], 1 / Math.sqrt(s.intermediate));
    put(`${p}output.dense.bias`, [H], 0.1);
    put(`${p}layernorm_before.weight`, [H], 0.3, 1);
    put(`${p}layernorm_before.bias`, [H], 0.1);
    put(`${p}layernorm_after.weight`, [H], 0.3, 1);
    put(`${p}layernorm_after.bias`, [H], 0.1);
  }
  put('vit.layernorm.weight', [H], 0.3, 1);
  put('vit.layernorm.bias', [H], 0.1);
  put('classifier.weight', [s.labels, H], 1 / Math.sqrt(H));
  put('classifier.bias', [s.labels], 0.1);
  // Something the classifier does not use: a converter must ignore extra tensors.
  put('vit.pooler.dense.weight', [H, H], 0.1);
  return w;
}

export function hfConfig(s: TinyVitSpec): Record<string, unknown> {
  return {
    architectures: ['ViTForImageClassification'],
    model_type: 'vit',
    hidden_size: s.hidden,
    num_hidden_layers: s.layers,
    num_attention_heads: s.heads,
    intermediate_size: s.intermediate,
    hidden_act: s.act,
    hidden_dropout_prob: 0.0,
    attention_probs_dropout_prob: 0.0,
    initializer_range: 0.02,
    layer_norm_eps: s.eps ?? 1e-12,
    image_size: s.image,
    patch_size: s.patch,
    num_channels: 3,
    qkv_bias: s.qkvBias ?? true,
    encoder_stride: s.patch,
    id2label: s.id2label ?? Object.fromEntries(Array.from({ length: s.labels }, (_, i) => [String(i), String.fromCharCode(65 + (i % 26))])),
    torch_dtype: 'float32',
  };
}

/** safetensors written independently of the project's encoder (F32, header padded to 8). */
export function writeSafetensors(path: string, weights: Weights): void {
  const header: Record<string, unknown> = {};
  const blobs: Buffer[] = [];
  let offset = 0;
  for (const [name, t] of weights) {
    const bytes = Buffer.alloc(t.data.length * 4);
    t.data.forEach((v, i) => bytes.writeFloatLE(v, i * 4));
    header[name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + bytes.length] };
    offset += bytes.length;
    blobs.push(bytes);
  }
  let json = Buffer.from(JSON.stringify(header));
  json = Buffer.concat([json, Buffer.alloc((8 - (json.length % 8)) % 8, 0x20)]);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  writeFileSync(path, Buffer.concat([len, json, ...blobs]));
}

export function writeHfFolder(dir: string, s: TinyVitSpec, weights: Weights, preprocessor?: Record<string, unknown>): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify(hfConfig(s), null, 2));
  writeSafetensors(join(dir, 'model.safetensors'), weights);
  if (preprocessor) writeFileSync(join(dir, 'preprocessor_config.json'), JSON.stringify(preprocessor, null, 2));
}

// ---- reference forward (float64) ----

function act(name: string, x: number): number {
  const erf = (z: number) => {
    // Abramowitz–Stegun 7.1.26 is too coarse for 1e-4 after many layers; use a series/continued fraction.
    const t = Math.abs(z);
    if (t < 2.5) {
      let sum = t;
      let term = t;
      for (let n = 1; n < 60; n++) {
        term *= (-t * t) / n;
        sum += term / (2 * n + 1);
      }
      return Math.sign(z) * (2 / Math.sqrt(Math.PI)) * sum;
    }
    // erfc continued fraction for large |z|
    let f = 0;
    for (let n = 60; n >= 1; n--) f = n / 2 / (t + f);
    const erfc = Math.exp(-t * t) / Math.sqrt(Math.PI) / (t + f);
    return Math.sign(z) * (1 - erfc);
  };
  switch (name) {
    case 'gelu':
      return 0.5 * x * (1 + erf(x / Math.SQRT2));
    case 'gelu_new':
    case 'gelu_pytorch_tanh':
      return 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3)));
    case 'gelu_fast':
      return 0.5 * x * (1 + Math.tanh(x * 0.7978845608 * (1 + 0.044715 * x * x)));
    case 'quick_gelu':
      return x / (1 + Math.exp(-1.702 * x));
    case 'relu':
      return Math.max(0, x);
    case 'silu':
      return x / (1 + Math.exp(-x));
    default:
      throw new Error(`reference forward has no ${name}`);
  }
}

/** out[r][o] = Σ_i x[r][i] · W[o][i] + b[o]  (a PyTorch nn.Linear). */
function linear(x: Float64Array[], w: { data: Float32Array }, b: { data: Float32Array } | undefined, outDim: number): Float64Array[] {
  const inDim = x[0]!.length;
  return x.map((row) => {
    const out = new Float64Array(outDim);
    for (let o = 0; o < outDim; o++) {
      let s = b ? b.data[o]! : 0;
      for (let i = 0; i < inDim; i++) s += row[i]! * w.data[o * inDim + i]!;
      out[o] = s;
    }
    return out;
  });
}

function layerNorm(x: Float64Array[], w: { data: Float32Array }, b: { data: Float32Array }, eps: number): Float64Array[] {
  return x.map((row) => {
    const n = row.length;
    const mean = row.reduce((a, v) => a + v, 0) / n;
    const variance = row.reduce((a, v) => a + (v - mean) ** 2, 0) / n;
    const inv = 1 / Math.sqrt(variance + eps);
    return row.map((v, i) => (v - mean) * inv * w.data[i]! + b.data[i]!);
  });
}

/** One image [3, S, S] (CHW) → { logits, cls } as ViTForImageClassification computes them in eval mode. */
export function referenceForward(s: TinyVitSpec, w: Weights, pixels: Float32Array): { logits: Float64Array; cls: Float64Array } {
  const W = (n: string) => {
    const t = w.get(n);
    if (!t) throw new Error(`missing ${n}`);
    return t;
  };
  const H = s.hidden;
  const grid = s.image / s.patch;
  // Patch embedding: a conv with kernel = stride = patch.
  const pw = W('vit.embeddings.patch_embeddings.projection.weight').data;
  const pb = W('vit.embeddings.patch_embeddings.projection.bias').data;
  let h: Float64Array[] = [Float64Array.from(W('vit.embeddings.cls_token').data)];
  for (let gy = 0; gy < grid; gy++) {
    for (let gx = 0; gx < grid; gx++) {
      const t = new Float64Array(H);
      for (let o = 0; o < H; o++) {
        let sum = pb[o]!;
        for (let c = 0; c < 3; c++) {
          for (let ky = 0; ky < s.patch; ky++) {
            for (let kx = 0; kx < s.patch; kx++) {
              const px = pixels[c * s.image * s.image + (gy * s.patch + ky) * s.image + gx * s.patch + kx]!;
              sum += px * pw[((o * 3 + c) * s.patch + ky) * s.patch + kx]!;
            }
          }
        }
        t[o] = sum;
      }
      h.push(t);
    }
  }
  const pos = W('vit.embeddings.position_embeddings').data;
  h = h.map((row, t) => row.map((v, i) => v + pos[t * H + i]!));
  const eps = s.eps ?? 1e-12;
  const d = H / s.heads;
  for (let l = 0; l < s.layers; l++) {
    const p = `vit.encoder.layer.${l}.`;
    const x = layerNorm(h, W(`${p}layernorm_before.weight`), W(`${p}layernorm_before.bias`), eps);
    const bias = (n: string) => (s.qkvBias === false ? undefined : W(`${p}attention.attention.${n}.bias`));
    const q = linear(x, W(`${p}attention.attention.query.weight`), bias('query'), H);
    const k = linear(x, W(`${p}attention.attention.key.weight`), bias('key'), H);
    const v = linear(x, W(`${p}attention.attention.value.weight`), bias('value'), H);
    const ctx = h.map(() => new Float64Array(H));
    for (let head = 0; head < s.heads; head++) {
      for (let i = 0; i < h.length; i++) {
        const scores = h.map((_, j) => {
          let dot = 0;
          for (let e = 0; e < d; e++) dot += q[i]![head * d + e]! * k[j]![head * d + e]!;
          return dot / Math.sqrt(d);
        });
        const m = Math.max(...scores);
        const ex = scores.map((sc) => Math.exp(sc - m));
        const z = ex.reduce((a, b) => a + b, 0);
        for (let j = 0; j < h.length; j++) {
          for (let e = 0; e < d; e++) ctx[i]![head * d + e]! += (ex[j]! / z) * v[j]![head * d + e]!;
        }
      }
    }
    const attn = linear(ctx, W(`${p}attention.output.dense.weight`), W(`${p}attention.output.dense.bias`), H);
    h = h.map((row, t) => row.map((val, i) => val + attn[t]![i]!));
    const y = layerNorm(h, W(`${p}layernorm_after.weight`), W(`${p}layernorm_after.bias`), eps);
    const inter = linear(y, W(`${p}intermediate.dense.weight`), W(`${p}intermediate.dense.bias`), s.intermediate).map((row) =>
      row.map((val) => act(s.act, val)),
    );
    const out = linear(inter, W(`${p}output.dense.weight`), W(`${p}output.dense.bias`), H);
    h = h.map((row, t) => row.map((val, i) => val + out[t]![i]!));
  }
  const cls = Float64Array.from(h[0]!);
  const final = layerNorm([h[0]!], W('vit.layernorm.weight'), W('vit.layernorm.bias'), eps);
  const logits = linear(final, W('classifier.weight'), W('classifier.bias'), s.labels)[0]!;
  return { logits, cls };
}

/** Seeded pixel tensors in [-1, 1] (what normalised images look like). */
export function randomPixels(s: TinyVitSpec, seed: number): Float32Array {
  const rand = prng(seed);
  return Float32Array.from({ length: 3 * s.image * s.image }, () => rand() * 2 - 1);
}
