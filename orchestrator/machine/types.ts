/**
 * Types of the per-level machine: what a level is, what each invoked actor returns, the context the
 * machine keeps and the outcome it ends with. Actor outputs are plain data (no Error objects, no
 * image bytes), so snapshots serialise to JSON for the run log and for `xstate/graph`.
 */

/** One trial file of one team (and model, for 2025-style runs) for one character. */
export interface LevelRef {
  /** Deterministic id: `[<model>/]<team>/<C>/<base>`; also the actor id and the pool's level id. */
  id: string;
  team: string;
  /** Model folder name when the competition has one folder level per model. */
  model: string | undefined;
  character: string;
  /** Trial number from the file name (official parse); NaN for names without one. */
  trial: number;
  /** File name without extension: `<team>_<C>_<n>`. */
  base: string;
}

/** The per-level stages, in order; `stageReached` in `result/trials.csv` is the last one completed. */
export type LevelStage = 'extract' | 'convert' | 'simulate' | 'capture' | 'commit';

/** What the last completed stage produced, for `result/trials.csv`. */
export type StageReached = 'none' | 'raw' | 'intermediate' | 'level' | 'simulated' | 'image';

export type FailureKind =
  /** The input is bad: no code, a level that cannot be built or loaded (official reasons). */
  | 'level'
  /** Engines kept dying/stalling/answering garbage past the retry budget, or none is left. */
  | 'engine'
  /** A state ran longer than its named delay. */
  | 'timeout'
  | 'cancelled'
  /** Not worked on by this command (outside its `--team`/`--chars`) and not done yet: nothing was tried. */
  | 'pending'
  /** An unexpected error in our own code or I/O (a bug or a full disk): the message says which. */
  | 'error';

export interface LevelFailure {
  stage: LevelStage | 'queued';
  kind: FailureKind;
  reason: string;
}

/**
 * Extract, convert and commit: done (maybe from an earlier run's files) or a recorded failure.
 * `missingInput` says the stage found nothing to work on (no response file: the trial never became one).
 */
export type StepOutput = { status: 'ok'; cached: boolean } | { status: 'failed'; reason: string; missingInput?: boolean };

/** The engine-fault kinds the pool reports (orchestrator/pool/types.ts `ENGINE_FAULTS`, plus none left). */
export type EngineFaultKind = 'crashed' | 'stalled' | 'timeout' | 'garbage' | 'no-engines';

/** One simulated trial (stability counts as the evaluator reports them). */
export interface TrialRecord {
  trial: number;
  score: number;
  startingObjects: number;
  movingObjects: number;
  /** Ids of the moving objects (BodyInfo.id), as scoring/stability.ts reports them. */
  moving: number[];
  engineId: string;
}

export type SimulateOutput =
  | ({ status: 'ok'; cached: boolean; captured: boolean } & Omit<TrialRecord, 'trial'>)
  | { status: 'engine-fault'; kind: EngineFaultKind; engineId: string | undefined; reason: string }
  | { status: 'level-error'; reason: string };

export type CaptureOutput =
  | { status: 'ok'; cached: boolean }
  | { status: 'engine-fault'; kind: EngineFaultKind; engineId: string | undefined; reason: string }
  | { status: 'level-error'; reason: string };

/** A retry on another engine, as the run log and `trials.csv` show it. */
interface RetryRecord {
  stage: 'simulate' | 'capture';
  trial: number;
  engineId: string | undefined;
  kind: EngineFaultKind;
  reason: string;
}

/** Per-state limits (ms) used by the machine's named delays. */
interface StateTimeouts {
  extract: number;
  convert: number;
  /** One trial, including the wait for a free engine. */
  simulate: number;
  capture: number;
  commit: number;
}

interface LevelLimits {
  /** Trials per level (evaluator `trials: 3`; stop early at 1.0). */
  maxTrials: number;
  /** Retries on another engine per trial or capture after an engine fault. */
  maxEngineRetries: number;
  timeouts: StateTimeouts;
}

export interface LevelInput {
  level: LevelRef;
  limits: LevelLimits;
}

/** The final stability result of a level: best score, counts from the last trial (evaluator bookkeeping). */
export interface LevelStability {
  score: number;
  startingObjects: number;
  movingObjects: number;
  trialsRun: number;
}

export interface LevelContext {
  level: LevelRef;
  limits: LevelLimits;
  /** The state's stage (for failure reasons of `CANCEL` and timeouts). */
  stage: LevelStage | 'queued';
  /** The trial being simulated (1-based). */
  trial: number;
  trials: TrialRecord[];
  /** Trial 1 also produced the black-on-white image (the evaluator's image run uses trial-1 order). */
  captured: boolean;
  /** Engine retries used in the current step (a trial or the capture). */
  engineRetries: number;
  /** Engines that failed this level; the next attempt avoids them. */
  failedEngines: string[];
  retries: RetryRecord[];
  /** Stages whose output already existed (a resumed run). */
  cached: LevelStage[];
  stageReached: StageReached;
  stability: LevelStability | undefined;
  failure: LevelFailure | undefined;
}

/** What a finished machine reports (its `output`). */
export interface LevelOutcome {
  level: LevelRef;
  status: 'done' | 'failed';
  stageReached: StageReached;
  stability: LevelStability | undefined;
  trials: TrialRecord[];
  retries: RetryRecord[];
  cached: LevelStage[];
  failure: LevelFailure | undefined;
}

/** Inputs of the invoked actors. */
export interface StepInput {
  level: LevelRef;
}
export interface SimulateInput {
  level: LevelRef;
  trial: number;
  /** Trial 1 captures the image in the same run (same body order as the evaluator's image run). */
  capture: boolean;
  avoidEngines: string[];
}
export interface CaptureInput {
  level: LevelRef;
  /** The image came with trial 1 and only needs writing. */
  captured: boolean;
  avoidEngines: string[];
}
export interface CommitInput {
  level: LevelRef;
  stability: LevelStability;
  trials: TrialRecord[];
}
