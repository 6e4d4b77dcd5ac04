/**
 * `npm run bench -- vit`: the similarity stage's cost on this machine.
 * - preprocessing: PNG decode (sharp) + PIL-exact resize + normalisation of a 1024² evaluator image;
 * - inference: images/s of a ViT-B/16-sized model (random weights from scripts/make-random-vit.ts, the
 *   competition model's shape: 85.8 M parameters, 224 px, 26 labels) through onnxruntime-node, for batch
 *   sizes 1…16 and 1 vs 2 intra-op threads, distinct inputs (no deduplication). CPU ms per image is
 *   reported beside wall-clock images/s: on a shared machine it is the steadier number.
 * The model is generated once into the OS temp folder (≈ 30 s, 343 MB) and reused.
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readModelInfo } from '../../orchestrator/stages/model.js';
import { VitClassifier } from '../../scoring/similarity/classifier.js';
import { decodePngToRgb } from '../../scoring/similarity/decode.js';
import { preprocessRgb } from '../../scoring/similarity/preprocess.js';
import { defaultRandomVitDir, VIT_B16, writeRandomVit } from '../make-random-vit.js';
import type { BenchSuite } from './suite.js';

const IMAGE = fileURLToPath(new URL('../../calibration/reference-levels/v1/images/L/V1_L_1.png', import.meta.url));

/** The ViT-B/16-sized random model (generated once into the OS temp folder, reused by later runs). */
export function modelPath(): string {
  const dir = defaultRandomVitDir(VIT_B16);
  const onnx = join(dir, 'model.onnx');
  if (!existsSync(onnx)) {
    console.log(`generating a random ViT-B/16 in ${dir} …`);
    writeRandomVit(dir, VIT_B16);
  }
  return onnx;
}

/** Distinct inputs: the reference image's tensor with a per-image offset (defeats the deduplication). */
function inputs(base: Float32Array, count: number): Float32Array[] {
  return Array.from({ length: count }, (_, k) => {
    const t = base.slice();
    t[k % t.length] = t[k % t.length]! + 1e-3 * (k + 1);
    return t;
  });
}

/** Wall-clock images/s, and CPU ms per image (all threads; less sensitive to other load on the machine). */
async function measure(model: string, threads: number, batch: number, images: number, base: Float32Array): Promise<{ rate: number; cpuMs: number }> {
  const classifier = await VitClassifier.create(model, readModelInfo(model), { threads, batchSize: batch });
  try {
    await classifier.classifyAll(inputs(base, batch)); // warm-up (first run allocates)
    const work = inputs(base, images).map((t) => {
      t[1] = t[1]! + 0.5; // distinct from the warm-up batch
      return t;
    });
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    await classifier.classifyAll(work);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const used = process.cpuUsage(cpu);
    return { rate: images / seconds, cpuMs: (used.user + used.system) / 1000 / images };
  } finally {
    await classifier.close();
  }
}

export const vitSuite: BenchSuite = {
  name: 'vit',
  description: 'similarity: preprocessing ms/image and ViT-B/16 (random weights) images/s by batch size and threads',
  async run() {
    const rows: Array<Record<string, string | number>> = [];
    const png = readFileSync(IMAGE);
    const t0 = process.hrtime.bigint();
    const reps = 20;
    let tensor: Float32Array = new Float32Array(0);
    for (let i = 0; i < reps; i++) tensor = preprocessRgb(await decodePngToRgb(png)).tensor;
    rows.push({
      case: 'preprocess 1024² PNG → 3×224×224',
      threads: '-',
      batch: '-',
      'ms/image': Number((Number(process.hrtime.bigint() - t0) / 1e6 / reps).toFixed(2)),
      'images/s': Number((reps / (Number(process.hrtime.bigint() - t0) / 1e9)).toFixed(1)),
      'cpu ms/image': '-',
    });

    const model = modelPath();
    const threadOptions = [...new Set([1, Math.min(2, cpus().length)])];
    for (const threads of threadOptions) {
      let best = { batch: 0, rate: 0 };
      for (const batch of [1, 2, 4, 8, 16]) {
        const images = Math.max(8, batch * 2);
        const { rate, cpuMs } = await measure(model, threads, batch, images, tensor);
        if (rate > best.rate) best = { batch, rate };
        rows.push({
          case: `ViT-B/16 inference, ${images} images`,
          threads,
          batch,
          'ms/image': Number((1000 / rate).toFixed(1)),
          'images/s': Number(rate.toFixed(2)),
          'cpu ms/image': Number(cpuMs.toFixed(0)),
        });
      }
      rows.push({
        case: `best batch (${threads} thread${threads > 1 ? 's' : ''})`,
        threads,
        batch: best.batch,
        'ms/image': Number((1000 / best.rate).toFixed(1)),
        'images/s': Number(best.rate.toFixed(2)),
        'cpu ms/image': '-',
      });
    }
    return rows;
  },
};
