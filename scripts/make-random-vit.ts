/**
 * `npx tsx scripts/make-random-vit.ts [--out <dir>] [--small] [--seed N] [--layers N …]` (`--help` for all)
 *
 * Writes a Hugging Face ViTForImageClassification folder (config.json, preprocessor_config.json,
 * model.safetensors) with seeded random weights — ViT-B/16-sized by default, the size of the competition's
 * pittawat/vit-base-uppercase-english-characters (85.8 M parameters, 26 labels) — and converts it to
 * `<dir>/model.onnx`. For benchmarks and experiments where the real weights are not available; the
 * folder is never committed (default location: the OS temp folder).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs as parseCliArgs } from 'node:util';
import { isMainModule } from '../core/main-module.js';
import { convertModelFolder, writePiecesAtomic } from '../orchestrator/stages/model.js';
import { encodeSafetensors } from '../scoring/similarity/safetensors.js';
import { type VitConfig, vitParameterShapes } from '../scoring/similarity/vit-config.js';

export interface RandomVitSpec {
  layers: number;
  hidden: number;
  heads: number;
  intermediate: number;
  image: number;
  patch: number;
  labels: number;
  seed: number;
}

/** ViT-B/16 at 224 px with the competition's 26 letters. */
export const VIT_B16: RandomVitSpec = { layers: 12, hidden: 768, heads: 12, intermediate: 3072, image: 224, patch: 16, labels: 26, seed: 1 };

export function defaultRandomVitDir(spec: RandomVitSpec = VIT_B16): string {
  return join(tmpdir(), `sbeval-random-vit-${spec.layers}x${spec.hidden}-p${spec.patch}-${spec.image}-s${spec.seed}`);
}

/** xorshift32 → uniform in [-1, 1): fast enough for 86 M weights, deterministic per seed. */
function uniform(seed: number): () => number {
  let x = seed >>> 0 || 0x9e3779b9;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2147483648 - 1;
  };
}

