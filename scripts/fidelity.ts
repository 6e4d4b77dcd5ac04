/**
 * `npm run fidelity`: the headless engine against the Unity evaluator's own results on the 90
 * reference levels (calibration/reference-levels: levels, stability JSON and images of
 * chatgpt4pcg/modified-science-birds @84df32e). Prints a markdown table per level and the agreement:
 * stable/unstable verdicts, moving counts, scores, and the IoU of the black pixels of the images.
 *
 *   npm run fidelity [-- --damage body] [-- --workers N] [-- --only-mismatches]
 */
import type { DamageFormula, Engine } from '../bridge/engine.js';
import { createEngines, defaultEngineCount } from '../bridge/engines.js';
import { isMainModule } from '../core/main-module.js';
import { type AgreementSummary, differs, headlessFactory, type LevelAgreement, loadReference, measureAgreement } from '../orchestrator/stages/agreement.js';

export type FidelityLevel = LevelAgreement;
export type FidelitySummary = AgreementSummary;

export interface FidelityReport {
  damage: DamageFormula;
  levels: FidelityLevel[];
  summary: FidelitySummary;
}

export async function runFidelity(options: { root?: string; damage?: DamageFormula; engines?: Engine[]; workers?: number } = {}): Promise<FidelityReport> {
  const damage = options.damage ?? 'contact-point';
  const levels = loadReference(options.root);
  const engines = options.engines ?? (await createEngines('headless', options.workers ?? defaultEngineCount()));
  try {
    // Headless engines (given or made here): a retired one is replaced, its level retried elsewhere.
    const agreement = await measureAgreement({ engines, levels, damage, pool: { factory: headlessFactory() } });
    return { damage, ...agreement };
  } finally {
    if (!options.engines) await Promise.all(engines.map((e) => e.close()));
  }
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
    `| levels without a result | ${s.failed} | 0 |`,
    '',
    '| level | Unity moving | headless moving | Unity score | headless score | trials | verdict | IoU |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const l of report.levels) {
    if (onlyMismatches && !differs(l)) continue;
    const verdict =
      l.failure !== undefined
        ? `NO RESULT: ${l.failure.replace(/\|/g, '\\|')}`
        : l.stableAgrees
          ? l.movingEqual
            ? 'same'
            : 'same verdict, count differs'
          : 'DIFFERENT';
    lines.push(
      `| ${l.level} | ${l.evaluator.movingObjects}/${l.evaluator.startingObjects} | ${l.engine.movingObjects}/${l.engine.startingObjects} | ${f3(l.evaluator.score)} | ${f3(l.engine.score)} | ${l.engine.trialsRun} | ${verdict} | ${f4(l.iou)} |`,
    );
  }
  return lines.join('\n');
}

if (isMainModule(import.meta.url)) {
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
