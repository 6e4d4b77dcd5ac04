import { extname } from 'node:path';
import type { ResolvedSubmission, Settings } from '../../orchestrator/config/index.js';
import type { GenerateStage, RunContext } from '../../orchestrator/run/context.js';
import { modelCallSettings } from '../model-calls/settings.js';
import { type ConfiguredSubmission, requireProgramConsent } from './consent.js';
import { DEFAULT_POOL_SETTINGS, type HostPoolSettings, withModelCalls } from './host-pool.js';
import { OFFICIAL_TEMPERATURE, OFFICIAL_TOP_P } from './limits.js';
import { type GenerateOptions, runGenerate } from './stage.js';
import { loadSubmission, type SubmissionOverrides } from './submission.js';

/** Stage 1 (when submissions are configured): raw responses through the configured model API; a trial whose file exists is done. */
async function generateStage(ctx: RunContext): Promise<void> {
  for (const submission of ctx.settings.submissions) {
    ctx.checkCancelled();
    await generateSubmission(ctx, submission);
  }
}

/**
 * What a submission's generation asks, from the one settings resolution (T, letters, models, hosts,
 * seed, limits, model-call bounds): `run` takes the official sampling, a trial per host, the automatic
 * layout and the default host pool; `sbeval generate` passes its flags for those.
 */
export function generateOptions(
  settings: Settings,
  job: ConfiguredSubmission,
  choices: Partial<Pick<GenerateOptions, 'sampling' | 'concurrency' | 'layout' | 'retryFailed'>> & { pool?: HostPoolSettings } = {},
): GenerateOptions {
  return {
    root: settings.root,
    submission: job.submission,
    team: job.team,
    models: settings.models.map((m) => m.name),
    hosts: settings.hosts,
    trials: settings.trials,
    characters: settings.characters,
    masterSeed: settings.seed,
    limits: { timeLimitS: settings.limits.timeSeconds, tokenLimit: settings.limits.tokens },
    sampling: choices.sampling ?? { temperature: OFFICIAL_TEMPERATURE, topP: OFFICIAL_TOP_P },
    concurrency: choices.concurrency ?? settings.hosts.length,
    layout: choices.layout ?? 'auto',
    retryFailed: choices.retryFailed ?? false,
    pool: withModelCalls(choices.pool ?? DEFAULT_POOL_SETTINGS, modelCallSettings(settings.modelCalls)),
  };
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
    generateOptions(settings, { team: submission.team, submission: loadSubmission(submissionSpec(submission)) }),
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

/** The generate stage `sbeval run` hands the evaluator (orchestrator/run/run.ts). */
export const GENERATE_STAGE: GenerateStage = {
  check: (settings, allowPrograms) => requireProgramConsent(configuredSubmissions(settings.submissions), allowPrograms),
  run: generateStage,
};
