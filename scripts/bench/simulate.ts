import { availableParallelism } from 'node:os';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchSuite } from './suites.js';
import { DEFAULT_SIMULATION } from '../../bridge/engine.js';
import { encodePng } from '../../bridge/headless/png.js';
import { levelSeed, simulateTrial } from '../../bridge/headless/run.js';
import { convertProgram } from '../../levels/pipeline.js';
import { parseLevelXml } from '../../levels/xml-read.js';
import { mulberry32 } from '../../bridge/headless/order.js';
import { runSimulateStage } from '../../orchestrator/stages/simulate.js';

/**
 * `sbeval simulate` throughput (stability with Unity's up-to-3 trials + image + PNG, files on disk)
 * on the 90 reference levels and on generated levels of 20–60 blocks, with one engine and with one
 * per core, next to the Unity evaluator's estimated 3–5 s per level (10 s of game time per trial at
 * ×10 time scale plus the 10 s image run at ×5, one physics step per rendered frame:
 * reference/science-birds-evaluator.md §6). Also the per-level cost split of one trial in this thread.
 */
const REFERENCE = fileURLToPath(new URL('../../test/fixtures/golden/reference-levels/', import.meta.url));
const UNITY_SECONDS_PER_LEVEL = { low: 3, high: 5 };

/** Seeded drop programs on the 20 × 16 grid, kept when the official converter accepts them with 20–60 blocks. */
export function generatedLevels(count: number, seed = 7): string[] {
  const random = mulberry32(seed);
  const ids = ['b11', 'b31', 'b13'] as const;
  const levels: string[] = [];
  while (levels.length < count) {
    const target = 20 + Math.floor(random() * 41);
    const lines: string[] = [];
    let xml: string | undefined;
    let misses = 0;
    while (lines.length < target && misses < 200) {
      const line = `drop_block('${ids[Math.floor(random() * 3)]}', ${Math.floor(random() * 20)})`;
      const result = convertProgram([...lines, line].join('\n'));
      if (result.ok) {
        lines.push(line);
        xml = result.xml;
      } else misses++;
    }
    if (xml && lines.length >= 20) levels.push(xml);
  }
  return levels;
}

function competition(root: string, team: string, levels: Array<{ character: string; name: string; xml: string }>): void {
  for (const l of levels) {
    const dir = join(root, team, 'levels', l.character);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${l.name}.xml`), l.xml);
  }
}

async function timeStage(source: (root: string) => void, workers: number): Promise<{ seconds: number; levels: number }> {
  const root = mkdtempSync(join(tmpdir(), 'sbeval-bench-simulate-'));
  try {
    source(root);
    const started = performance.now();
    const summary = await runSimulateStage({ root, workers });
    return { seconds: (performance.now() - started) / 1000, levels: summary.succeeded };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export const simulateSuite: BenchSuite = {
  name: 'simulate',
  description: 'sbeval simulate (stability, up to 3 trials + image + PNG, on disk): levels/s, one engine and one per core, vs Unity at 3–5 s/level',
  async run() {
    const cores = availableParallelism();
    const generated = generatedLevels(40).map((xml, i) => ({ character: 'G', name: `gen_G_${i + 1}`, xml }));
    const blockCounts = generated.map((g) => parseLevelXml(g.xml).objects.length);
    const sets: Array<{ name: string; source: (root: string) => void }> = [
      { name: 'reference (90 levels, 1–13 blocks)', source: (root) => cpSync(REFERENCE, root, { recursive: true, filter: (src) => !/stability|images|\.txt$/.test(src) }) },
      { name: `generated (40 levels, ${Math.min(...blockCounts)}–${Math.max(...blockCounts)} blocks)`, source: (root) => competition(root, 'gen', generated) },
    ];
    const rows: Array<Record<string, string | number>> = [];
    for (const set of sets) {
      for (const workers of [...new Set([1, cores])]) {
        const { seconds, levels } = await timeStage(set.source, workers);
        const perSecond = levels / seconds;
        rows.push({
          what: set.name,
          engines: workers,
          levels,
          seconds: Number(seconds.toFixed(2)),
          levelsPerSecond: Number(perSecond.toFixed(1)),
          msPerLevel: Number(((seconds * 1000) / levels).toFixed(1)),
          vsUnity: `${Math.round(perSecond * UNITY_SECONDS_PER_LEVEL.low)}–${Math.round(perSecond * UNITY_SECONDS_PER_LEVEL.high)}× faster`,
        });
      }
    }
    // Cost split of one trial with capture, in this thread (no worker, no disk).
    for (const set of [
      { name: 'reference', xmls: readdirSync(join(REFERENCE, 'v1', 'levels', 'L')).filter((f) => f.endsWith('.xml')).map((f) => readFileSync(join(REFERENCE, 'v1', 'levels', 'L', f), 'utf8')) },
      { name: 'generated', xmls: generated.slice(0, 10).map((g) => g.xml) },
    ]) {
      let simMs = 0;
      let pngMs = 0;
      for (const xml of set.xmls) {
        const level = parseLevelXml(xml);
        const t0 = performance.now();
        const images = simulateTrial(level, levelSeed(xml), { ...DEFAULT_SIMULATION }, { loaded() {}, frames() {}, events() {} });
        const t1 = performance.now();
        await encodePng(images!.image);
        pngMs += performance.now() - t1;
        simMs += t1 - t0;
      }
      rows.push({
        what: `one trial, ${set.name}: simulate 514 steps + render (ms/level)`,
        engines: 0,
        levels: set.xmls.length,
        seconds: Number(((simMs + pngMs) / 1000).toFixed(2)),
        levelsPerSecond: Number(((set.xmls.length * 1000) / (simMs + pngMs)).toFixed(1)),
        msPerLevel: Number((simMs / set.xmls.length).toFixed(1)),
        vsUnity: `PNG ${(pngMs / set.xmls.length).toFixed(1)} ms/level`,
      });
    }
    return rows;
  },
};
