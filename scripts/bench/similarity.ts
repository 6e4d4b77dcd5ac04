/**
 * `npm run bench -- similarity`: the similarity stage against the bare onnxruntime session it is built on,
 * in the same run, with the same model (the ViT-B/16-sized random model, scripts/make-random-vit.ts), the
 * same intra-op threads and the same batch size.
 * - images: the 90 reference levels rendered by sbeval's own engine (`sbeval simulate`, so the PNGs are
 *   what a run feeds the stage), byte-identical pictures removed (deduplication cannot help either side);
 * - bare session: those images already preprocessed in memory, classified in batches — the ceiling;
 * - stage: `runSimilarityStage` on the folder (file reads, PNG decode + resize in the preprocessing
 *   workers, inference, softmax, JSON files written), with a classifier opened and warmed up beforehand
 *   (opening a 343 MB model is a one-off, not a rate).
 * Rounds alternate bare and stage so that load from other processes on a shared machine hits both alike;
 * the ratio is the stage's images/s over the bare session's images/s of the same round. One more bare
 * round with onnxruntime's default of spinning idle threads shows what sbeval's default (no spinning) buys.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchSuite } from './suites.js';
import { modelPath } from './vit.js';
import { readModelInfo } from '../../orchestrator/stages/model.js';
import { runSimulateStage } from '../../orchestrator/stages/simulate.js';
import { runSimilarityStage } from '../../orchestrator/stages/similarity.js';
import { listTrialFiles } from '../../orchestrator/layout/competition.js';
import { ImageClassifier, defaultPrepareWorkers } from '../../orchestrator/similarity/image-classifier.js';
import { VitClassifier, defaultBatchSize } from '../../scoring/similarity/classifier.js';
import { decodePngToRgb } from '../../scoring/similarity/decode.js';
import { preprocessRgb } from '../../scoring/similarity/preprocess.js';
import { SILENT_PROGRESS } from '../../orchestrator/progress/types.js';

const REFERENCE = fileURLToPath(new URL('../../test/fixtures/golden/reference-levels/', import.meta.url));
const ROUNDS = 2;

/** A white 1024² PNG: warms the session and the workers up without touching the measured images. */
async function warmUpPng(): Promise<Uint8Array> {
  const sharp = (await import('sharp')).default;
  return sharp({ create: { width: 1024, height: 1024, channels: 3, background: '#fff' } }).png().toBuffer();
}

/** The reference levels rendered by sbeval; levels whose picture equals an earlier one's are removed (distinct images only). */
export async function renderReferenceImages(root: string): Promise<string[]> {
  cpSync(REFERENCE, root, { recursive: true, filter: (src) => !/stability|images|\.txt$/.test(src) });
  await runSimulateStage({ root });
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const file of listTrialFiles(root, 'images', {}, '.png')) {
    const digest = createHash('sha256').update(readFileSync(file.path)).digest('hex');
    if (seen.has(digest)) rmSync(file.path);
    else {
      seen.add(digest);
      kept.push(file.path);
    }
  }
  return kept;
}

export const similaritySuite: BenchSuite = {
  name: 'similarity',
  description: 'similarity stage (files → JSON) vs the bare onnxruntime session (tensors in memory): ViT-B/16-sized model, same threads and batch, distinct renders of the reference levels, alternating rounds',
  async run() {
    const model = modelPath();
    const info = readModelInfo(model);
    const threads = 0;
    const batchSize = defaultBatchSize();
    const root = mkdtempSync(join(tmpdir(), 'sbeval-bench-similarity-'));
    const rows: Array<Record<string, string | number>> = [];
    try {
      const files = await renderReferenceImages(root);
      const tensors = await Promise.all(files.map(async (f) => preprocessRgb(await decodePngToRgb(readFileSync(f)), info.preprocessor).tensor));
      const warm = await warmUpPng();
      const warmTensor = preprocessRgb(await decodePngToRgb(warm), info.preprocessor).tensor;
      let bareSum = 0;
      let stageSum = 0;
      for (let round = 1; round <= ROUNDS; round++) {
        // Bare session.
        const bare = await VitClassifier.create(model, info, { threads, batchSize });
        let bareRate: number;
        try {
          await bare.classifyAll(Array.from({ length: batchSize }, () => warmTensor));
          const started = performance.now();
          await bare.classifyAll(tensors);
          bareRate = tensors.length / ((performance.now() - started) / 1000);
        } finally {
          await bare.close();
        }
        // The stage.
        const classifier = await ImageClassifier.open({ model, info, threads, batchSize });
        let stageRate: number;
        try {
          await classifier.classifyPng(warm);
          const started = performance.now();
          const summary = await runSimilarityStage({ root, model, rules: 2025, force: true, classifier }, SILENT_PROGRESS);
          stageRate = summary.succeeded / ((performance.now() - started) / 1000);
          if (summary.succeeded !== files.length || summary.classifier.inferred !== files.length) {
            throw new Error(`the stage classified ${summary.succeeded} images with ${summary.classifier.inferred} inferences, expected ${files.length} distinct`);
          }
        } finally {
          await classifier.close();
        }
        bareSum += bareRate;
        stageSum += stageRate;
        rows.push({ round, images: files.length, threads: threads || 'default', batch: batchSize, prepareWorkers: defaultPrepareWorkers(), 'bare session images/s': Number(bareRate.toFixed(2)), 'stage images/s': Number(stageRate.toFixed(2)), 'stage / bare': `${((100 * stageRate) / bareRate).toFixed(1)}%` });
      }
      // onnxruntime's own default (idle threads spin) for comparison: the bare session once more.
      const spinning = await VitClassifier.create(model, info, { threads, batchSize, spinning: true });
      try {
        await spinning.classifyAll(Array.from({ length: batchSize }, () => warmTensor));
        const started = performance.now();
        await spinning.classifyAll(tensors);
        const rate = tensors.length / ((performance.now() - started) / 1000);
        rows.push({ round: 'bare, spinning threads', images: files.length, threads: threads || 'default', batch: batchSize, prepareWorkers: '-', 'bare session images/s': Number(rate.toFixed(2)), 'stage images/s': '-', 'stage / bare': '-' });
      } finally {
        await spinning.close();
      }
      rows.push({ round: 'mean', images: files.length, threads: threads || 'default', batch: batchSize, prepareWorkers: defaultPrepareWorkers(), 'bare session images/s': Number((bareSum / ROUNDS).toFixed(2)), 'stage images/s': Number((stageSum / ROUNDS).toFixed(2)), 'stage / bare': `${((100 * stageSum) / bareSum).toFixed(1)}%` });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    return rows;
  },
};
