/**
 * `npm run bench -- report`: the score stage's report on a full-size competition — 10 teams × 26
 * letters × 10 trials (2,600 trials, the 2024 size) — measuring how big `report.html` gets with every
 * trial's thumbnail embedded and how long the report's pictures take, with an empty thumbnail cache
 * (every image decoded and shrunk) and with a full one (a second `score`).
 *
 * Images: the 90 evaluator renders of the reference levels (golden data, Unity's own 1024-px images of
 * I, L and U levels), cycled over the trials; each copy gets a unique PNG text chunk, so its bytes (and
 * the cache key) differ while its pixels stay the real ones. One trial in six has no image (a failed
 * trial: a blank in the gallery). Stability and similarity files are seeded values in the official
 * formats.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { mulberry32 as prng } from '../../bridge/headless/order.js';
import { makeThumbnail } from '../../orchestrator/report/thumbnail.js';
import { runScoreStage } from '../../orchestrator/stages/score-stage.js';
import { similarityFile, stabilityTag, writeDiversityJson, writeSimilarityJson, writeStabilityJson } from '../../scoring/formats/index.js';
import { unityStabilityScore } from '../../scoring/formats/unity-score.js';
import type { BenchSuite } from './suite.js';

const TEAMS = 10;
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const TRIALS = 10;
const GOLDEN = fileURLToPath(new URL('../../calibration/reference-levels/', import.meta.url));

function goldenImages(): string[] {
  const out: string[] = [];
  for (const version of readdirSync(GOLDEN).sort()) {
    const images = join(GOLDEN, version, 'images');
    for (const letter of readdirSync(images).sort()) {
      for (const file of readdirSync(join(images, letter)).sort())
        if (file.endsWith('.png') && !file.endsWith('_raw.png')) out.push(join(images, letter, file));
    }
  }
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The PNG with a `tEXt` chunk before IEND: same pixels, different bytes. */
function withTextChunk(png: Buffer, text: string): Buffer {
  const data = Buffer.from(`Comment\0${text}`, 'latin1');
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write('tEXt', 4, 'latin1');
  data.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  const iend = png.length - 12;
  return Buffer.concat([png.subarray(0, iend), chunk, png.subarray(iend)]);
}

/** Writes the competition; returns the number of images. */
export function writeReportCompetition(root: string, seed = 2024): number {
  const images = goldenImages();
  const random = prng(seed);
  let written = 0;
  for (let t = 0; t < TEAMS; t++) {
    const team = `team${String(t).padStart(2, '0')}`;
    for (const letter of LETTERS) {
      const dir = join(root, team, 'images', letter);
      mkdirSync(dir, { recursive: true });
      const stability: Array<{ tag: string; score: number; startingObjects: number; movingObjects: number }> = [];
      const sims: Array<{ id: string; probabilities: number[] }> = [];
      for (let n = 1; n <= TRIALS; n++) {
        const name = `${team}_${letter}_${n}`;
        if (random() < 1 / 6) continue; // a trial that never became an image
        const source = images[(t * 31 + letter.charCodeAt(0) * 7 + n) % images.length]!;
        writeFileSync(join(dir, `${name}.png`), withTextChunk(readFileSync(source), name));
        written++;
        const starting = 2 + Math.floor(random() * 20);
        const moving = Math.floor(random() * (starting + 1) * random());
        stability.push({
          tag: stabilityTag(team, letter, `${name}.xml`),
          score: unityStabilityScore(starting, moving),
          startingObjects: starting,
          movingObjects: moving,
        });
        const p = Math.fround(random() ** 2);
        const rest = Math.fround((1 - p) / 25);
        sims.push({ id: `${name}.png`, probabilities: Array.from({ length: 26 }, (_, k) => (k === letter.charCodeAt(0) - 65 ? p : rest)) });
      }
      mkdirSync(join(root, team, 'stability'), { recursive: true });
      mkdirSync(join(root, team, 'similarity'), { recursive: true });
      mkdirSync(join(root, team, 'diversity'), { recursive: true });
      writeFileSync(join(root, team, 'stability', `${letter}.json`), writeStabilityJson(stability));
      writeFileSync(join(root, team, 'similarity', `${letter}.json`), writeSimilarityJson(similarityFile(letter, sims)));
      writeFileSync(
        join(root, team, 'diversity', `${letter}.json`),
        writeDiversityJson({
          diversityRate: random() * 0.01,
          trials: sims.map((s) => ({ trial: s.id.split('.')[0]!, vector: s.probabilities })),
          diversities: [],
          count: sims.length,
        }),
      );
    }
  }
  return written;
}

export const reportSuite: BenchSuite = {
  name: 'report',
  description: 'score stage report with every trial’s thumbnail: 10 teams × 26 letters × 10 trials',
  async run() {
    const root = mkdtempSync(join(tmpdir(), 'sbeval-bench-report-'));
    try {
      const images = writeReportCompetition(root);
      const rows: Array<Record<string, string | number>> = [{ measure: 'trials / images', value: `${TEAMS * LETTERS.length * TRIALS} / ${images}` }];
      for (const cache of ['empty', 'full']) {
        const start = performance.now();
        await runScoreStage({ root, rules: '2024', trials: TRIALS });
        rows.push({ measure: `score stage, thumbnail cache ${cache} (s)`, value: Number(((performance.now() - start) / 1000).toFixed(2)) });
      }
      rows.push({ measure: 'report.html (MB)', value: Number((statSync(join(root, 'result', 'report.html')).size / 1e6).toFixed(2)) });
      rows.push({ measure: 'report.md (kB)', value: Math.round(statSync(join(root, 'result', 'report.md')).size / 1e3) });
      // One thumbnail (decode 1024 px + area average + palette PNG), mean over the 90 renders.
      const sample = goldenImages().map((f) => readFileSync(f));
      const start = performance.now();
      let bytes = 0;
      for (const png of sample) bytes += (await makeThumbnail(png)).length;
      rows.push({ measure: 'one thumbnail (ms)', value: Number(((performance.now() - start) / sample.length).toFixed(1)) });
      rows.push({ measure: 'one thumbnail (bytes)', value: Math.round(bytes / sample.length) });
      // The same images as plain 8-bit grey PNGs (decoded without libvips, one channel).
      const greys = await Promise.all(
        sample.map(async (png) => {
          const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
          return sharp(data, { raw: { width: info.width, height: info.height, channels: 1 } })
            .toColourspace('b-w')
            .png()
            .toBuffer();
        }),
      );
      const greyStart = performance.now();
      for (const png of greys) await makeThumbnail(png);
      rows.push({ measure: 'one thumbnail from a grey PNG (ms)', value: Number(((performance.now() - greyStart) / greys.length).toFixed(1)) });
      return rows;
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
};
