import { existsSync } from 'node:fs';
import { describeError, SbevalError } from '../../core/errors.js';
import { listFiles, listTeams, stageDir } from '../layout/competition.js';
import { createRunContext, MODEL_HINT, type RunContext, type RunOptions, type RunReport } from './context.js';
import { convertStage, diversityStage, extractStage, similarityStage, stabilityStage } from './folder-stages.js';
import { levelStage } from './level-stage.js';
import { resultsStage } from './result-stages.js';
import { robustnessStage } from './robustness-stage.js';
import { unfinishedWork } from './unfinished.js';

export { type GenerateStage, MODEL_HINT, type RunOptions, type RunReport, type RunStageReport } from './context.js';

/**
 * `sbeval run`: a whole competition from raw responses (or submissions) to `result/`, headless,
 * resumable. One function per stage, over the settings every command resolves the same way
 * (orchestrator/config/settings.ts), each skipping work already done; per competition folder (the
 * root, or one per model in the 2025 layout):
 *
 * 1. generate         — configured submissions through Ollama (the caller's `generate` stage:
 *    llm/generate/run-stage.ts)
 * 2. extract, convert — the folder stages `sbeval extract` / `convert` run (folder-stages.ts)
 * 3. levels           — one XState machine per trial on the engine pool (level-stage.ts)
 * 4. stability        — the per-character files, from the levels' caches (folder-stages.ts);
 *    with `--robustness N`, the knife-edge verdicts of its levels (robustness-stage.ts)
 * 5. similarity, diversity — with a similarity model (folder-stages.ts); with engines off this machine's
 *    cores the similarity of each image starts as soon as the levels write it (the run's classifier,
 *    context.ts `overlapByDefault`), the files after the levels
 * 6. accounting       — every trial of the competition, whatever --team/--chars limited the work to:
 *    result/trials.csv, result/failures.md (result-stages.ts)
 * 7. score            — the official result files, when the folder as it is supports them
 *    (orchestrator/result/readiness.ts; otherwise earlier ones are removed)
 * 8. report           — built last from what the stages returned, with every warning of the run;
 *    then result/manifest.json (orchestrator/result/manifest.ts). When nothing the results were computed
 *    from has changed since the last run, 6–8 write nothing.
 *
 * A folder that starts at `intermediate` or `levels` runs from there. State lives in `<root>/.sbeval/`
 * (hidden from the official scripts), logs in `<root>/logs/`.
 */
export async function runCompetition(options: RunOptions): Promise<RunReport> {
  const { generate } = options;
  if (options.config.submissions.length > 0 && !generate) {
    throw new SbevalError(
      'config',
      'the config lists submissions, but this caller gave runCompetition no generate stage',
      'pass `generate: GENERATE_STAGE` (exported by the package), or generate the responses first',
    );
  }
  // Before anything is written: the config's programs run only with the caller's consent.
  generate?.check(options.config, options.allowPrograms === true);
  const ctx = createRunContext(options);
  try {
    await generate?.run(ctx);
    await levelStages(ctx);
    await vitStages(ctx);
    ctx.checkCancelled();
    await resultsStage(ctx);
  } catch (error) {
    // A storage fault stops the run (exit 2, one line); the caller's cancellation ends it quietly.
    const fault = ctx.latch.fault;
    if (fault || !options.signal?.aborted) {
      ctx.log.write({ type: 'run-error', error: describeError(fault ?? error) });
      throw fault ?? error;
    }
    ctx.report.cancelled = true;
    ctx.log.write({ type: 'run-cancelled', reason: describeError(options.signal.reason ?? error) });
  } finally {
    await ctx.similarityPrefetch?.close();
    await ctx.closePool();
    ctx.report.unfinished = unfinishedWork(ctx.outcomes, ctx.report.stages);
    ctx.log.write({
      type: 'run-end',
      levels: ctx.report.levels,
      cancelled: ctx.report.cancelled,
      unfinished: ctx.report.unfinished,
      engines: ctx.report.engines,
    });
    ctx.log.close();
  }
  return ctx.report;
}

/** Stages 2–4 on every competition folder; the engines are closed afterwards. */
async function levelStages(ctx: RunContext): Promise<void> {
  for (const competition of ctx.settings.competitions) {
    ctx.checkCancelled();
    if (!existsSync(competition.root)) {
      ctx.record({ stage: 'levels', model: competition.model, status: 'skipped', detail: `${competition.root} does not exist` });
      continue;
    }
    await extractStage(ctx, competition);
    ctx.checkCancelled();
    await convertStage(ctx, competition);
    ctx.checkCancelled();
    const planned = await levelStage(ctx, competition);
    ctx.checkCancelled();
    await stabilityStage(ctx, competition, planned);
    ctx.checkCancelled();
    await robustnessStage(ctx, competition);
  }
  await ctx.closePool();
  // What is still queued for the classifier is the similarity stage's now (it runs them in its order).
  const prefetch = ctx.similarityPrefetch;
  if (prefetch) {
    await prefetch.stop();
    ctx.log.write({ type: 'similarity-prefetch', started: prefetch.started, classified: prefetch.classified });
  }
}

/** Stage 5 on every competition folder. */
async function vitStages(ctx: RunContext): Promise<void> {
  for (const competition of ctx.settings.competitions) {
    if (!existsSync(competition.root)) continue;
    ctx.checkCancelled();
    await similarityStage(ctx, competition);
    ctx.checkCancelled();
    // Diversity needs only the similarity files: without a model, those of an earlier run still count.
    if (ctx.settings.model !== undefined || hasSimilarityFiles(competition.root)) await diversityStage(ctx, competition);
  }
  if (ctx.settings.model === undefined)
    ctx.progress.note(
      'similarity',
      `no similarity model: similarity is not computed, and the score needs similarity files that match the images. Get the model with \`${MODEL_HINT}\``,
    );
}

function hasSimilarityFiles(root: string): boolean {
  return listTeams(root).some((team) => listFiles(stageDir(root, team, 'similarity'), '.json').length > 0);
}
