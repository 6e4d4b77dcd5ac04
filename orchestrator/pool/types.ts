import type { Engine, LevelJob, LevelSink } from '../../bridge/engine.js';

/**
 * Types of the engine pool: what a caller hands in, what it gets back, and the events the pool
 * reports (the run log records them, so every retry and engine replacement is visible afterwards).
 */

/** Why one attempt of a job ended without a result. */
export type AttemptFailureKind =
  /** The engine's `run` rejected with an engine error (crash, lost connection, protocol error). */
  | 'crashed'
  /** No sink callback for `stallMs` (the progress watchdog fired). */
  | 'stalled'
  /** The attempt ran longer than `jobTimeoutMs`. */
  | 'timeout'
  /** The engine streamed something that breaks the `LevelSink` contract (order, shapes, NaN, no capture). */
  | 'garbage'
  /**
   * The level itself cannot run, said by an engine with sbeval's own rules (`Engine.ownRules`, the
   * headless engine): a verdict, not retried.
   */
  | 'level'
  /**
   * Another engine said the level cannot run: a claim, checked by running the level on another
   * engine (the pool's referee, the headless engine, when it has no other). Never how a job ends.
   */
  | 'level-claim'
  /**
   * An engine without sbeval's own rules sent a capture that is not the final state it streamed (or
   * one too large to be an image): it is discredited, and the job runs again on another engine or,
   * when the pool has no other, on the referee (claims.ts). Never how a job ends.
   */
  | 'capture-lie'
  /** The caller's signal or the pool's close ended the attempt. */
  | 'cancelled';

/** The kinds that blame the engine: the job goes back to the queue, the engine's health drops. */
export const ENGINE_FAULTS: ReadonlySet<AttemptFailureKind> = new Set(['crashed', 'stalled', 'timeout', 'garbage']);

export interface AttemptRecord {
  attempt: number;
  engineId: string;
  /** Undefined when the attempt succeeded. */
  failure?: { kind: AttemptFailureKind; reason: string };
}

/**
 * A sink for one attempt. A plain `LevelSink` receives exactly one complete stream: the pool buffers
 * each attempt and replays only the one that succeeded. A factory is called once per attempt, with the
 * engine that runs it (a trace header names the engine), and receives the stream live (for traces or
 * large levels); the caller keeps what the last one got.
 */
type LevelSinkFactory = (attempt: number, engine: Engine) => LevelSink;

export interface PoolRequest {
  job: LevelJob;
  sink: LevelSink | LevelSinkFactory;
  signal?: AbortSignal;
  /** Attempts for this job (first run + retries on other engines); default the pool's `maxAttempts`. */
  maxAttempts?: number;
  /** Engines not to use when another one is available (the level machine passes the one that failed). */
  avoidEngines?: readonly string[];
}

export interface PoolRunResult {
  engineId: string;
  /**
   * The pool's own number for the engine that ran it, unique over the pool's life (an engine id can
   * come back: a bridge engine reconnecting under its name, a fleet's replacement): what
   * `EnginePool.isDiscredited` and `engine-discredited` events name.
   */
  engineSerial: number;
  attempts: AttemptRecord[];
}

/** How a job ended without a result: the reason of the last attempt plus every attempt for the log. */
type PoolFailureKind = AttemptFailureKind | 'no-engines';

export class PoolJobError extends Error {
  readonly kind: PoolFailureKind;
  readonly levelId: string;
  readonly attempts: AttemptRecord[];
  /**
   * What engines said beside the reason, e.g. the text of a level fault an engine claimed before
   * sbeval's rules gave the reason (the message stays the rules' own, whichever engines ran the level).
   */
  readonly detail: string | undefined;
  constructor(kind: PoolFailureKind, levelId: string, message: string, attempts: AttemptRecord[], options?: { cause?: unknown; detail?: string }) {
    super(message, options);
    this.name = 'PoolJobError';
    this.kind = kind;
    this.levelId = levelId;
    this.attempts = attempts;
    this.detail = options?.detail;
  }
}

