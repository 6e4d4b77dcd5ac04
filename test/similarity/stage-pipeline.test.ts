import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SILENT_PROGRESS } from '../../orchestrator/progress/types.js';
import { ImageClassifier } from '../../orchestrator/similarity/image-classifier.js';
import { PreparePool, PreprocessError } from '../../orchestrator/similarity/prepare-pool.js';
import { convertModelFolder, readModelInfo } from '../../orchestrator/stages/model.js';
import { runSimilarityStage } from '../../orchestrator/stages/similarity.js';
import { type ImageClassification, similarityFile, writeSimilarityJson } from '../../scoring/formats/similarity.js';
import { VitClassifier } from '../../scoring/similarity/classifier.js';
import { decodePngToRgb } from '../../scoring/similarity/decode.js';
import { preprocessRgb } from '../../scoring/similarity/preprocess.js';
import { letterProbabilities } from '../../scoring/similarity/probabilities.js';
import { REFERENCE_LEVELS } from '../helpers/cli.js';

/**
 * The similarity stage's pipeline (preprocessing worker threads, batches of whatever is ready, identical
 * images inferred once) writes byte for byte the files of the plain way: each image decoded to RGB,
 * preprocessed and classified alone (batch 1, one thread) in order.
 */
const HF = fileURLToPath(new URL('./fixtures/hf-tiny-vit/', import.meta.url));
const PILLOW = fileURLToPath(new URL('./fixtures/pillow/inputs/', import.meta.url));
const ref = (version: string, letter: string, n: number) => join(REFERENCE_LEVELS, `${version}/images/${letter}/${version.toUpperCase()}_${letter}_${n}.png`);

// Grey renders (the grey shortcut), colour images of several PNG kinds (the RGB path), duplicates in and across folders.
const IMAGES: Record<string, string> = {
  'alpha/images/I/alpha_I_1.png': ref('v1', 'I', 1),
  'alpha/images/I/alpha_I_2.png': ref('v1', 'I', 1),
  'alpha/images/I/alpha_I_3.png': ref('v2', 'I', 2),
  'alpha/images/I/alpha_I_4.png': join(PILLOW, 'rgba-gradient-300x200.png'),
  'alpha/images/L/alpha_L_1.png': ref('v1', 'L', 1),
  'alpha/images/L/alpha_L_2.png': join(PILLOW, 'p-trns-150x90.png'),
  'alpha/images/L/alpha_L_3.png': join(PILLOW, 'la-100x333.png'),
  'beta/images/U/beta_U_1.png': ref('v3', 'U', 1),
  'beta/images/U/beta_U_2.png': join(PILLOW, 'rgb-letter-1023x769.png'),
  'beta/images/U/beta_U_3.png': ref('v1', 'L', 1),
  'beta/images/U/beta_U_4.png': join(PILLOW, 'bilevel-64x48.png'),
};

const tmp = mkdtempSync(join(tmpdir(), 'sbeval-sim-pipeline-'));
const model = join(tmp, 'tiny.onnx');

function makeCompetition(root: string): void {
  for (const [dest, src] of Object.entries(IMAGES)) {
    mkdirSync(join(root, dest, '..'), { recursive: true });
    copyFileSync(src, join(root, dest));
  }
}

/** The files of the plain way, keyed `<team>/similarity/<C>.json`. */
async function plainFiles(root: string): Promise<Map<string, string>> {
  const info = readModelInfo(model);
  const classifier = await VitClassifier.create(model, info, { threads: 1, batchSize: 1 });
  const files = new Map<string, string>();
  try {
    for (const team of ['alpha', 'beta']) {
      for (const letter of readdirSync(join(root, team, 'images')).sort()) {
        const dir = join(root, team, 'images', letter);
        const names = readdirSync(dir).sort((a, b) => Number(/_(\d+)\.png$/.exec(a)![1]) - Number(/_(\d+)\.png$/.exec(b)![1]));
        const classified: ImageClassification[] = [];
        for (const name of names) {
          const tensor = preprocessRgb(await decodePngToRgb(readFileSync(join(dir, name))), info.preprocessor).tensor;
          const [r] = await classifier.classifyAll([tensor]);
          classified.push({ id: name, probabilities: letterProbabilities(info.labels, r!.probabilities), clsEmbedding: r!.cls! });
        }
        files.set(`${team}/similarity/${letter}.json`, writeSimilarityJson(similarityFile(letter, classified)));
      }
    }
  } finally {
    await classifier.close();
  }
  return files;
}

