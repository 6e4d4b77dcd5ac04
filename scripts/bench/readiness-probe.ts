/**
 * One measurement of `npm run bench -- readiness` in a process of its own: the readiness check
 * (orchestrator/result/readiness.ts) on a competition folder, as `sbeval score` meets it (`score`: a
 * fresh process) or as `sbeval run` does (`run`: after the extract and convert stages ran in the same
 * process). Prints the milliseconds of the check alone.
 *
 * Usage: node --import tsx scripts/bench/readiness-probe.ts <root> score|run
 */
import { scoreBlockers } from '../../orchestrator/result/readiness.js';
import { runConvertStage } from '../../orchestrator/stages/convert.js';
import { runExtractStage } from '../../orchestrator/stages/extract.js';
import { simulationIdentity } from '../../orchestrator/stages/level-cache.js';

const [root, mode] = process.argv.slice(2) as [string, string];
if (mode === 'run') {
  await runExtractStage({ root });
  await runConvertStage({ root });
}
const started = performance.now();
const blockers = scoreBlockers({
  root,
  competitions: [{ root }],
  prefix: 'drop_block',
  rules: '2024',
  trials: 10,
  simulation: simulationIdentity({ engine: 'headless', simulationTrials: 3, damage: 'contact-point' }),
});
process.stdout.write(`${JSON.stringify({ ms: performance.now() - started, blockers: blockers.length })}\n`);
