import { existsSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { sha256 } from '../../core/hash.js';
import { NON_TEAM_DIRS, stageDir, trialFileBase } from '../../orchestrator/layout/competition.js';
import { assertSafeName, modelFolderName } from '../../orchestrator/layout/names.js';
import { StageLog, type StageSummary } from '../../orchestrator/layout/stage-log.js';
import type { ProgressSink } from '../../orchestrator/progress/types.js';
import { apiName, backendOf, CallError, type ModelApi } from '../model-calls/index.js';
import { ChatProxy } from './chat-proxy.js';
import { runConversation } from './conversation.js';
import { type HostEvent, HostPool, type HostPoolSettings, HostsUnavailable, type PreflightReport } from './host-pool.js';
import { LimitExceeded, type TrialLimits } from './limits.js';
import { ProgramFailed, runProgram } from './program.js';
import { type CallLine, type FailureKind, RunLog, readFinalFailures, type TrialLine } from './run-log.js';
import { trialSeed } from './seeds.js';
import { type Sampling, TrialSession } from './session.js';
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
  if (!perModel && models.length > 1)
    throw new SbevalError('config', '--layout flat takes one model', 'several models need the per-model layout (--layout auto or per-model)');
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
        plan.push({
          model,
          competitionRoot,
          team,
          character,
          trial,
          seed: trialSeed(options.masterSeed, character, trial),
          file,
          relFile: relative(root, file).split(sep).join('/'),
        });
      }
    }
  }
  return plan;
}

/** What a final failure is tied to: the same inputs would fail the same way. */
export function trialFingerprint(submission: Submission, trial: PlannedTrial, limits: TrialLimits, sampling: Sampling): string {
  const text = JSON.stringify([submission.sha256, trial.model, trial.seed, limits.timeLimitS, limits.tokenLimit, sampling.temperature, sampling.topP]);
  return sha256(text).slice(0, 16);
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

/** What every trial of one generate run shares. */
interface GenerateRun {
  options: GenerateOptions;
  progress: ProgressSink;
  events: GenerateEvents;
  runLog: RunLog;
  pool: HostPool;
  proxy: ChatProxy | undefined;
  /** Aborted on the user's cancel, when every host is set aside, or on a fatal error. */
  runCancel: AbortController;
  summaries: Map<string, ModelSummary>;
  stageLogs: Map<string, StageLog>;
  /** Why the run stopped before the end, once it has. */
  stopped: string | undefined;
}

function checkGenerateOptions(options: GenerateOptions, events: GenerateEvents): void {
  const { submission } = options;
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1)
    throw new SbevalError('config', `--concurrency must be a positive integer (got ${options.concurrency})`);
  if (submission.kind !== 'program' && lacksObjectToken(submission)) {
    events.note?.(`the submission never mentions <OBJECT>, so the letter is not sent to the model (${submission.source})`);
  }
}

/** The run log's first line: every input that decides what the run computes. */
function writeStartLine(runLog: RunLog, options: GenerateOptions, pool: HostPool, startedAt: Date): void {
  const { submission } = options;
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
    limits: options.limits,
    sampling: options.sampling,
    concurrency: options.concurrency,
    layout: options.layout,
    stream: options.pool.call.stream,
    callDeadlineMs: options.pool.call.deadlineMs,
    maxAnswerBytes: options.pool.call.maxAnswerBytes,
  });
}

/** Asks every host what it serves; throws (after logging the end) when no host is reachable or a model is on none. */
async function preflightHosts(pool: HostPool, options: GenerateOptions, runLog: RunLog, events: GenerateEvents): Promise<PreflightReport> {
  const { problems } = backendOf(options.pool.api);
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
  return preflight;
}

/** One stage log and one (empty) summary per model, in the model's competition root. */
function openModelLogs(models: readonly string[], plan: readonly PlannedTrial[], startedAt: Date): Pick<GenerateRun, 'stageLogs' | 'summaries'> {
  const stageLogs = new Map<string, StageLog>();
  const summaries = new Map<string, ModelSummary>();
  for (const model of models) {
    const competitionRoot = plan.find((t) => t.model === model)!.competitionRoot;
    const log = new StageLog(competitionRoot, 'raw', startedAt);
    stageLogs.set(model, log);
    summaries.set(model, {
      model,
      root: competitionRoot,
      total: 0,
      succeeded: 0,
      failed: 0,
      alreadyDone: 0,
      previouslyFailed: 0,
      unfinished: 0,
      promptTokens: 0,
      completionTokens: 0,
      stage: log.result(),
    });
  }
  return { stageLogs, summaries };
}