beforeAll(async () => {
  convertModelFolder(HF, model);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('similarity stage pipeline', () => {
  it('writes the same bytes as classifying each image alone, with workers, batches and a shared classifier', async () => {
    const first = join(tmp, 'first');
    const second = join(tmp, 'second');
    makeCompetition(first);
    makeCompetition(second);
    const expected = await plainFiles(first);
    expect(expected.size).toBe(3);

    const info = readModelInfo(model);
    const shared = await ImageClassifier.open({ model, info, threads: 2, batchSize: 3, prepareWorkers: 2 });
    try {
      const a = await runSimilarityStage({ root: first, model, rules: 2025, classifier: shared }, SILENT_PROGRESS);
      const b = await runSimilarityStage({ root: second, model, rules: 2025, classifier: shared }, SILENT_PROGRESS);
      for (const root of [first, second]) {
        for (const [file, text] of expected) expect(readFileSync(join(root, file), 'utf8'), `${root}: ${file}`).toBe(text);
      }
      // 11 images, 9 distinct files (one byte-identical pair inside a letter, one across teams): the first
      // folder infers its 9 distinct images, the second (the same files) none.
      expect(a).toMatchObject({ succeeded: 11, failed: 0 });
      expect(a.classifier).toMatchObject({ requested: 11, inferred: 9 });
      expect(b).toMatchObject({ succeeded: 11, failed: 0 });
      expect(b.classifier).toMatchObject({ requested: 11, inferred: 0 });
      expect(shared.statistics().prepared).toBe(9);
    } finally {
      await shared.close();
    }
  });
});

describe('pieces of the pipeline', () => {
  it('a batch gives each image the bits it gets alone', async () => {
    const info = readModelInfo(model);
    const tensors = await Promise.all(
      Object.values(IMAGES)
        .slice(0, 7)
        .map(async (file) => preprocessRgb(await decodePngToRgb(readFileSync(file)), info.preprocessor).tensor),
    );
    const alone = await VitClassifier.create(model, info, { threads: 1, batchSize: 1 });
    const batched = await VitClassifier.create(model, info, { threads: 2, batchSize: 3 });
    try {
      const a = await alone.classifyAll(tensors);
      const b = await batched.classifyAll(tensors);
      expect(batched.statistics().runs).toBeLessThan(tensors.length); // batches really formed
      b.forEach((r, i) => {
        expect(Array.from(r.logits)).toEqual(Array.from(a[i]!.logits));
        expect(Array.from(r.cls!)).toEqual(Array.from(a[i]!.cls!));
      });
    } finally {
      await alone.close();
      await batched.close();
    }
  });

  it('preprocessing survives a worker that dies once; a second death fails that image with the reason', async () => {
    const info = readModelInfo(model);
    const png = readFileSync(ref('v1', 'I', 1));
    const want = preprocessRgb(await decodePngToRgb(png), info.preprocessor).tensor;
    const pool = await PreparePool.start(1);
    try {
      const [first] = pool.threads();
      const job = pool.prepare(png, info.preprocessor);
      await first!.terminate();
      expect(Array.from(await job)).toEqual(Array.from(want));

      const [second] = pool.threads();
      const doomed = pool.prepare(png, info.preprocessor);
      doomed.catch(() => undefined);
      await second!.terminate();
      // The job went to the replacement worker: kill that one too.
      await vi.waitFor(() => expect(pool.threads()[0]).not.toBe(second), { timeout: 30_000 });
      await pool.threads()[0]!.terminate();
      await expect(doomed).rejects.toBeInstanceOf(PreprocessError);
      await expect(doomed).rejects.toThrow(/twice/);
      // The pool still works.
      expect(Array.from(await pool.prepare(png, info.preprocessor))).toEqual(Array.from(want));
    } finally {
      await pool.close();
    }
  });
});
