/**
 * `npm run fidelity`: the headless engine against the Unity evaluator's own results on the 90
 * reference levels (test/fixtures/golden/reference-levels: levels, stability JSON and images of
 * chatgpt4pcg/modified-science-birds @84df32e). Prints a markdown table per level and the agreement:
 * stable/unstable verdicts, moving counts, scores, and the IoU of the black pixels of the images.
 *
 *   npm run fidelity [-- --damage body] [-- --workers N] [-- --only-mismatches]
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DamageFormula, Engine } from '../bridge/engine.js';
import { createEngines, defaultEngineCount } from '../bridge/engines.js';
import { decodePng } from '../bridge/headless/png.js';
import { compareNames } from '../orchestrator/layout/competition.js';
import { EnginePool } from '../orchestrator/pool/index.js';
import { evaluateLevel, poolRunner } from '../orchestrator/stages/simulate.js';
import { OFFICIAL_RULE } from '../scoring/stability.js';

export const REFERENCE_LEVELS = fileURLToPath(new URL('../test/fixtures/golden/reference-levels/', import.meta.url));

export interface FidelityLevel {
  level: string;
  unity: { score: number; startingObjects: number; movingObjects: number };
  headless: { score: number; startingObjects: number; movingObjects: number; trialsRun: number };
  stableAgrees: boolean;
  movingEqual: boolean;
  scoreEqual: boolean;
  iou: number;
}

export interface FidelitySummary {
  levels: number;
  stableAgreement: number;
  movingEqual: number;
  scoreEqual: number;
  meanIou: number;
  /** Smallest IoU among the levels Unity found stable (score 1). */
  minStableIou: number;
  unityStable: number;
}

export interface FidelityReport {
  damage: DamageFormula;
  levels: FidelityLevel[];
  summary: FidelitySummary;
}

interface UnityEntry {
  tag: string;
  score: number;
  startingObjects: number;
  movingObjects: number;
}

/** Black-pixel IoU of two RGBA images of the same size (the reference images hold only black and white). */
export function blackIou(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) throw new RangeError('images differ in size');
  let inter = 0;
  let union = 0;
  for (let i = 0; i < a.length; i += 4) {
    const x = (a[i] as number) < 128;
    const y = (b[i] as number) < 128;
    if (x && y) inter++;
    if (x || y) union++;
  }
  return union === 0 ? 1 : inter / union;
}

export async function runFidelity(options: { root?: string; damage?: DamageFormula; engines?: Engine[]; workers?: number } = {}): Promise<FidelityReport> {
  const root = options.root ?? REFERENCE_LEVELS;
  const damage = options.damage ?? 'contact-point';
  const jobs: Array<{ level: string; xml: string; unity: UnityEntry; image: string }> = [];
  for (const version of readdirSync(root).sort(compareNames)) {
    const levelsDir = join(root, version, 'levels');
    if (!existsSync(levelsDir)) continue;
    for (const character of readdirSync(levelsDir).sort(compareNames)) {
      const unityFile = JSON.parse(readFileSync(join(root, version, 'stability', `${character}.json`), 'utf8')) as { raws: UnityEntry[] };
      const files = readdirSync(join(levelsDir, character)).filter((f) => f.endsWith('.xml')).sort(compareNames);
      for (const file of files) {
        const unity = unityFile.raws.find((r) => r.tag.split(/[\\/]/).at(-1) === file);
        if (!unity) throw new Error(`${version}/${character}/${file}: no Unity result`);
        const level = file.replace(/\.xml$/, '');
        jobs.push({ level, xml: readFileSync(join(levelsDir, character, file), 'utf8'), unity, image: join(root, version, 'images', character, `${level}.png`) });
      }
    }
  }

  const engines = options.engines ?? (await createEngines('headless', options.workers ?? defaultEngineCount()));
  const pool = new EnginePool({ engines });
  const run = poolRunner(pool);
  const results: FidelityLevel[] = new Array(jobs.length);
  try {
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < jobs.length; i = next++) {
        const job = jobs[i]!;
        const evaluation = await evaluateLevel(run, job.level, job.xml, { trials: 3, damage, rule: OFFICIAL_RULE, capture: true, rawImages: false });
        const ours = (await decodePng(evaluation.png!)).rgba;
        const theirs = (await decodePng(readFileSync(job.image))).rgba;
        const s = evaluation.stability;
        results[i] = {
          level: job.level,
          unity: { score: job.unity.score, startingObjects: job.unity.startingObjects, movingObjects: job.unity.movingObjects },
          headless: { score: s.score, startingObjects: s.startingObjects, movingObjects: s.movingObjects, trialsRun: s.trialsRun },
          stableAgrees: (s.score >= 1) === (job.unity.score >= 1),
          movingEqual: s.movingObjects === job.unity.movingObjects && s.startingObjects === job.unity.startingObjects,
          scoreEqual: Math.fround(s.score) === Math.fround(job.unity.score),
          iou: blackIou(ours, theirs),
        };
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, engines.length * 2) }, worker));
  } finally {
    await pool.close();
    if (!options.engines) await Promise.all(engines.map((e) => e.close()));
  }
  return { damage, levels: results, summary: summarize(results) };
}