/** Creates engine number `generation` for a slot (generation 0 at start, 1.. for replacements). */
export type EngineFactory = (slot: number, generation: number) => Promise<Engine>;

export type ErrorClass = 'level' | 'engine';

export interface EnginePoolOptions {
  /** Engines to start with (remote engines that dialled in, in-process engines). */
  engines?: readonly Engine[];
  /** Creates engines: `size` at start when `engines` is empty, and replacements for dead ones. */
  factory?: EngineFactory;
  /** Engines to create at start through `factory` (default 1 when there is a factory and no engines). */
  size?: number;
  /** Whole-attempt limit in ms (default 120 s: the Unity evaluator needs 3–5 s per trial). */
  jobTimeoutMs?: number;
  /** Progress watchdog: longest silence between sink callbacks in ms (default 30 s). */
  stallMs?: number;
  /** Attempts per job unless the request says otherwise (default 3). */
  maxAttempts?: number;
  /** Engine faults in a row after which an engine is retired (default 2; stalls and timeouts retire at once). */
  maxConsecutiveFailures?: number;
  /** Replacements the factory may make over the pool's life (default 4 × initial size): a restart budget. */
  maxReplacements?: number;
  /** How long a cancelled or abandoned engine run may take to settle before the engine is retired (default 2 s). */
  settleMs?: number;
  /** How long `engine.close()` may take (default 5 s). */
  closeMs?: number;
  /**
   * Jobs wait for engines that `add()` will bring (remote engines dialling in) instead of failing with
   * `no-engines` when the pool is empty (default false).
   */
  awaitEngines?: boolean;
  /**
   * With `awaitEngines`: once every engine that was there is gone (retired: a liar, a crash, a stall),
   * how long queued jobs wait for one to dial in before they fail with `no-engines` ("no engine left:
   * …"), as do the jobs asked for after, until an engine comes (default: they wait for good).
   */
  engineWaitMs?: number;
  /** Decides whether a rejected `run` blames the level or the engine (default: see `defaultClassifyError`). */
  classifyError?: (error: unknown) => ErrorClass;
  /**
   * Checks level faults claimed by engines without sbeval's own rules (`Engine.ownRules`) when no other
   * engine of the pool can: made on first need, used only for such checks, closed with the pool
   * (default: the headless engine in a worker thread). `false`: a claim fails the job as the engine
   * said (measurements of one engine, e.g. `sbeval unity calibrate`).
   */
  referee?: (() => Promise<Engine>) | false;
  onEvent?: (event: PoolEvent) => void;
  /** Runs at the end of `close()`, after every engine closed (e.g. closing the endpoint they came through). */
  onClosed?: () => Promise<void>;
}

export type PoolEvent =
  | { type: 'engine-added'; engineId: string; slot: number | undefined }
  | { type: 'engine-retired'; engineId: string; reason: string }
  /**
   * The engine's word was proven false (a stream that is not the level's, a level fault another
   * engine's run refuted): it is retired, and results it gave earlier must not be kept.
   */
  | { type: 'engine-discredited'; engineId: string; engineSerial: number; reason: string }
  | { type: 'engine-replace-failed'; slot: number; reason: string }
  | { type: 'attempt-start'; levelId: string; attempt: number; engineId: string }
  | { type: 'attempt-failed'; levelId: string; attempt: number; engineId: string; kind: AttemptFailureKind; reason: string }
  | { type: 'requeued'; levelId: string; attempt: number; reason: string }
  | { type: 'job-done'; levelId: string; engineId: string; attempts: number }
  | { type: 'job-failed'; levelId: string; kind: PoolFailureKind; reason: string };

export interface EngineHealth {
  engineId: string;
  slot: number | undefined;
  busy: boolean;
  jobsDone: number;
  consecutiveFailures: number;
  totalFailures: number;
}
