import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { NON_TEAM_DIRS, stageDir, trialFileBase } from '../layout/competition.js';
import { assertSafeName, modelFolderName } from '../layout/names.js';
import { StageLog, type StageSummary } from '../layout/stage-log.js';
import type { ProgressSink } from '../progress/types.js';
import { ChatProxy } from './chat-proxy.js';
import { runConversation } from './conversation.js';
import { hostProblems, HostPool, HostsUnavailable, type HostEvent, type HostPoolSettings, type PreflightReport } from './host-pool.js';
import { LimitExceeded, type TrialLimits } from './limits.js';
import { apiName, CallError, type ModelApi } from '../model-calls/index.js';
import { ProgramFailed, runProgram } from './program.js';
import { readFinalFailures, RunLog, type CallLine, type FailureKind, type TrialLine } from './run-log.js';
import { trialSeed } from './seeds.js';
import { TrialSession, type Sampling } from './session.js';
import { describeSubmission, lacksObjectToken, type Submission } from './submission.js';
import { removeStaleTemps, writeFileOnce } from './write.js';

/**
 * The generate stage: submissions × models × letters × trials → `raw` response files.
 *
 * Layout: with one model (`--layout auto`, or `flat`) the official one,
 * `<root>/<team>/raw/<C>/<team>_<C>_<n>.txt` (llms4pcg `TrialContext.get_output_file_path`). With
 * several models (or `per-model`) each model gets its own competition folder,
 * `<root>/<model-folder>/<team>/raw/<C>/<team>_<C>_<n>.txt`, `model-folder` = `modelFolderName(model)`
 * (`qwen2.5:32b-instruct-fp16` → `qwen2.5_32b-instruct-fp16`): 2025 scored each model separately, so
 * every later stage runs on `<root>/<model-folder>` exactly as on a single-model root.
 *
 * Work order: model by model (in `--models` order), then A…Z, then trial 1…N — one model at a time
 * keeps a real Ollama host from swapping 30-GB models in and out. A trial whose file exists is done
 * and skipped; a trial that failed a limit in an earlier run with the same submission, model, seed,
 * limits and sampling is skipped too (`--retry-failed` runs it again); other failures (hosts down,
 * a crashing program) leave no trace and are simply run again next time.
 */
export type LayoutChoice = 'auto' | 'flat' | 'per-model';

export interface GenerateOptions {
  root: string;
  submission: Submission;
  team: string;
  models: string[];
  hosts: string[];
  trials: number;
  characters: string[];
  masterSeed: number;
  limits: TrialLimits;
  sampling: Sampling;
  concurrency: number;
  layout: LayoutChoice;
  retryFailed: boolean;
  pool: HostPoolSettings;
  /** Grace after the time limit before a silent program is stopped (s); see program.ts. */
  programGraceS?: number;
  startedAt?: Date;
}

export interface GenerateEvents {
  call?(line: CallLine): void;
  trial?(line: TrialLine): void;
  host?(event: HostEvent): void;
  note?(message: string): void;
}

export interface ModelSummary {
  model: string;
  /** Competition root of this model (the run root in the flat layout). */
  root: string;
  total: number;
  succeeded: number;
  failed: number;
  /** Files that already existed. */
  alreadyDone: number;
  /** Final failures of earlier runs, not retried. */
  previouslyFailed: number;
  /** Trials that ended without a file for a reason that is not final (hosts, program errors, cancel). */
  unfinished: number;
  promptTokens: number;
  completionTokens: number;
  stage: StageSummary;
}

export interface GenerateSummary {
  logFile: string;
  models: ModelSummary[];
  preflight: PreflightReport;
  /** Why the run stopped before the end, if it did. */
  stopped: string | undefined;
}

export interface PlannedTrial {
  model: string;
  /** The competition root the trial's file belongs to. */
  competitionRoot: string;
  team: string;
  character: string;
  trial: number;
  seed: number;
  file: string;
  /** `file` relative to the run root, with `/`. */
  relFile: string;
}

export function stageName(model: string): string {
  return `generate ${model}`;
}

