/**
 * `npm run bench -- readiness`: how long the readiness check of `result/` (orchestrator/result/readiness.ts,
 * what `sbeval score` and the end of `sbeval run` ask before they write a ranking) takes on 780 trials (3
 * teams × 26 letters × 10 seeded responses, scripts/bench/pipeline.ts), extracted, converted and simulated
 * on the headless engine. Each measurement is a process of its own (readiness-probe.ts): `score` in a fresh
 * process; `run` after the extract and convert stages ran in that process (their results are remembered by
 * content: stages/transform-memo.ts). `SBEVAL_BENCH_ROUNDS` rounds (default 5), the two cases alternating.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runConvertStage } from '../../orchestrator/stages/convert.js';
import { runExtractStage } from '../../orchestrator/stages/extract.js';
import { runSimulateStage } from '../../orchestrator/stages/simulate.js';
import { envInteger } from './env.js';
import { writeCompetition } from './pipeline.js';
import type { BenchSuite } from './suite.js';

const PROBE = fileURLToPath(new URL('./readiness-probe.ts', import.meta.url));
const ROUNDS = envInteger('SBEVAL_BENCH_ROUNDS', 5, 1, 100);

function probe(root: string, mode: 'score' | 'run'): number {
  const out = execFileSync(process.execPath, ['--import', 'tsx', PROBE, root, mode], { encoding: 'utf8' });
  return (JSON.parse(out.trim().split('\n').at(-1)!) as { ms: number }).ms;
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export const readinessSuite: BenchSuite = {
  name: 'readiness',
  description: 'the readiness check of result/ on 780 trials: in a fresh process (score) and after the transforms (run)',
  onlyWhenNamed: true,
  async run() {
    const root = mkdtempSync(join(tmpdir(), 'sbeval-bench-readiness-'));
    try {
      const trials = writeCompetition(root, 2024, 3);
      await runExtractStage({ root });
      await runConvertStage({ root });
      await runSimulateStage({ root, workers: availableParallelism() });
      const times: Record<'score' | 'run', number[]> = { score: [], run: [] };
      for (let round = 0; round < ROUNDS; round += 1) for (const mode of ['score', 'run'] as const) times[mode].push(probe(root, mode));
      return (['score', 'run'] as const).map((mode) => ({
        case: mode === 'score' ? 'score: a fresh process' : 'run: after extract and convert',
        trials,
        rounds: ROUNDS,
        'median ms': Math.round(median(times[mode])),
        'min ms': Math.round(Math.min(...times[mode])),
        'max ms': Math.round(Math.max(...times[mode])),
      }));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
};