/**
 * Sorts out what is already done before any call, so progress starts from the truth: trials whose file
 * exists or that failed finally (in `finalFailures`) with the same fingerprint are ticked as skipped; the
 * rest are returned.
 * Leftover temporary files of interrupted writes are removed from every trial folder.
 */
async function pendingTrials(run: GenerateRun, plan: readonly PlannedTrial[], finalFailures: Map<string, Set<string>>): Promise<PlannedTrial[]> {
  const { options, progress } = run;
  const pending: PlannedTrial[] = [];
  const dirs = new Set<string>();
  for (const model of options.models) {
    const trials = plan.filter((t) => t.model === model);
    const summary = run.summaries.get(model)!;
    summary.total = trials.length;
    progress.start(stageName(model), trials.length);
    for (const trial of trials) {
      dirs.add(join(trial.file, '..'));
      if (existsSync(trial.file)) {
        summary.alreadyDone += 1;
        run.stageLogs.get(model)!.skipped();
        progress.tick(stageName(model), 'skipped', trial.relFile);
      } else if (finalFailures.get(trial.relFile)?.has(trialFingerprint(options.submission, trial, options.limits, options.sampling))) {
        summary.previouslyFailed += 1;
        run.stageLogs.get(model)!.skipped();
        progress.tick(stageName(model), 'skipped', trial.relFile, 'failed in an earlier run');
      } else {
        pending.push(trial);
      }
    }
  }
  for (const dir of dirs) await removeStaleTemps(dir);
  return pending;
}

/** Runs the submission for one trial; a cancel turns every failure but a limit into an interruption. */
async function attemptTrial(run: GenerateRun, trial: PlannedTrial, session: TrialSession): Promise<{ outcome: Outcome; response: string | undefined }> {
  const { submission } = run.options;
  let outcome: Outcome;
  let response: string | undefined;
  try {
    response =
      submission.kind === 'program'
        ? await runProgram(submission, session, run.proxy!, run.runCancel.signal, run.options.programGraceS)
        : await runConversation(submission, trial.character, session);
    outcome = { ok: true };
  } catch (error) {
    outcome = outcomeOf(error, run.options.pool.api);
  }
  if (run.runCancel.signal.aborted && !outcome.ok && outcome.kind !== 'time' && outcome.kind !== 'tokens') outcome = { ok: false, interrupted: true };
  return { outcome, response };
}

/** The run log's line for a trial that ended (written or finally failed). */
function trialLine(run: GenerateRun, trial: PlannedTrial, session: TrialSession, outcome: Outcome): TrialLine {
  const { submission, limits, sampling } = run.options;
  const tokens = session.budget.tokens;
  return {
    type: 'trial',
    time: new Date().toISOString(),
    ...session.identity,
    outcome: outcome.ok ? 'ok' : 'failed',
    file: trial.relFile,
    ...(outcome.ok ? {} : { reason: outcome.reason!, kind: outcome.kind!, final: outcome.final! }),
    fingerprint: trialFingerprint(submission, trial, limits, sampling),
    elapsedS: Math.round(session.budget.elapsedS() * 1000) / 1000,
    promptTokens: tokens.prompt,
    completionTokens: tokens.completion,
    calls: session.calls,
  };
}

/** Counts a trial's outcome in its model's summary, stage log and progress; stops the run when every host is set aside. */
function countTrialOutcome(run: GenerateRun, trial: PlannedTrial, outcome: Outcome): void {
  const summary = run.summaries.get(trial.model)!;
  const stageLog = run.stageLogs.get(trial.model)!;
  const name = stageName(trial.model);
  const fileName = `${trialFileBase(trial.team, trial.character, trial.trial)}.txt`;
  if (outcome.ok) {
    summary.succeeded += 1;
    stageLog.trial(trial.team, trial.character, fileName, { ok: true });
    run.progress.tick(name, 'ok', trial.relFile);
    return;
  }
  if (outcome.final) summary.failed += 1;
  else summary.unfinished += 1;
  stageLog.trial(trial.team, trial.character, fileName, { ok: false, reason: outcome.reason! });
  run.progress.tick(name, 'failed', trial.relFile, outcome.reason);
  if (outcome.kind === 'unavailable' && run.pool.allSetAside()) {
    run.stopped ??= `every ${apiName(run.options.pool.api)} host is set aside after repeated failures; run the same command again to resume`;
    run.runCancel.abort();
  }
}