/** Where each model's files go (throws on names that collide or are reserved). */
export function competitionRoots(root: string, models: readonly string[], layout: LayoutChoice): Map<string, string> {
  if (models.length === 0) throw new SbevalError('config', 'no models given', 'pass --models, e.g. --models qwen2.5:32b-instruct-fp16');
  if (new Set(models).size !== models.length) throw new SbevalError('config', 'a model is listed twice in --models');
  const perModel = layout === 'per-model' || (layout === 'auto' && models.length > 1);
  if (!perModel && models.length > 1) throw new SbevalError('config', '--layout flat takes one model', 'several models need the per-model layout (--layout auto or per-model)');
  const roots = new Map<string, string>();
  const seen = new Map<string, string>();
  for (const model of models) {
    if (!perModel) {
      roots.set(model, root);
      continue;
    }
    const folder = modelFolderName(model);
    if (NON_TEAM_DIRS.has(folder)) throw new SbevalError('config', `model folder "${folder}" is reserved`, 'logs and result are not model names');
    const other = seen.get(folder);
    if (other) throw new SbevalError('config', `models ${other} and ${model} map to the same folder ${folder}`);
    seen.set(folder, model);
    roots.set(model, join(root, folder));
  }
  return roots;
}

export function planTrials(options: Pick<GenerateOptions, 'root' | 'team' | 'models' | 'trials' | 'characters' | 'masterSeed' | 'layout'>): PlannedTrial[] {
  const { root, team, trials } = options;
  assertSafeName('team', team);
  // llms4pcg: `prohibited_team_name = ["logs"]`; `result` is the scoring script's output folder.
  if (NON_TEAM_DIRS.has(team)) throw new SbevalError('config', `Team name ${team} is prohibited.`, 'logs and result are reserved folder names');
  if (!Number.isInteger(trials) || trials < 1) throw new SbevalError('config', `--trials must be a positive integer (got ${trials})`);
  const roots = competitionRoots(root, options.models, options.layout);
  const plan: PlannedTrial[] = [];
  for (const model of options.models) {
    const competitionRoot = roots.get(model)!;
    for (const character of options.characters) {
      const dir = stageDir(competitionRoot, team, 'raw', character);
      for (let trial = 1; trial <= trials; trial += 1) {
        const file = join(dir, `${trialFileBase(team, character, trial)}.txt`);
        plan.push({ model, competitionRoot, team, character, trial, seed: trialSeed(options.masterSeed, character, trial), file, relFile: relative(root, file).split(sep).join('/') });
      }
    }
  }
  return plan;
}

