import type { BodyInfo, FrameBatch, SimEvent } from './frames.js';

/**
 * The one door to physics. The orchestrator uses the in-process headless engine and any remote engine
 * (a headless worker process, a Unity instance) through this interface and nothing else.
 *
 * One `run` is one trial of one level: load the XML, simulate, stream frames and events to the sink,
 * optionally capture the black-on-white image, finish. The Unity evaluator's up-to-3-trials
 * bookkeeping lives above this interface (the level machine), each trial being its own `run`.
 */
/**
 * The damage formulas an engine may apply at contact begin (bridge/headless/world.ts): `contact-point`,
 * the relative velocity at the contact points, and `body`, that of the bodies' linear velocities.
 */
export const DAMAGE_FORMULAS = ['contact-point', 'body'] as const;
export type DamageFormula = (typeof DAMAGE_FORMULAS)[number];

export interface SimulationSettings {
  /** The stability window's duration in steps: 10 s at 50 Hz = 500 (evaluator `duration: 10`); the steps it reads are bridge/window.ts's. */
  windowSteps: number;
  /** Trial number 1..3: selects the body creation order (1 = XML order, as the image run). */
  trial: number;
  damage: DamageFormula;
  /** Render the black-on-white capture (the evaluator's image pass: bound on step 501, image on step 514; bridge/window.ts). */
  capture: boolean;
  /** Also render the textured `_raw` image. */
  captureRaw: boolean;
  /** Steps per `frames` message; the engine batches to keep messages small. */
  framesPerBatch: number;
  /**
   * Robustness runs only (`simulate --robustness`): tiny variations of the kind Unity's own runs differ
   * by. Absent = the evaluator's trial exactly. Only the in-process / worker-thread headless engine
   * honours it (it is not part of the wire protocol).
   */
  perturbation?: Perturbation;
}

/** One perturbed run of a level: seeded, so the same seed gives the same run everywhere. */
export interface Perturbation {
  /** Seed of this run's creation-order shuffle and position noise. */
  seed: number;
  /** Create the bodies in a seeded shuffled order instead of the trial's order. */
  shuffleOrder: boolean;
  /** Uniform noise in [−noise, +noise] units added to every object's creation x and y (0 = none). */
  positionNoise: number;
  /** Box2D warm starting of the contact solver (the evaluator's world has it on). */
  warmStarting: boolean;
}

export interface LevelJob {
  levelId: string;
  xml: string;
  settings: SimulationSettings;
}

export interface CaptureResult {
  png: Uint8Array;
  raw?: Uint8Array;
}

/** Receives one trial's stream in order: loaded, then frames/events interleaved, then capture, then done. */
export interface LevelSink {
  loaded(bodies: BodyInfo[], dt: number): void;
  frames(batch: FrameBatch): void;
  /**
   * True when the sink only reads a batch during `frames()` and keeps no reference to it or its arrays
   * afterwards: the engine may then reuse the arrays' memory for later batches (the worker-thread
   * engine hands the buffers back to its thread, bridge/headless/frame-memory.ts). Absent: the sink
   * owns every batch it is given.
   */
  readonly borrowsFrames?: boolean;
  events(events: SimEvent[]): void;
  capture(result: CaptureResult): void;
}

export interface EngineIdentity {
  /** `headless` or `unity`. */
  kind: string;
  /** Free text: versions, host, physics settings digest. */
  description: string;
  version: string;
  /**
   * What else decides its results besides `version` (the sbeval plugin's package version in Unity,
   * whose `version` is the editor's; the physics digest of the headless engine). With `kind` and
   * `version` it is the identity a level's cached result records (orchestrator/stages/level-cache.ts).
   */
  build?: string;
}

export interface Engine {
  readonly id: string;
  readonly identity: EngineIdentity;
  /**
   * Runs the engine accepts at once (default 1). An engine with more queues them and runs them one at
   * a time in the order `run` was called (FIFO), so it can start the next trial without waiting for
   * its caller; the engine pool starts a run's watchdogs only once every run handed over before it has
   * settled. Only the worker-thread headless engine says more than 1.
   */
  readonly capacity?: number;
  /**
   * True only for an engine that runs sbeval's own rules in this process or in a worker thread of it
   * (the headless engine, bridge/headless/): a level fault it reports (`levelError`) is sbeval's
   * verdict. An engine behind a socket never has it — nothing it sends can set it — so its level
   * faults are claims the engine pool checks on another engine (orchestrator/pool/claims.ts).
   */
  readonly ownRules?: boolean;
  /** Resolves when the trial is done; rejects with the engine's error (load failure, crash, protocol). */
  run(job: LevelJob, sink: LevelSink, signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_SIMULATION: SimulationSettings = {
  windowSteps: 500,
  trial: 1,
  damage: 'contact-point',
  capture: true,
  captureRaw: false,
  framesPerBatch: 50,
};
