import { DEFAULT_SIMULATION, type SimulationSettings } from '../../bridge/engine.js';
import { type BodyInfo, FIELD_COUNT, type FrameBatch, type SimEvent } from '../../bridge/frames.js';
import { simulateTrial, type TrialImages } from '../../bridge/headless/run.js';
import type { Level, LevelObject } from '../../levels/level.js';

/** Builders and a recorder for constructed test levels (world units, ground top at y = −3.5). */
export const GROUND = -3.5;

export function level(objects: LevelObject[], width = 3): Level {
  return { width, camera: undefined, birds: ['BirdRed'], slingshot: { x: -9, y: -2.5 }, objects };
}

export function block(type: string, x: number, y: number, options: { material?: 'wood' | 'stone' | 'ice'; rotation?: number } = {}): LevelObject {
  return { kind: 'block', type, material: options.material ?? 'wood', x, y, rotation: options.rotation ?? 0 };
}

export interface Recording {
  bodies: BodyInfo[];
  dt: number;
  batches: FrameBatch[];
  events: SimEvent[];
  images: TrialImages | undefined;
  /** State field of body b at step s. */
  at(step: number, body: number, field: 'x' | 'y' | 'angle' | 'vx' | 'vy' | 'omega'): number;
  alive(step: number, body: number): boolean;
  steps: number;
}

const FIELDS = { x: 0, y: 1, angle: 2, vx: 3, vy: 4, omega: 5 } as const;

export function record(lvl: Level, settings: Partial<SimulationSettings> = {}, seed = 1): Recording {
  const batches: FrameBatch[] = [];
  const events: SimEvent[] = [];
  let bodies: BodyInfo[] = [];
  let dt = 0;
  const images = simulateTrial(
    lvl,
    seed,
    { ...DEFAULT_SIMULATION, capture: false, ...settings },
    {
      loaded(b, d) {
        bodies = b;
        dt = d;
      },
      frames(batch) {
        batches.push(batch);
      },
      events(list) {
        events.push(...list);
      },
    },
  );
  const find = (step: number) => {
    const batch = batches.find((b) => step >= b.firstStep && step < b.firstStep + b.stepCount);
    if (!batch) throw new RangeError(`step ${step} not recorded`);
    return batch;
  };
  const last = batches.at(-1);
  return {
    bodies,
    dt,
    batches,
    events,
    images,
    steps: last ? last.firstStep + last.stepCount - 1 : -1,
    at(step, body, field) {
      const batch = find(step);
      return batch.states[((step - batch.firstStep) * batch.bodyCount + body) * FIELD_COUNT + FIELDS[field]] as number;
    },
    alive(step, body) {
      const batch = find(step);
      return batch.alive[(step - batch.firstStep) * batch.bodyCount + body] === 1;
    },
  };
}
