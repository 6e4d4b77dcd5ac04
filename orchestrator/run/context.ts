import { join } from 'node:path';
import { OFF_MACHINE_ENGINES } from '../../bridge/engine-kinds.js';
import { describeError, SbevalError } from '../../core/errors.js';
import type { ScoreWarning } from '../../scoring/score/checks.js';
import type { WinnerDecision } from '../../scoring/score/winner.js';
import { type Settings, settingsRecord } from '../config/index.js';
import { resultDir } from '../layout/competition.js';
import type { LevelOutcome } from '../machine/index.js';
import type { EngineFactory, EnginePool } from '../pool/index.js';
import { type ProgressSink, SILENT_PROGRESS } from '../progress/types.js';
import type { ResultContributor } from '../result/contributors.js';
import { ImageClassifier } from '../similarity/image-classifier.js';
import { SimilarityPrefetch } from '../similarity/prefetch.js';
import { COMPETITION_MODEL, readModelInfo } from '../stages/model.js';
import type { LevelRobustnessResult } from '../stages/robustness.js';
import type { RankedRow } from '../stages/score.js';
import type { TrialRow } from './accounting.js';
import { StorageFaultLatch } from './fault.js';
import { RunLog } from './run-log.js';
import type { UnfinishedWork } from './unfinished.js';

/**
 * What every stage of `sbeval run` shares: the settings (one resolution, orchestrator/config), the
 * progress display, the run log, the cancellation signal, the engine pool once one is needed, the
 * levels' outcomes, the run's warnings and the report being filled in. Each stage is one function
 * over this context (run.ts lists them in order).
 */
export interface RunOptions {
  /** The resolved settings (`resolveSettings(root, flags)`). */
  config: Settings;
  progress?: ProgressSink;
  signal?: AbortSignal;
  /** Replaces the engines of `config.engine` (tests: engines that die, stall, answer garbage). */
  engineFactory?: EngineFactory;
  now?: () => Date;
  /**
   * Start the similarity on each image as the levels produce it (the files are the same either way:
   * test/orchestrator/run-overlap.test.ts). False: similarity only after every level. Default: overlap
   * only when the engines do not run on this machine's cores (`overlapByDefault`).
   */
  overlapSimilarity?: boolean;
  /** Run the program submissions the config lists (`--allow-programs`; llm/generate/consent.ts). Default false. */
  allowPrograms?: boolean;
  /** Responses for the configured submissions (the command line gives llm/generate/run-stage.ts); needed when the config lists any. */
  generate?: GenerateStage;
  /** What the tools above the evaluator add to `result/`: their inputs and report sections (orchestrator/result/contributors.ts). */
  contributors?: readonly ResultContributor[];
}

/**
 * Stage 1 of a run, handed in by the caller: the evaluator calls no model itself, so generating the
 * configured submissions' responses is the LLM tooling's (llm/generate/run-stage.ts).
 */
export interface GenerateStage {
  /** Before anything is written: refuses what may not run (program submissions without consent). */
  check(settings: Settings, allowPrograms: boolean): void;
  run(ctx: RunContext): Promise<void>;
}

type StageStatus = 'done' | 'skipped' | 'unavailable' | 'failed';

export interface RunStageReport {
  stage: string;
  /** Model folder in multi-model runs. */
  model?: string | undefined;
  status: StageStatus;
  detail: string;
}

export interface RunReport {
  root: string;
  runLog: string;
  stages: RunStageReport[];
  trials: TrialRow[];
  trialsCsv: string;
  /**
   * `outside`: trials of the competition outside `--team`/`--chars`, read as they are (run/observe.ts);
   * `notRun`: trials of the work not started because the run was stopped (the next run does them);
   * `beyondT`: of `total`, the trial files numbered beyond T (the stages process them; not trials of the competition).
   */
  levels: { total: number; simulated: number; cached: number; failed: number; retries: number; outside: number; notRun: number; beyondT: number };
  /** False when the run had no similarity model: no similarity file was computed. */
  similarity: boolean;
  /** Whether `result/` holds a ranking that describes the folder (written or still up to date) after the run. */
  scored: boolean;
  /** Every warning of the run (its stages' and the score's), as listed in the report. */
  warnings: ScoreWarning[];
  cancelled: boolean;
  /** What the run could not finish (the command exits 1 unless it is nothing). */
  unfinished: UnfinishedWork;
  /** Engines the pool retired, replaced and could not replace (a pool never shrinks silently). */
  engines: { retired: number; replaced: number; replaceFailed: number };
  /** The ranking and the winner decision when the run scored (the summary ends with them). */
  ranking?: RankedRow[];
  winners?: WinnerDecision;
  /** The similarity model the written scores came from, named as the report names it. */
  similarityModel?: string;
}

/** How to get the competition's similarity model (`sbeval model fetch`). */
export const MODEL_HINT = `sbeval model fetch ${COMPETITION_MODEL}`;

