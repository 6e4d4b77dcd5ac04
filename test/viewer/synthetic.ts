import { type BodyInfo, type BodyKind, FIELD_COUNT, type FrameBatch } from '../../bridge/frames.js';

/**
 * Hand-made frame streams for the explain tests: each body's pose is a function of the step, so a
 * test states exactly what happens (which block tips when) and checks that `explain` reads it back.
 */
export type Pose = readonly [x: number, y: number, angle: number];

export interface SynthBody {
  type: string;
  kind?: BodyKind;
  pose: (step: number) => Pose;
  /** Defaults to alive at every step. */
  alive?: (step: number) => boolean;
}

export function bodyInfos(bodies: readonly SynthBody[]): BodyInfo[] {
  return bodies.map((b, id) => {
    const [x, y, angle] = b.pose(0);
    const kind = b.kind ?? 'block';
    return { id, kind, type: b.type, material: kind === 'block' ? 'wood' : undefined, counted: kind !== 'platform', x, y, angle };
  });
}

/** Frames for steps 0..steps (inclusive), in batches of `perBatch`; velocities by finite difference. */
export function synthFrames(bodies: readonly SynthBody[], steps: number, perBatch = 50, dt = 0.02): FrameBatch[] {
  const batches: FrameBatch[] = [];
  const n = bodies.length;
  for (let first = 0; first <= steps; first += perBatch) {
    const count = Math.min(perBatch, steps + 1 - first);
    const states = new Float32Array(count * n * FIELD_COUNT);
    const alive = new Uint8Array(count * n);
    for (let s = 0; s < count; s++) {
      const step = first + s;
      bodies.forEach((b, i) => {
        const [x, y, a] = b.pose(step);
        const [px, py, pa] = b.pose(Math.max(0, step - 1));
        states.set([x, y, a, (x - px) / dt, (y - py) / dt, (a - pa) / dt], (s * n + i) * FIELD_COUNT);
        alive[s * n + i] = (b.alive?.(step) ?? true) ? 1 : 0;
      });
    }
    batches.push({ firstStep: first, stepCount: count, bodyCount: n, states, alive });
  }
  return batches;
}

/** Still until `from`, then moving linearly by (vx, vy, omega) per step. */
export function movesFrom(start: Pose, from: number, perStep: Pose): (step: number) => Pose {
  return (step) => {
    const k = Math.max(0, step - from);
    return [start[0] + perStep[0] * k, start[1] + perStep[1] * k, start[2] + perStep[2] * k];
  };
}

export const still = (pose: Pose) => (): Pose => pose;
