import { existsSync } from 'node:fs';
import { RULE_SETS } from '../../scoring/score/rules.js';
import { type CompetitionFolder, stageFilter } from '../config/index.js';
import { ignoredLine, type StageSummary } from '../layout/stage-log.js';
import { SILENT_PROGRESS } from '../progress/types.js';
import { runConvertStage } from '../stages/convert.js';
import { NOT_JSON, runDiversityStage } from '../stages/diversity.js';
import { runExtractStage } from '../stages/extract.js';
import { NOT_PNG, runSimilarityStage } from '../stages/similarity.js';
import { runSimulateStage } from '../stages/simulate.js';
import { MODEL_HINT, type RunContext } from './context.js';
import type { PlannedLevel } from './levels.js';

/**
 * The folder stages of `sbeval run`, each the same function the stage command calls, with the same
 * settings (so the files are the ones `sbeval extract`, `convert`, `simulate`, `similarity` and
 * `diversity` write). Each one is a short function over the run context and one competition folder.
 */
function counts(summary: StageSummary): string {
  return `${summary.succeeded} ok, ${summary.failed} failed, ${summary.skipped} already done`;
}

function recordStage(ctx: RunContext, stage: string, competition: CompetitionFolder, summary: StageSummary): void {
  ctx.record({ stage, model: competition.model, status: 'done', detail: counts(summary) }, { reasons: Object.fromEntries(summary.reasons) });
}

/** raw → intermediate (official code extraction). */
export async function extractStage(ctx: RunContext, competition: CompetitionFolder): Promise<void> {
  ctx.log.write({ type: 'stage-start', stage: 'extract', model: competition.model });
  const summary = await runExtractStage({ root: competition.root, filter: stageFilter(ctx.settings), prefix: ctx.settings.prefix, now: ctx.now }, ctx.progress);
  recordStage(ctx, 'extract', competition, summary);
}

/** intermediate → levels (official drop + XML). */
export async function convertStage(ctx: RunContext, competition: CompetitionFolder): Promise<void> {
  ctx.log.write({ type: 'stage-start', stage: 'convert', model: competition.model });
  const summary = await runConvertStage({ root: competition.root, filter: stageFilter(ctx.settings), prefix: ctx.settings.prefix, now: ctx.now }, ctx.progress);
  recordStage(ctx, 'convert', competition, summary);
}

/**
 * The evaluator's per-character stability files, from the caches the level machines committed (no
 * engines: a level that is not done is left for the next run). A character with a level that is not
 * done gets no file yet, and the run says so.
 */
export async function stabilityStage(ctx: RunContext, competition: CompetitionFolder, planned: readonly PlannedLevel[]): Promise<void> {
  const { settings } = ctx;
  const summary = await runSimulateStage(
    { root: competition.root, filter: stageFilter(settings), engines: [], trials: settings.simulationTrials, damage: settings.damage, engine: settings.engine },
    SILENT_PROGRESS,
  );
  const written = new Set(summary.characters);
  const withLevel = planned.filter((l) => existsSync(l.paths.level));
  const held = [...new Set(withLevel.map((l) => `${l.ref.team}/${l.ref.character}`))].filter((key) => !written.has(key));
  for (const key of held)
    ctx.warn(
      'stability',
      `${competition.model ? `${competition.model}/` : ''}${key}: not every level is done, so its stability file is not written; run again to retry them`,
    );
  ctx.record(
    {
      stage: 'stability',
      model: competition.model,
      status: held.length > 0 ? 'failed' : 'done',
      detail: `${summary.characters.length} character file(s)${held.length > 0 ? `; ${held.length} held back until their levels are done (run again)` : ''}`,
    },
    { held },
  );
}

/** images → similarity JSON (the ViT); unavailable without a model. */
export async function similarityStage(ctx: RunContext, competition: CompetitionFolder): Promise<boolean> {
  const { settings } = ctx;
  if (settings.model === undefined) {
    ctx.record({
      stage: 'similarity',
      model: competition.model,
      status: 'unavailable',
      detail: `no similarity model; get one with \`${MODEL_HINT}\`, then run again`,
    });
    return false;
  }
  ctx.log.write({ type: 'stage-start', stage: 'similarity', model: competition.model });
  const summary = await runSimilarityStage(
    {
      root: competition.root,
      model: settings.model,
      rules: RULE_SETS[settings.rules].similarityFormat,
      filter: stageFilter(settings),
      now: ctx.now,
      classifier: ctx.similarityPrefetch ? () => ctx.similarityPrefetch!.classifier() : undefined,
    },
    ctx.progress,
  );
  recordStage(ctx, 'similarity', competition, summary);
  warnIgnored(ctx, 'similarity', competition, ignoredLine(summary.ignored, NOT_PNG, summary.logFile));
  return true;
}

/** Files a stage ignored: one warning, so the run's final summary counts them (the notes per file scroll by). */
function warnIgnored(ctx: RunContext, stage: string, competition: CompetitionFolder, line: string | undefined): void {
  if (line !== undefined) ctx.warn(stage, `${competition.model ? `${competition.model}: ` : ''}${line}`);
}

/** similarity → diversity JSON (none under rules without diversity). */
export async function diversityStage(ctx: RunContext, competition: CompetitionFolder): Promise<void> {
  const { settings } = ctx;
  if (!RULE_SETS[settings.rules].diversity) return;
  ctx.log.write({ type: 'stage-start', stage: 'diversity', model: competition.model });
  const summary = await runDiversityStage(
    { root: competition.root, rules: RULE_SETS[settings.rules].similarityFormat, trials: settings.trials, filter: stageFilter(settings), now: ctx.now },
    ctx.progress,
  );
  recordStage(ctx, 'diversity', competition, summary);
  warnIgnored(ctx, 'diversity', competition, ignoredLine(summary.ignored, NOT_JSON, summary.logFile));
}