export interface RunContext {
  readonly settings: Settings;
  /** The caller's options, with the run's own signal (aborted by the caller or by a storage fault). */
  readonly options: RunOptions;
  /** A storage fault anywhere (log, level effects) stops the run through `options.signal`: run/fault.ts. */
  readonly latch: StorageFaultLatch;
  readonly progress: ProgressSink;
  readonly now: () => Date;
  readonly startedAt: Date;
  readonly log: RunLog;
  readonly report: RunReport;
  readonly outcomes: LevelOutcome[];
  /** Created by the first stage that simulates; closed after the level stages (`closePool`). */
  pool: EnginePool | undefined;
  /**
   * With a similarity model: the run's classifier, opened on the first image the levels write, which
   * starts inferring every written image at once (orchestrator/similarity/prefetch.ts); the similarity
   * stage then uses the same classifier and finds those images done.
   */
  readonly similarityPrefetch: SimilarityPrefetch | undefined;
  /** Knife-edge verdicts of every folder (`--robustness N`; empty without it). */
  readonly robustness: LevelRobustnessResult[];
  /** Closes the pool, keeping its engine counts for the report. */
  closePool(): Promise<void>;
  /** Ends a stage: one line in the report's stage list and in the run log. */
  record(entry: RunStageReport, extra?: Record<string, unknown>): void;
  /** A warning: printed now (progress note), listed in the report's warnings at the end. */
  warn(stage: string, message: string, file?: string): void;
  /** Throws when the run was cancelled (between stages and levels). */
  checkCancelled(): void;
}

/**
 * Whether `run` classifies images while the levels run when not told. Headless engines: no — they use
 * every core, and onnxruntime's 2 intra-op threads then compete with them (and its synchronous
 * `session.run` holds the main thread that feeds them): `npm run bench -- pipeline` with
 * SBEVAL_BENCH_OVERLAP=on,off, 2 teams (281 images), one run on the shared machine: overlapped 362.4 s,
 * levels first 253.8 s, the same ~213 s of CPU (headless-ws is the same engine in a child process).
 * Engines elsewhere (Unity, a bridge whose engines dial in) leave this machine's cores idle during their 3–5 s trials, so inference overlaps them.
 */
export function overlapByDefault(engine: string): boolean {
  return (OFF_MACHINE_ENGINES as readonly string[]).includes(engine);
}

export function createRunContext(outer: RunOptions): RunContext {
  const latch = new StorageFaultLatch(outer.signal);
  const options: RunOptions = { ...outer, signal: latch.signal };
  const settings = options.config;
  const progress = options.progress ?? SILENT_PROGRESS;
  const now = options.now ?? (() => new Date());
  const startedAt = now();
  const log = new RunLog(settings.root, startedAt, now, (fault) => latch.report(fault));
  const report: RunReport = {
    root: settings.root,
    runLog: log.file,
    stages: [],
    trials: [],
    trialsCsv: join(resultDir(settings.root), 'trials.csv'),
    levels: { total: 0, simulated: 0, cached: 0, failed: 0, retries: 0, outside: 0, notRun: 0, beyondT: 0 },
    similarity: settings.model !== undefined,
    scored: false,
    warnings: [],
    cancelled: false,
    unfinished: { levels: 0, reasons: [], stages: [] },
    engines: { retired: 0, replaced: 0, replaceFailed: 0 },
  };
  log.write({
    type: 'run-start',
    root: settings.root,
    settings: settingsRecord(settings),
    config: { ...settings, root: undefined, layout: undefined },
    node: process.version,
  });
  const ctx: RunContext = {
    settings,
    options,
    latch,
    progress,
    now,
    startedAt,
    log,
    report,
    outcomes: [],
    pool: undefined,
    similarityPrefetch:
      settings.model !== undefined && (options.overlapSimilarity ?? overlapByDefault(settings.engine))
        ? new SimilarityPrefetch(async () => ImageClassifier.open({ model: settings.model!, info: readModelInfo(settings.model!) }))
        : undefined,
    robustness: [],
    async closePool() {
      if (!ctx.pool) return;
      report.engines = { ...ctx.pool.stats };
      const pool = ctx.pool;
      ctx.pool = undefined;
      await pool.close();
    },
    record(entry, extra = {}) {
      report.stages.push(entry);
      log.write({ type: 'stage-end', ...entry, ...extra });
    },
    warn(stage, message, file) {
      progress.note(stage, message);
      report.warnings.push({ code: 'run', message: `${stage}: ${message}`, ...(file !== undefined ? { file } : {}) });
      log.write({ type: 'warning', stage, message });
    },
    checkCancelled() {
      const signal = options.signal;
      if (signal?.aborted) throw new SbevalError('simulate', `run cancelled: ${describeError(signal.reason ?? 'aborted')}`);
    },
  };
  return ctx;
}