export function summarize(levels: readonly FidelityLevel[]): FidelitySummary {
  const stable = levels.filter((l) => l.unity.score >= 1);
  return {
    levels: levels.length,
    stableAgreement: levels.filter((l) => l.stableAgrees).length,
    movingEqual: levels.filter((l) => l.movingEqual).length,
    scoreEqual: levels.filter((l) => l.scoreEqual).length,
    meanIou: levels.reduce((sum, l) => sum + l.iou, 0) / Math.max(1, levels.length),
    minStableIou: stable.reduce((min, l) => Math.min(min, l.iou), 1),
    unityStable: stable.length,
  };
}

const f3 = (n: number) => n.toFixed(3);
const f4 = (n: number) => n.toFixed(4);

export function fidelityMarkdown(report: FidelityReport, onlyMismatches = false): string {
  const s = report.summary;
  const lines = [
    `Headless engine vs the Unity evaluator on ${s.levels} reference levels (damage formula: ${report.damage}; up to 3 trials with Unity's bookkeeping)`,
    '',
    '| measure | agreement | target |',
    '| --- | --- | --- |',
    `| stable/unstable verdict | ${s.stableAgreement}/${s.levels} | ${s.levels}/${s.levels} |`,
    `| moving count equal | ${s.movingEqual}/${s.levels} | ≥ ${s.levels - 1} |`,
    `| score equal (float32) | ${s.scoreEqual}/${s.levels} | |`,
    `| image IoU, mean over all levels | ${f4(s.meanIou)} | ≥ 0.96 |`,
    `| image IoU, minimum over the ${s.unityStable} Unity-stable levels | ${f4(s.minStableIou)} | ≥ 0.99 |`,
    '',
    '| level | Unity moving | headless moving | Unity score | headless score | trials | verdict | IoU |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const l of report.levels) {
    const mismatch = !l.movingEqual || !l.stableAgrees || l.iou < 0.99;
    if (onlyMismatches && !mismatch) continue;
    const verdict = l.stableAgrees ? (l.movingEqual ? 'same' : 'same verdict, count differs') : 'DIFFERENT';
    lines.push(
      `| ${l.level} | ${l.unity.movingObjects}/${l.unity.startingObjects} | ${l.headless.movingObjects}/${l.headless.startingObjects} | ${f3(l.unity.score)} | ${f3(l.headless.score)} | ${l.headless.trialsRun} | ${verdict} | ${f4(l.iou)} |`,
    );
  }
  return lines.join('\n');
}

function isMain(): boolean {
  return process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
}

if (isMain()) {
  const args = process.argv.slice(2);
  const value = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const damage = (value('--damage') ?? 'contact-point') as DamageFormula;
  if (damage !== 'contact-point' && damage !== 'body') {
    console.error('--damage must be contact-point or body');
    process.exit(2);
  }
  const workers = value('--workers');
  const started = performance.now();
  const report = await runFidelity({ damage, ...(workers ? { workers: Number(workers) } : {}) });
  console.log(fidelityMarkdown(report, args.includes('--only-mismatches')));
  console.log(`\n(${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