export function writeRandomVit(dir: string, spec: RandomVitSpec = VIT_B16): { dir: string; onnx: string; parameters: number } {
  const config = {
    architectures: ['ViTForImageClassification'],
    model_type: 'vit',
    hidden_size: spec.hidden,
    num_hidden_layers: spec.layers,
    num_attention_heads: spec.heads,
    intermediate_size: spec.intermediate,
    hidden_act: 'gelu',
    hidden_dropout_prob: 0.0,
    attention_probs_dropout_prob: 0.0,
    initializer_range: 0.02,
    layer_norm_eps: 1e-12,
    image_size: spec.image,
    patch_size: spec.patch,
    num_channels: 3,
    qkv_bias: true,
    encoder_stride: spec.patch,
    id2label: Object.fromEntries(Array.from({ length: spec.labels }, (_, i) => [String(i), i < 26 ? String.fromCharCode(65 + i) : `LABEL_${i}`])),
    label2id: Object.fromEntries(Array.from({ length: spec.labels }, (_, i) => [i < 26 ? String.fromCharCode(65 + i) : `LABEL_${i}`, i])),
  };
  const shapes = vitParameterShapes({
    hiddenSize: spec.hidden,
    numLayers: spec.layers,
    numHeads: spec.heads,
    intermediateSize: spec.intermediate,
    hiddenAct: 'gelu',
    layerNormEps: 1e-12,
    imageSize: spec.image,
    patchSize: spec.patch,
    numChannels: 3,
    qkvBias: true,
    numLabels: spec.labels,
    labels: [],
  } satisfies VitConfig);
  const rand = uniform(spec.seed);
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  let parameters = 0;
  for (const [name, shape] of shapes) {
    const n = shape.reduce((a, b) => a * b, 1);
    parameters += n;
    const data = new Float32Array(n);
    // LayerNorm weights near 1, everything else ~ the HF init scale (uniform with std ≈ 0.02).
    const isLnWeight = /layernorm.*\.weight$/.test(name);
    for (let i = 0; i < n; i++) data[i] = isLnWeight ? 1 + 0.05 * rand() : 0.035 * rand();
    tensors.set(name, { shape, data });
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
  writeFileSync(
    join(dir, 'preprocessor_config.json'),
    `${JSON.stringify({ do_normalize: true, do_rescale: true, do_resize: true, image_mean: [0.5, 0.5, 0.5], image_std: [0.5, 0.5, 0.5], resample: 2, rescale_factor: 1 / 255, size: { height: spec.image, width: spec.image } }, null, 2)}\n`,
  );
  writePiecesAtomic(join(dir, 'model.safetensors'), encodeSafetensors(tensors));
  tensors.clear();
  const onnx = join(dir, 'model.onnx');
  convertModelFolder(dir, onnx, `random weights, seed ${spec.seed}`);
  return { dir, onnx, parameters };
}

/**
 * One layer × 32 hidden at 32 px, seed 7: the test suite's scored example (test/orchestrator/helpers/result-folder.ts)
 * and the README's pictures (scripts/make-screenshots.ts) are scored with it, so the two runs are the same.
 */
export const TINY_VIT: RandomVitSpec = { layers: 1, hidden: 32, heads: 2, intermediate: 64, image: 32, patch: 16, labels: 26, seed: 7 };

/** A few-layer model that converts in a second: for trying the pipeline, not for numbers. */
export const SMALL_VIT: RandomVitSpec = { layers: 2, hidden: 64, heads: 2, intermediate: 128, image: 64, patch: 16, labels: 26, seed: 1 };

const USAGE = `Usage: npx tsx scripts/make-random-vit.ts [--out <dir>] [--small] [--seed N]
                                          [--layers N --hidden N --heads N --intermediate N --image N --patch N --labels N]

Writes a Hugging Face ViTForImageClassification folder (config.json, preprocessor_config.json,
model.safetensors) with seeded random weights and converts it to <dir>/model.onnx, for trying the
pipeline and for benchmarks when the competition's weights are not available. Its similarity numbers
are meaningless. Default size: ViT-B/16 at 224 px with 26 labels (the competition model's size,
about 86 M parameters, 330 MB); --small: 2 layers × 64 hidden at 64 px (a second to make).
Default folder: ${join('<os temp>', 'sbeval-random-vit-<size>')}.

Then: sbeval run <root> --model <dir>/model.onnx`;

const SPEC_KEYS = ['layers', 'hidden', 'heads', 'intermediate', 'image', 'patch', 'labels', 'seed'] as const;

function parseArgs(argv: string[]): { out: string; spec: RandomVitSpec } | undefined {
  const { values } = parseCliArgs({
    args: argv,
    strict: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      small: { type: 'boolean' },
      out: { type: 'string' },
      ...Object.fromEntries(SPEC_KEYS.map((k) => [k, { type: 'string' as const }])),
    },
  });
  if (values.help) return undefined;
  const spec: RandomVitSpec = { ...(values.small ? SMALL_VIT : VIT_B16) };
  for (const key of SPEC_KEYS) {
    const text = (values as Record<string, string | boolean | undefined>)[key];
    if (text === undefined) continue;
    const n = Number(text);
    if (!Number.isInteger(n) || n < (key === 'seed' ? 0 : 1)) throw new Error(`--${key} must be a whole number${key === 'seed' ? '' : ' ≥ 1'}, got ${text}`);
    spec[key] = n;
  }
  if (spec.hidden % spec.heads !== 0) throw new Error(`--hidden (${spec.hidden}) must be a multiple of --heads (${spec.heads})`);
  if (spec.image % spec.patch !== 0) throw new Error(`--image (${spec.image}) must be a multiple of --patch (${spec.patch})`);
  return { out: typeof values.out === 'string' ? resolve(values.out) : defaultRandomVitDir(spec), spec };
}

if (isMainModule(import.meta.url)) {
  let parsed;
  try {
    parsed = parseArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`make-random-vit: ${(error as Error).message}\n(see: npx tsx scripts/make-random-vit.ts --help)\n`);
    process.exit(2);
  }
  if (parsed === undefined) {
    process.stdout.write(`${USAGE}\n`);
  } else {
    const started = Date.now();
    const r = writeRandomVit(parsed.out, parsed.spec);
    console.log(`${r.parameters.toLocaleString('en')} parameters → ${r.onnx} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
}
