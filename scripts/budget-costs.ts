/**
 * Measures the simulation-budget cost (bridge/headless/budget.ts) of levels: per trial the total and
 * the largest step, for the full 20 × 16 SquareTiny grid (the most expensive level the official drop
 * can build, the data the limits are fitted on) and for the reference + hard corpus (data they are
 * checked on). Re-run it after an engine change that could change the cost of a step:
 *
 *   npx tsx scripts/budget-costs.ts [grid|corpus]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SIMULATION_BUDGET } from '../bridge/headless/budget.js';
import { LevelWorld } from '../bridge/headless/world.js';
import { stepsToSimulate } from '../bridge/window.js';
import { programToXml } from '../levels/pipeline.js';
import { parseLevelXml } from '../levels/xml-read.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** A capturing trial (trial 1), the longest. */
const STEPS = stepsToSimulate({ windowSteps: 500, capture: true });

function cost(xml: string, trial: number): { total: number; maxStep: number } {
  const world = new LevelWorld(parseLevelXml(xml), { trial, damage: 'contact-point', seed: 1 });
  let total = 0;
  let maxStep = 0;
  for (let step = 1; step <= STEPS; step += 1) {
    const c = world.workload();
    total += c;
    maxStep = Math.max(maxStep, c);
    world.advance();
  }
  return { total, maxStep };
}

function xmlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return xmlFiles(path);
    return name.endsWith('.xml') ? [path] : [];
  });
}

/** The full grid: 16 layers of SquareTiny in all 20 columns. */
export function fullGridXml(): string {
  const calls: string[] = [];
  for (let layer = 0; layer < 16; layer += 1) for (let column = 0; column < 20; column += 1) calls.push(`drop_block('b11', ${column})`);
  return programToXml(calls.join('\n'));
}

const which = process.argv[2] ?? 'corpus';
console.log(`budget: ${SIMULATION_BUDGET.maxStepCost} per step, ${SIMULATION_BUDGET.maxTrialCost} per trial`);
if (which === 'grid') {
  for (const trial of [1, 2, 3]) console.log(`grid trial ${trial}:`, cost(fullGridXml(), trial));
} else {
  const files = [...xmlFiles(join(ROOT, 'calibration/reference-levels')), ...xmlFiles(join(ROOT, 'test/fixtures/corpus/hard-levels'))];
  let total = 0;
  let maxStep = 0;
  for (const file of files) {
    for (const trial of [1, 2, 3]) {
      const c = cost(readFileSync(file, 'utf8'), trial);
      total = Math.max(total, c.total);
      maxStep = Math.max(maxStep, c.maxStep);
    }
  }
  console.log(`${files.length} corpus levels × 3 trials: largest trial ${total}, largest step ${maxStep}`);
}
