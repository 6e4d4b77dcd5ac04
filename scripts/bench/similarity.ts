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
 * the ratio is the stage's images/s over the bare session's images/s of the same round. CPU time per image
 * (all threads of the process) is printed beside: on a busy machine it is the steadier measure of what the
 * stage adds. One more bare round with onnxruntime's default of spinning idle threads shows what sbeval's
 * default (no spinning) buys.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listTrialFiles } from '../../orchestrator/layout/competition.js';
import { SILENT_PROGRESS } from '../../orchestrator/progress/types.js';
import { defaultPrepareWorkers, ImageClassifier } from '../../orchestrator/similarity/image-classifier.js';
import { readModelInfo } from '../../orchestrator/stages/model.js';
import { runSimilarityStage } from '../../orchestrator/stages/similarity.js';
import { runSimulateStage } from '../../orchestrator/stages/simulate.js';
import { defaultBatchSize, VitClassifier } from '../../scoring/similarity/classifier.js';
import { decodePngToRgb } from '../../scoring/similarity/decode.js';
import { preprocessRgb } from '../../scoring/similarity/preprocess.js';
import { envInteger } from './env.js';
import type { BenchSuite } from './suite.js';
import { modelPath } from './vit.js';

const REFERENCE = fileURLToPath(new URL('../../calibration/reference-levels/', import.meta.url));
/**
 * Rounds of bare + stage (`SBEVAL_BENCH_ROUNDS`, default 6). The rate of either side varies by ±10 % between
 * rounds on this project's virtual machine even when it is idle (one idle run saw the bare session at 3.56,
 * 3.27 and 2.78 images/s in three consecutive rounds), so the pooled ratio needs several rounds to settle.
 */
const ROUNDS = envInteger('SBEVAL_BENCH_ROUNDS', 6, 1, 50);

interface Timed {
  /** Images per second of wall-clock time. */
  rate: number;
  /** CPU time of the whole process (every thread: onnxruntime's, the workers') per image, ms. */
  cpuMs: number;
}

async function timed(images: number, work: () => Promise<unknown>): Promise<Timed> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { rate: images / seconds, cpuMs: (used.user + used.system) / 1000 / images };
}

/** A white 1024² PNG: warms the session and the workers up without touching the measured images. */
async function warmUpPng(): Promise<Uint8Array> {
  const sharp = (await import('sharp')).default;
  return sharp({ create: { width: 1024, height: 1024, channels: 3, background: '#fff' } })
    .png()
    .toBuffer();
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
  description:
    'similarity stage (files → JSON) vs the bare onnxruntime session (tensors in memory): ViT-B/16-sized model, same threads and batch, distinct renders of the reference levels, alternating rounds',
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
      const fixed = { images: files.length, threads: threads || 'default', batch: batchSize };
      const row = (round: string | number, bare: Timed | undefined, stage: Timed | undefined) => ({
        round,
        ...fixed,
        prepareWorkers: stage ? defaultPrepareWorkers() : '-',
        'bare images/s': bare ? Number(bare.rate.toFixed(2)) : '-',
        'stage images/s': stage ? Number(stage.rate.toFixed(2)) : '-',
        'stage / bare': bare && stage ? `${((100 * stage.rate) / bare.rate).toFixed(1)}%` : '-',
        'bare CPU ms/image': bare ? Math.round(bare.cpuMs) : '-',
        'stage CPU ms/image': stage ? Math.round(stage.cpuMs) : '-',
        'CPU: bare / stage': bare && stage ? `${((100 * bare.cpuMs) / stage.cpuMs).toFixed(1)}%` : '-',
      });
      const bares: Timed[] = [];
      const stages: Timed[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        // Bare session.
        const bare = await VitClassifier.create(model, info, { threads, batchSize });
        try {
          await bare.classifyAll(Array.from({ length: batchSize }, () => warmTensor));
          bares.push(await timed(tensors.length, () => bare.classifyAll(tensors)));
        } finally {
          await bare.close();
        }
        // The stage.
        const classifier = await ImageClassifier.open({ model, info, threads, batchSize });
        try {
          await classifier.classifyPng(warm);
          let summary: Awaited<ReturnType<typeof runSimilarityStage>> | undefined;
          stages.push(
            await timed(files.length, async () => {
              summary = await runSimilarityStage({ root, model, rules: 2025, force: true, classifier }, SILENT_PROGRESS);
            }),
          );
          if (summary?.succeeded !== files.length || summary.classifier.inferred !== files.length) {
            throw new Error(
              `the stage classified ${summary?.succeeded} images with ${summary?.classifier.inferred} inferences, expected ${files.length} distinct`,
            );
          }
        } finally {
          await classifier.close();
        }
        rows.push(row(round, bares.at(-1), stages.at(-1)));
      }
      // onnxruntime's own default (idle threads spin) for comparison: the bare session once more.
      const spinning = await VitClassifier.create(model, info, { threads, batchSize, spinning: true });
      try {
        await spinning.classifyAll(Array.from({ length: batchSize }, () => warmTensor));
        rows.push(row('bare, onnxruntime spinning threads', await timed(tensors.length, () => spinning.classifyAll(tensors)), undefined));
      } finally {
        await spinning.close();
      }
      // All rounds pooled: images over total time, CPU over total images.
      const pooled = (list: Timed[]): Timed => {
        const seconds = list.reduce((t, x) => t + files.length / x.rate, 0);
        return { rate: (files.length * list.length) / seconds, cpuMs: list.reduce((t, x) => t + x.cpuMs, 0) / list.length };
      };
      rows.push(row('all rounds', pooled(bares), pooled(stages)));
      // The middle round's ratio: a round disturbed by the machine weighs no more than any other.
      const ratios = stages.map((st, i) => st.rate / bares[i]!.rate).sort((a, b) => a - b);
      const median = ratios.length % 2 === 1 ? ratios[(ratios.length - 1) / 2]! : (ratios[ratios.length / 2 - 1]! + ratios[ratios.length / 2]!) / 2;
      rows.push({ round: "median of the rounds' stage / bare", ...fixed, 'stage / bare': `${(100 * median).toFixed(1)}%` });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    return rows;
  },
};
