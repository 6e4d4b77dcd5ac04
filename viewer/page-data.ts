// What the viewer's page receives from its server, as types only: viewer/trial.ts and viewer/server.ts
// build these values, and the page's JSDoc (viewer/static/) names them, so the browser code is checked
// against the very shapes the server sends. Types only, and only of pure modules: the page's tsconfig
// checks this file with the browser's types and no Node's.
import type { EngineIdentity, SimulationSettings } from '../bridge/engine.js';
import type { BodyInfo, SimEvent } from '../bridge/frames.js';
import type { Explanation } from '../scoring/explain/types.js';

export type Path = Array<[number, number]>;

export interface ViewerBody extends BodyInfo {
  /** Collider outline(s) in the body frame (holes as further paths). */
  outline: Path[];
  /** What the evaluator's black-on-white image draws (OCR sprite for the competition blocks), in the body frame; null if not drawn. */
  draw: Path[] | null;
  /** Frames the similarity image (an ABBlock): its collider bounds count in the structure bound. */
  framesImage: boolean;
}

/**
 * The viewer's JSON for one trial (`GET /api/trial/<key>/meta`). Frames travel separately as one
 * binary body (`GET /api/trial/<key>/frames`): `stepCount × bodyCount × 6` little-endian float32
 * (x, y, angle, vx, vy, omega per body per step, bridge/frames.ts order), then `stepCount × bodyCount`
 * bytes of `alive`, then `stepCount × bodyCount` little-endian float32 displacements (per step per
 * body, from its start position: scoring/stability.ts `displacementFrom`, held from its removal on).
 * The page computes none of these numbers itself.
 */
export interface ViewerMeta {
  levelId: string;
  source: string;
  dt: number;
  /** Steps of the stream (0 … stepCount − 1): the stability tracker's count, as `level` and `explain` print it. */
  stepCount: number;
  bodyCount: number;
  /** The window's start step (start positions) and last read step (scoring/stability.ts `TrialMeasure`). */
  windowStart: number;
  windowEnd: number;
  /** The same numbers in the words every tool uses (`describeSteps`). */
  steps: string;
  settings: SimulationSettings;
  engine: EngineIdentity | null;
  bodies: ViewerBody[];
  events: SimEvent[];
  /** Ground tiles' top surface and x extent (for drawing the ground). */
  ground: { top: number; left: number; right: number };
  explanation: Explanation;
  hasCapture: boolean;
}

/** One trial of a competition folder in the session: what the folder holds of it and its scores. */
interface SessionTrial {
  /** `team/C/name`: the viewer's handle for the trial. */
  key: string;
  team: string;
  character: string;
  trial: number;
  name: string;
  hasTrace: boolean;
  /** Trial numbers of the recorded traces (`sbeval run --traces` records each trial). */
  tracedTrials: number[];
  hasLevel: boolean;
  hasImage: boolean;
  stability: { score: number; startingObjects: number | null; movingObjects: number | null } | null;
  similarity: number | null;
  /** Why the trial has no image (official wording). */
  reason: string | null;
}

/** `GET /api/session`: one trial, or a competition folder with every trial the page lists. */
export type ViewerSession =
  | { mode: 'trial'; title: string; hasReference: boolean }
  | { mode: 'competition'; title: string; hasReference: boolean; trials: SessionTrial[] };