async function runTrial(run: GenerateRun, trial: PlannedTrial): Promise<void> {
  const { options, runLog, events } = run;
  const identity = { model: trial.model, team: trial.team, character: trial.character, trial: trial.trial, seed: trial.seed };
  const session = new TrialSession(
    identity,
    options.limits,
    options.sampling,
    run.pool,
    (line) => {
      runLog.write({ ...line });
      events.call?.(line);
    },
    run.runCancel.signal,
  );
  const { outcome, response } = await attemptTrial(run, trial, session);
  const summary = run.summaries.get(trial.model)!;
  summary.promptTokens += session.budget.tokens.prompt;
  summary.completionTokens += session.budget.tokens.completion;
  if (outcome.interrupted) {
    summary.unfinished += 1;
    return;
  }
  if (outcome.ok && response !== undefined && !(await writeFileOnce(trial.file, response))) {
    // Another process finished this trial meanwhile; its file stands.
    summary.alreadyDone += 1;
    run.stageLogs.get(trial.model)!.skipped();
    run.progress.tick(stageName(trial.model), 'skipped', trial.relFile, 'written by another run');
    return;
  }
  const line = trialLine(run, trial, session, outcome);
  runLog.write({ ...line });
  events.trial?.(line);
  countTrialOutcome(run, trial, outcome);
}

/**
 * Runs the pending trials on `concurrency` workers until done or cancelled; returns how many trials were
 * started. An error no trial outcome covers (a full disk, a bug) stops the other workers too before it
 * is thrown, so no trial goes on writing after the command has ended.
 */
async function runTrialWorkers(run: GenerateRun, pending: readonly PlannedTrial[]): Promise<number> {
  let next = 0;
  let fatal: { error: unknown } | undefined;
  const worker = async () => {
    while (next < pending.length && !run.runCancel.signal.aborted) {
      const trial = pending[next]!;
      next += 1;
      try {
        await runTrial(run, trial);
      } catch (error) {
        fatal ??= { error };
        run.runCancel.abort();
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(run.options.concurrency, pending.length) }, worker));
  if (fatal) throw fatal.error;
  return next;
}

/** Closes each model's stage log and progress bar and writes the run log's last line. */
function finishGenerate(run: GenerateRun): ModelSummary[] {
  const models = run.options.models.map((model) => {
    const summary = run.summaries.get(model)!;
    summary.stage = run.stageLogs.get(model)!.result();
    run.progress.end(stageName(model));
    return summary;
  });
  run.runLog.write({
    type: 'end',
    time: new Date().toISOString(),
    stopped: run.stopped ?? null,
    models: models.map(({ stage: _stage, ...rest }) => rest),
  });
  return models;
}

export async function runGenerate(
  options: GenerateOptions,
  progress: ProgressSink,
  events: GenerateEvents = {},
  cancel?: AbortSignal,
): Promise<GenerateSummary> {
  const { root, submission } = options;
  const startedAt = options.startedAt ?? new Date();
  const plan = planTrials(options);
  checkGenerateOptions(options, events);

  const runLog = new RunLog(root, startedAt);
  const pool = new HostPool(options.hosts, options.pool, (event) => {
    runLog.write({ ...event, type: 'host', state: event.type, time: new Date().toISOString() });
    events.host?.(event);
  });
  writeStartLine(runLog, options, pool, startedAt);
  const preflight = await preflightHosts(pool, options, runLog, events);

  const earlier = options.retryFailed ? { failures: new Map<string, Set<string>>(), corrupt: [] } : readFinalFailures(root);
  if (earlier.corrupt.length > 0)
    events.note?.(`${earlier.corrupt.length} line(s) of earlier generate logs are not JSON and were not read (${earlier.corrupt.slice(0, 3).join(', ')})`);
  const finalFailures = earlier.failures;
  const run: GenerateRun = {
    options,
    progress,
    events,
    runLog,
    pool,
    proxy: undefined,
    runCancel: new AbortController(),
    ...openModelLogs(options.models, plan, startedAt),
    stopped: undefined,
  };
  const pending = await pendingTrials(run, plan, finalFailures);

  run.proxy = submission.kind === 'program' ? new ChatProxy() : undefined;
  await run.proxy?.start();
  const onCancel = () => run.runCancel.abort();
  cancel?.addEventListener('abort', onCancel, { once: true });
  let started: number;
  try {
    started = await runTrialWorkers(run, pending);
  } finally {
    cancel?.removeEventListener('abort', onCancel);
    await run.proxy?.stop();
  }
  if (!run.stopped && cancel?.aborted) run.stopped = 'cancelled; run the same command again to resume';
  if (run.runCancel.signal.aborted) {
    for (const trial of pending.slice(started)) run.summaries.get(trial.model)!.unfinished += 1;
  }
  return { logFile: runLog.file, models: finishGenerate(run), preflight, stopped: run.stopped };
}
