/**
 * `npm run bench -- robustness`: `sbeval simulate --robustness 20` on the 90 reference levels — the
 * official simulate (up to 3 trials + image, not timed here beyond its own row), then 20 perturbed runs
 * of every level on one headless engine per core — with the time per perturbed run and the fragile list.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runRobustnessStage } from '../../orchestrator/stages/robustness.js';
import { runSimulateStage } from '../../orchestrator/stages/simulate.js';
import { formatMovingRange, formatStableShare } from '../../scoring/robustness.js';
import type { BenchSuite } from './suite.js';

const REFERENCE = fileURLToPath(new URL('../../calibration/reference-levels/', import.meta.url));
const RUNS = 20;

export const robustnessSuite: BenchSuite = {
  name: 'robustness',
  description: `sbeval simulate --robustness ${RUNS} on the 90 reference levels (${availableParallelism()} engines): seconds, perturbed runs/s, fragile verdicts`,
  async run() {
    const root = mkdtempSync(join(tmpdir(), 'sbeval-bench-robustness-'));
    const workers = availableParallelism();
    try {
      cpSync(REFERENCE, root, { recursive: true, filter: (src) => !/stability|images|\.txt$/.test(src) });
      let started = performance.now();
      const simulated = await runSimulateStage({ root, workers });
      const simulateSeconds = (performance.now() - started) / 1000;
      started = performance.now();
      const robustness = await runRobustnessStage({ root, runs: RUNS, workers });
      const seconds = (performance.now() - started) / 1000;
      const runs = robustness.computed * RUNS;
      const rows: Array<Record<string, string | number>> = [
        {
          what: 'simulate (official: up to 3 trials + image + PNG)',
          levels: simulated.succeeded,
          runs: '-',
          seconds: Number(simulateSeconds.toFixed(2)),
          'runs/s': '-',
          fragile: '-',
        },
        {
          what: `--robustness ${RUNS} (perturbed trials, no image)`,
          levels: robustness.levels.length,
          runs,
          seconds: Number(seconds.toFixed(2)),
          'runs/s': Number((runs / seconds).toFixed(1)),
          fragile: robustness.fragile.length,
        },
        {
          what: 'simulate + robustness (the whole command)',
          levels: robustness.levels.length,
          runs: '-',
          seconds: Number((simulateSeconds + seconds).toFixed(2)),
          'runs/s': '-',
          fragile: robustness.fragile.length,
        },
      ];
      for (const f of robustness.fragile) {
        rows.push({
          what: `fragile: ${f.team}/${f.character}/${f.base} (official ${f.robustness.officialStable ? 'stable' : 'moving'})`,
          levels: 1,
          runs: RUNS,
          seconds: '-',
          'runs/s': '-',
          fragile: `stable ${formatStableShare(f.robustness)}, moving ${formatMovingRange(f.robustness)}`,
        });
      }
      return rows;
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
};
