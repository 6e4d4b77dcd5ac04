import type { BodyInfo, BodyKind, FrameBatch, SimEvent } from '../../bridge/frames.js';
import type { BodyMotion, MotionKind } from './motion.js';
import type { BodySupport, StaticIssue } from './support.js';

/** The data `explain` takes and gives (scoring/explain.ts), and the per-body working record its modules share. */

export interface ExplainInput {
  levelId?: string;
  /** Seconds per step. */
  dt: number;
  bodies: readonly BodyInfo[];
  /** The trial's batches in order, starting at step 0. */
  frames: readonly FrameBatch[];
  events: readonly SimEvent[];
  /** Steps in the stability window (`SimulationSettings.windowSteps`); later frames (the capture's) are ignored. */
  windowSteps?: number;
}

export interface ExplainOptions {
  /** Movement threshold (default 0.1, the evaluator's). */
  threshold?: number;
  /** Keep every n-th step of the displacement series in the output (default 5 = 0.1 s at 50 Hz). */
  sampleEvery?: number;
}

export type ReasonKind =
  | 'destroyed'
  | 'out-of-world'
  | 'explosion'
  | 'struck'
  | 'pushed'
  | 'support-moved'
  | 'support-destroyed'
  | 'dragged'
  | 'overlap'
  | 'overhang'
  | 'unsupported'
  | 'settled'
  | 'slid'
  | 'unknown';

export interface Reason {
  kind: ReasonKind;
  /** The other body behind it (id), or −1 for the ground. */
  cause?: number;
  /** The step of the causing event (a contact, a death, the cause's onset). */
  step?: number;
  relativeSpeed?: number;
  damage?: number;
  issue?: StaticIssue;
  text: string;
}

export interface Pose {
  x: number;
  y: number;
  angle: number;
}

export interface BodyReport {
  id: number;
  kind: BodyKind;
  type: string;
  counted: boolean;
  /** Pose on the window's start step (`Explanation.windowStart`), where its displacement is measured from. */
  start: Pose;
  /** Pose at `lastStep`, the last step the evaluator read it within the window. */
  end: Pose;
  lastStep: number;
  /** From `start` to `end`: the stability tracker's number (scoring/stability.ts `measure`), as `sbeval level` prints it. */
  finalDisplacement: number;
  maxDisplacement: number;
  onsetStep: number | null;
  crossStep: number | null;
  deathStep: number | null;
  removedStep: number | null;
  removedReason: 'death' | 'out-of-world' | null;
  /** The official verdict (scoring/stability.ts): counted and its last position is ≥ threshold from its start. */
  moved: boolean;
  motion: { kind: MotionKind; dx: number; dy: number; turn: number };
  damageTaken: number;
  /** Ids it rested on at the start (−1 = ground). */
  supporters: number[];
  /** Bodies between it and the ground along its deepest support chain. */
  depth: number;
  staticIssue: StaticIssue | null;
  reason: Reason | null;
  /** Displacement from the start, every `sampleEvery` steps (4 decimals). */
  displacement: number[];
}

export interface ContactReport {
  step: number;
  a: number;
  b: number;
  relativeSpeed: number;
}

export interface DeathReport {
  id: number;
  /** Step it died (health 0, collider off) or left the world. */
  step: number;
  cause: 'destroyed' | 'out-of-world';
  removedStep: number | null;
  damage: number;
  hits: number;
}

export type TimelineKind = 'onset' | 'cross' | 'contact' | 'destroyed' | 'removed' | 'explosion';

export interface TimelineEntry {
  step: number;
  kind: TimelineKind;
  ids: number[];
  text: string;
}

export interface Explanation {
  levelId: string | null;
  dt: number;
  /** Steps of the trial's stream (0 … streamSteps − 1), the window's start step and its last read step: scoring/stability.ts `TrialMeasure`. */
  streamSteps: number;
  windowStart: number;
  windowEnd: number;
  threshold: number;
  sampleEvery: number;
  /** Bodies counted by the stability rule (blocks, pigs, TNT). */
  counted: number;
  moving: number;
  /** The official trial score (scoring/stability.ts `trialStability`: float32 1 − moving/counted). */
  score: number;
  /** The body that started moving first, by onset; null when nothing moved. */
  firstMover: number | null;
  /** Where the first mover's chain of causes ends (itself when its reason is its own). */
  origin: number | null;
  /** Ids of bodies that passed the threshold, in the order they did. */
  failureOrder: number[];
  bodies: BodyReport[];
  contacts: ContactReport[];
  deaths: DeathReport[];
  timeline: TimelineEntry[];
  /** One sentence: what happened. */
  summary: string;
}

/** Everything known about one body while explaining (internal to scoring/explain*). */
export interface Work {
  info: BodyInfo;
  index: number;
  motion: BodyMotion;
  support: BodySupport;
  lastStep: number;
  removed: { step: number; reason: 'death' | 'out-of-world' } | undefined;
  destroyedStep: number | undefined;
  damage: number;
  hits: number;
  reason: Reason | null;
}