/** What a final failure is tied to: the same inputs would fail the same way. */
export function trialFingerprint(submission: Submission, trial: PlannedTrial, limits: TrialLimits, sampling: Sampling): string {
  const text = JSON.stringify([submission.sha256, trial.model, trial.seed, limits.timeLimitS, limits.tokenLimit, sampling.temperature, sampling.topP]);
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

interface Outcome {
  ok: boolean;
  reason?: string;
  kind?: FailureKind;
  final?: boolean;
  interrupted?: boolean;
}

function outcomeOf(error: unknown, api: ModelApi): Outcome {
  if (error instanceof LimitExceeded) return { ok: false, reason: error.message, kind: error.kind, final: true };
  if (error instanceof HostsUnavailable) {
    if (error.message === 'cancelled') return { ok: false, interrupted: true };
    return { ok: false, reason: `${apiName(api)} unavailable: ${error.message}`, kind: 'unavailable', final: false };
  }
  if (error instanceof CallError) {
    if (error.message === 'cancelled') return { ok: false, interrupted: true };
    return { ok: false, reason: `${apiName(api)} error: ${error.message}`, kind: 'error', final: false };
  }
  if (error instanceof ProgramFailed) {
    if (error.message === 'cancelled') return { ok: false, interrupted: true };
    return { ok: false, reason: error.message, kind: 'program', final: false };
  }
  throw error;
}

export async function runGenerate(options: GenerateOptions, progress: ProgressSink, events: GenerateEvents = {}, cancel?: AbortSignal): Promise<GenerateSummary> {
  const { root, submission, limits, sampling } = options;
  const startedAt = options.startedAt ?? new Date();
  const plan = planTrials(options);
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1) throw new SbevalError('config', `--concurrency must be a positive integer (got ${options.concurrency})`);
  if (submission.kind !== 'program' && lacksObjectToken(submission)) {
    events.note?.(`the submission never mentions <OBJECT>, so the letter is not sent to the model (${submission.source})`);
  }

  const runLog = new RunLog(root, startedAt);
  const pool = new HostPool(options.hosts, options.pool, (event) => {
    runLog.write({ ...event, type: 'host', state: event.type, time: new Date().toISOString() });
    events.host?.(event);
  });
  runLog.write({
    type: 'start',
    time: startedAt.toISOString(),
    submission: { kind: submission.kind, source: submission.source, sha256: submission.sha256, description: describeSubmission(submission) },
    team: options.team,
    models: options.models,
    api: options.pool.api,
    hosts: pool.labels,
    characters: options.characters.join(''),
    trials: options.trials,
    masterSeed: options.masterSeed,
    seedRule: 'seed = master + 26 * (trial - 1) + letterIndex (A = 0)',
    limits,
    sampling,
    concurrency: options.concurrency,
    layout: options.layout,
    stream: options.pool.call.stream,
    callDeadlineMs: options.pool.call.deadlineMs,
    maxAnswerBytes: options.pool.call.maxAnswerBytes,
  });
  const problems = hostProblems(options.pool.api);

  const preflight = await pool.preflight(options.models);
  if (preflight.reachable.length === 0) {
    const reasons = preflight.unreachable.map((u) => `${u.host}: ${u.reason}`).join('; ');
    runLog.write({ type: 'end', time: new Date().toISOString(), error: `no host reachable: ${reasons}` });
    throw new SbevalError('generate', `${problems.unreachable} (${reasons})`, problems.unreachableHint);
  }
  if (preflight.missing.length > 0 && preflight.unreachable.length === 0) {
    const missing = preflight.missing.join(', ');
    runLog.write({ type: 'end', time: new Date().toISOString(), error: `models not on any host: ${missing}` });
    throw new SbevalError('generate', `no host has ${missing}`, problems.missingHint(preflight.missing[0]!));
  }
  for (const u of preflight.unreachable) events.note?.(`host ${u.host} is not reachable (${u.reason}); set aside, will be tried again`);

  const finalFailures = options.retryFailed ? new Map<string, Set<string>>() : readFinalFailures(root);
  const stageLogs = new Map<string, StageLog>();
  const summaries = new Map<string, ModelSummary>();
  for (const model of options.models) {
    const competitionRoot = plan.find((t) => t.model === model)!.competitionRoot;
    const log = new StageLog(competitionRoot, 'raw', startedAt);
    stageLogs.set(model, log);
    summaries.set(model, { model, root: competitionRoot, total: 0, succeeded: 0, failed: 0, alreadyDone: 0, previouslyFailed: 0, unfinished: 0, promptTokens: 0, completionTokens: 0, stage: log.result() });
  }

  // Sort out what is already done before any call, so progress starts from the truth.
  const pending: PlannedTrial[] = [];
  const dirs = new Set<string>();
  for (const model of options.models) {
    const trials = plan.filter((t) => t.model === model);
    const summary = summaries.get(model)!;
    summary.total = trials.length;
    progress.start(stageName(model), trials.length);
    for (const trial of trials) {
      dirs.add(join(trial.file, '..'));
      if (existsSync(trial.file)) {
        summary.alreadyDone += 1;
        stageLogs.get(model)!.skipped();
        progress.tick(stageName(model), 'skipped', trial.relFile);
      } else if (finalFailures.get(trial.relFile)?.has(trialFingerprint(submission, trial, limits, sampling))) {
        summary.previouslyFailed += 1;
        stageLogs.get(model)!.skipped();
        progress.tick(stageName(model), 'skipped', trial.relFile, 'failed in an earlier run');
      } else {
        pending.push(trial);
      }
    }
  }
  for (const dir of dirs) await removeStaleTemps(dir);

  const proxy = submission.kind === 'program' ? new ChatProxy() : undefined;
  await proxy?.start();
  const runCancel = new AbortController();
  const onCancel = () => runCancel.abort();
  cancel?.addEventListener('abort', onCancel, { once: true });
  let stopped: string | undefined;

  const runTrial = async (trial: PlannedTrial): Promise<void> => {
    const identity = { model: trial.model, team: trial.team, character: trial.character, trial: trial.trial, seed: trial.seed };
    const session = new TrialSession(identity, limits, sampling, pool, (line) => {
      runLog.write({ ...line });
      events.call?.(line);
    }, runCancel.signal);
    let outcome: Outcome;
    let response: string | undefined;
    try {
      response =
        submission.kind === 'program'
          ? await runProgram(submission, session, proxy!, runCancel.signal, options.programGraceS)
          : await runConversation(submission, trial.character, session);
      outcome = { ok: true };
    } catch (error) {
      outcome = outcomeOf(error, options.pool.api);
    }
    if (runCancel.signal.aborted && !outcome.ok && outcome.kind !== 'time' && outcome.kind !== 'tokens') outcome = { ok: false, interrupted: true };
    const summary = summaries.get(trial.model)!;
    const stageLog = stageLogs.get(trial.model)!;
    const name = stageName(trial.model);
    const tokens = session.budget.tokens;
    summary.promptTokens += tokens.prompt;
    summary.completionTokens += tokens.completion;
    if (outcome.interrupted) {
      summary.unfinished += 1;
      return;
    }
    if (outcome.ok && response !== undefined) {
      const written = await writeFileOnce(trial.file, response);
      if (!written) {
        // Another process finished this trial meanwhile; its file stands.
        summary.alreadyDone += 1;
        stageLog.skipped();
        progress.tick(name, 'skipped', trial.relFile, 'written by another run');
        return;
      }
    }
    const line: TrialLine = {
      type: 'trial',
      time: new Date().toISOString(),
      ...identity,
      outcome: outcome.ok ? 'ok' : 'failed',
      file: trial.relFile,
      ...(outcome.ok ? {} : { reason: outcome.reason!, kind: outcome.kind!, final: outcome.final! }),
      fingerprint: trialFingerprint(submission, trial, limits, sampling),
      elapsedS: Math.round(session.budget.elapsedS() * 1000) / 1000,
      promptTokens: tokens.prompt,
      completionTokens: tokens.completion,
      calls: session.calls,
    };
    runLog.write({ ...line });
    events.trial?.(line);
    const fileName = `${trialFileBase(trial.team, trial.character, trial.trial)}.txt`;
    if (outcome.ok) {
      summary.succeeded += 1;
      stageLog.trial(trial.team, trial.character, fileName, { ok: true });
      progress.tick(name, 'ok', trial.relFile);
    } else {
      if (outcome.final) summary.failed += 1;
      else summary.unfinished += 1;
      stageLog.trial(trial.team, trial.character, fileName, { ok: false, reason: outcome.reason! });
      progress.tick(name, 'failed', trial.relFile, outcome.reason);
      if (outcome.kind === 'unavailable' && pool.allSetAside()) {
        stopped ??= `every ${apiName(options.pool.api)} host is set aside after repeated failures; run the same command again to resume`;
        runCancel.abort();
      }
    }
  };

  let next = 0;
  // An error no trial outcome covers (a full disk, a bug) stops the other workers too before it is
  // thrown, so no trial goes on writing after the command has ended.
  let fatal: { error: unknown } | undefined;
  const worker = async () => {
    while (next < pending.length && !runCancel.signal.aborted) {
      const trial = pending[next]!;
      next += 1;
      try {
        await runTrial(trial);
      } catch (error) {
        fatal ??= { error };
        runCancel.abort();
        return;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(options.concurrency, pending.length) }, worker));
  } finally {
    cancel?.removeEventListener('abort', onCancel);
    await proxy?.stop();
  }
  if (fatal) throw fatal.error;
  if (!stopped && cancel?.aborted) stopped = 'cancelled; run the same command again to resume';
  if (runCancel.signal.aborted) {
    for (const trial of pending.slice(next)) summaries.get(trial.model)!.unfinished += 1;
  }

  const models = options.models.map((model) => {
    const summary = summaries.get(model)!;
    summary.stage = stageLogs.get(model)!.result();
    progress.end(stageName(model));
    return summary;
  });
  runLog.write({
    type: 'end',
    time: new Date().toISOString(),
    stopped: stopped ?? null,
    models: models.map(({ stage: _stage, ...rest }) => rest),
  });
  return { logFile: runLog.file, models, preflight, stopped };
}
