/**
 * The frame stream: what every engine (headless or Unity) reports about a level while it simulates.
 * Stability, traces, `explain` and the viewer all read this one representation.
 *
 * Precision: states are float32, the precision of Unity's own Box2D; the headless engine (float64
 * inside) rounds to float32 when it emits, so in-process and over-the-socket results are identical.
 */

/** Per body and step, in this order. `angle` is radians CCW; velocities are units/s and rad/s. */
const STATE_FIELDS = ['x', 'y', 'angle', 'vx', 'vy', 'omega'] as const;
export const FIELD_COUNT = STATE_FIELDS.length;

export type BodyKind = 'block' | 'pig' | 'tnt' | 'platform';

/** One simulated object, as announced in `loaded`. `id` is its index in XML order among objects. */
export interface BodyInfo {
  id: number;
  kind: BodyKind;
  type: string;
  material: string | undefined;
  /** Counted by the stability rule (blocks, pigs, TNT — not platforms). */
  counted: boolean;
  x: number;
  y: number;
  angle: number;
}

/**
 * Consecutive physics steps. Step 0 is the state right after the level was created (before any
 * physics step); step k is the state after k steps of `dt`.
 * `states[(s * bodyCount + b) * FIELD_COUNT + f]` is field f of body b at step `firstStep + s`;
 * `alive[s * bodyCount + b]` is 1 while the body exists with its collider on, 0 once it died
 * (collider off) or was removed. Bodies are in `loaded` order.
 */
export interface FrameBatch {
  firstStep: number;
  stepCount: number;
  bodyCount: number;
  states: Float32Array;
  alive: Uint8Array;
}

/** Things that happen between steps; `step` is the step during which they happened (1-based). */
export type SimEvent =
  /** A contact began (Unity OnCollisionEnter2D); `b` is -1 for the ground, -2 for other static colliders. */
  | { kind: 'contact'; step: number; a: number; b: number; relativeSpeed: number }
  /** An object lost health (`ABGameObject.DealDamage`). */
  | { kind: 'damage'; step: number; id: number; amount: number; health: number }
  /** Health reached 0: velocity zeroed, collider off, still falling (`ABBlock.Die`). */
  | { kind: 'destroyed'; step: number; id: number }
  /** The GameObject is gone (0.5 s after death, or out of the world). */
  | { kind: 'removed'; step: number; id: number; reason: 'death' | 'out-of-world' }
  /** TNT exploded at (x, y). */
  | { kind: 'explosion'; step: number; id: number; x: number; y: number };
