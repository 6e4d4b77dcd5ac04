import type { ProgressSink } from '../../orchestrator/progress/types.js';
import type { HostPoolSettings } from '../generate/host-pool.js';
import { RunLog } from '../generate/run-log.js';
import { hostEvents, type JudgeBackend, PoolBackend } from './backend.js';
import type { Attempt, Journal } from './journal.js';
import type { LevelFilter } from './levels.js';
import { type JudgeSettings, type JudgeTask, needsCalls, type RunnerCounts, runJudgeTasks, type TaskResult } from './runner.js';
import type { ViewKind } from './scoring/views.js';

/**
 * What both judge stages share around the runner: the backend (`--api`), its preflight only when
 * something is left to ask, the run log, and the failure accounting every judge reports the same way
 * (docs/judges.md, "Failures"): tasks judged, refused after the retries, missing (nothing to show),
 * unfinished (hosts down), and the refusal rate checked against `--max-refusal-rate`.
 */
export interface BackendOptions {
  hosts: string[];
  pool: HostPoolSettings;
  /** A backend to use instead of building one from `hosts` (tests, other APIs). */
  backend?: JudgeBackend | undefined;
}

/** What every judge stage (the rubric and the ordering) is given besides its own protocol. */
export interface JudgeStageOptions {
  root: string;
  filter: LevelFilter;
  view: ViewKind;
  /** The judge's folder name (paths.ts judgeId). */
  id: string;
  prefix: string;
  judge: JudgeSettings;
  backend: BackendOptions;
  /** Replace letter files written with other settings under the same judge (else that is an error). */
  force: boolean;
  startedAt?: Date;
}

export const DEFAULT_MAX_REFUSAL_RATE = 0.2;

export interface FailureCounts {
  /** Units the judge had to score (levels for the rubric, presentations for the ordering). */
  tasks: number;
  judged: number;
  refused: number;
  missing: number;
  unfinished: number;
  /** refused / (judged + refused); null when nothing was settled. */
  refusalRate: number | null;
}

export function failureCounts(counts: Omit<FailureCounts, 'refusalRate' | 'tasks'>): FailureCounts {
  const settled = counts.judged + counts.refused;
  return { tasks: settled + counts.missing + counts.unfinished, ...counts, refusalRate: settled === 0 ? null : counts.refused / settled };
}

/** The one-line reason to exit 1 when too many answers were refused, else undefined. */
export function refusalProblem(counts: FailureCounts, maxRate: number): string | undefined {
  if (counts.refusalRate === null || counts.refusalRate <= maxRate) return undefined;
  return `${counts.refused} of ${counts.judged + counts.refused} answers were refused after the retries (${(100 * counts.refusalRate).toFixed(1)} %, more than --max-refusal-rate ${maxRate}): the judge's scores rest on too few answers`;
}

interface JudgeRun {
  counts: RunnerCounts;
  stopped: string | undefined;
  digest: string | undefined;
  logFile: string;
}

export async function runJudge(
  root: string,
  kind: 'judge-rubric' | 'judge-order',
  stage: string,
  start: Record<string, unknown>,
  work: {
    tasks: readonly JudgeTask[];
    journal: Journal;
    previous: Map<string, Attempt[]>;
    judge: JudgeSettings;
    backend: BackendOptions;
    startedAt?: Date | undefined;
  },
  progress: ProgressSink,
  onResult: (result: TaskResult) => void | Promise<void>,
  cancel?: AbortSignal,
): Promise<JudgeRun> {
  const log = new RunLog(root, work.startedAt ?? new Date(), kind);
  log.write({ type: 'start', time: new Date().toISOString(), ...start, api: work.judge.api, model: work.judge.model, tasks: work.tasks.length });
  const backend = work.backend.backend ?? makeBackend(work.judge, work.backend, hostEvents(log, progress, stage));
  let digest: string | undefined;
  if (needsCalls(work.tasks, work.previous, work.judge)) digest = (await backend.preflight(work.judge.model)).digest;
  const result = await runJudgeTasks(
    work.tasks,
    { settings: work.judge, backend, journal: work.journal, log, progress, stage, digest, cancel },
    work.previous,
    onResult,
  );
  log.write({ type: 'end', time: new Date().toISOString(), counts: result.counts, stopped: result.stopped ?? null });
  return { ...result, digest, logFile: log.file };
}

function makeBackend(judge: JudgeSettings, options: BackendOptions, onEvent: (event: { type: string; host: string; reason?: string }) => void): JudgeBackend {
  return new PoolBackend(options.hosts, { ...options.pool, api: judge.api }, onEvent);
}
