import type { LevelRobustness } from '../../scoring/robustness.js';
import { type CompetitionFolder, stageFilter } from '../config/index.js';
import { type LevelRobustnessResult, robustnessOptions, runRobustnessStage } from '../stages/robustness.js';
import type { RunContext } from './context.js';

/**
 * `sbeval run --robustness N` (or `robustness: N` in the config) on one competition folder, after its
 * levels and stability files: the stage `sbeval simulate --robustness N` runs
 * (orchestrator/stages/robustness.ts), with the run's simulation settings (so it finds the verdicts the
 * level machines committed) on the run's engine pool when there is one, else on headless engines of its
 * own. The results go to `result/trials.csv`, `result/robustness.csv` (written by the result step with the
 * other result files) and the report's "Knife-edge verdicts" section.
 */
export async function robustnessStage(ctx: RunContext, competition: CompetitionFolder): Promise<void> {
  const { settings } = ctx;
  if (settings.robustness === undefined) return;
  ctx.log.write({ type: 'stage-start', stage: 'robustness', model: competition.model });
  const summary = await runRobustnessStage(
    {
      ...robustnessOptions(settings, competition, settings.robustness),
      filter: stageFilter(settings),
      workers: settings.workers,
      ...(ctx.pool ? { pool: ctx.pool } : {}),
    },
    ctx.progress,
  );
  ctx.robustness.push(...summary.levels);
  for (const failure of summary.failed)
    ctx.warn('robustness', `${competition.model ? `${competition.model}/` : ''}${failure}: no perturbed runs (run again to retry)`);
  ctx.record({
    stage: 'robustness',
    model: competition.model,
    // A level without its runs is unfinished work: the run exits 1 and the next run retries it.
    status: summary.failed.length > 0 ? 'failed' : 'done',
    detail: `${summary.levels.length} level(s) × ${summary.runs} perturbed runs (${summary.computed} now, the others cached); ${summary.fragile.length} fragile verdict(s); ${summary.failed.length} failed; result/robustness.csv`,
  });
}

/** A level's robustness by model folder, team, letter and trial base name (for `result/trials.csv`). */
export function robustnessLookup(
  results: readonly LevelRobustnessResult[],
): (level: { model?: string | undefined; team: string; character: string; base: string }) => LevelRobustness | undefined {
  const key = (model: string | undefined, team: string, character: string, base: string) => JSON.stringify([model ?? '', team, character, base]);
  const byLevel = new Map(results.map((r) => [key(r.model, r.team, r.character, r.base), r.robustness]));
  return (level) => byLevel.get(key(level.model, level.team, level.character, level.base));
}
