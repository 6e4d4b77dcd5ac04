import { extname } from 'node:path';
import { DEFAULT_POOL_SETTINGS, withModelCalls } from '../generate/host-pool.js';
import { OFFICIAL_TEMPERATURE, OFFICIAL_TOP_P } from '../generate/limits.js';
import { runGenerate } from '../generate/stage.js';
import { loadSubmission, type SubmissionOverrides } from '../generate/submission.js';
import type { ConfiguredSubmission } from '../generate/consent.js';
import type { ResolvedSubmission } from '../config/index.js';
import type { RunContext } from './context.js';

/** Stage 1 (when submissions are configured): raw responses through the configured model API; a trial whose file exists is done. */
export async function generateStage(ctx: RunContext): Promise<void> {
  for (const submission of ctx.settings.submissions) {
    ctx.checkCancelled();
    await generateSubmission(ctx, submission);
  }
}

/** The config's submissions, loaded as `run` and `generate` ask them. */
export function configuredSubmissions(submissions: readonly ResolvedSubmission[], overrides: SubmissionOverrides = {}): ConfiguredSubmission[] {
  return submissions.map((s) => ({ team: s.team, submission: loadSubmission(submissionSpec(s), overrides) }));
}

/** A configured submission as `loadSubmission`'s spec (`sbeval generate` without --submission reads the same). */
function submissionSpec(submission: ResolvedSubmission): string {
  const program = submission.kind === 'program' && !['.json', '.yaml', '.yml'].includes(extname(submission.file).toLowerCase());
  return program ? `exec:${submission.file}` : submission.file;
}

async function generateSubmission(ctx: RunContext, submission: ResolvedSubmission): Promise<void> {
  const { settings, progress } = ctx;
  ctx.log.write({ type: 'stage-start', stage: 'generate', team: submission.team });
  const summary = await runGenerate(
    {
      root: settings.root,
      submission: loadSubmission(submissionSpec(submission)),
      team: submission.team,
      models: settings.models.map((m) => m.name),
      hosts: settings.hosts,
      trials: settings.trials,
      characters: settings.characters,
      masterSeed: settings.seed,
      limits: { timeLimitS: settings.limits.timeSeconds, tokenLimit: settings.limits.tokens },
      sampling: { temperature: OFFICIAL_TEMPERATURE, topP: OFFICIAL_TOP_P },
      concurrency: settings.hosts.length,
      layout: 'auto',
      retryFailed: false,
      pool: withModelCalls(DEFAULT_POOL_SETTINGS, settings.modelCalls),
    },
    progress,
    { note: (message) => progress.note('generate', message) },
    ctx.options.signal,
  );
  const done = summary.models.reduce((n, m) => n + m.succeeded + m.alreadyDone, 0);
  const failed = summary.models.reduce((n, m) => n + m.failed + m.previouslyFailed, 0);
  ctx.record({
    stage: 'generate',
    status: summary.stopped ? 'failed' : 'done',
    detail: `${submission.team}: ${done} responses, ${failed} failed${summary.stopped ? `; stopped: ${summary.stopped}` : ''}`,
  });
}
