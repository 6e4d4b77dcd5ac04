import type { Level } from '../../levels/level.js';
import type { SimulationSettings } from '../engine.js';
import { type BodyInfo, FIELD_COUNT, type FrameBatch, type SimEvent } from '../frames.js';
import { evaluatorWindow, stepsToSimulate } from '../window.js';
import { CostMeter, SIMULATION_BUDGET, type SimulationBudget } from './budget.js';
import { FRESH_FRAME_MEMORY, type FrameMemory } from './frame-memory.js';
import { transformPoints, type Vec } from './geometry.js';
import { fnv1a } from './order.js';
import { BLACK, type Bound, boundOf, type MaskImage, RAW_COLOURS, type RgbImage, renderMask, renderRgb, type Shape, viewOf } from './render.js';
import { LevelWorld } from './world.js';

/**
 * One trial of one level, synchronously: creates the world, streams every step's frame (step 0 = right
 * after creation) and the events to `out`, and renders the images the evaluator would save. The
 * stream is produced whether or not anyone keeps it: stability, traces and the viewer all read it.
 */
export interface TrialStream {
  loaded(bodies: BodyInfo[], dt: number): void;
  frames(batch: FrameBatch): void;
  events(events: SimEvent[]): void;
}

export interface TrialImages {
  /** 1024 × 1024, the black-on-white capture. */
  image: MaskImage;
  /** 1024 × 1024 flat-colour rendering taken 7 frames before the capture (the `_raw` image). */
  raw?: RgbImage;
  /** The structure bound the camera framed (undefined: no block alive, white image). */
  bound: Bound | undefined;
}

/** Seed of a level's trial shuffles: its XML text, so the same file behaves the same anywhere. */
export function levelSeed(xml: string): number {
  return fnv1a(xml);
}

/** How a trial is computed (never what it gives): the exact shortcuts can be turned off to compare. */
export interface TrialRunOptions {
  /**
   * Stop stepping once the world rests (`LevelWorld.isResting`: every body asleep, nothing dying) and
   * repeat its last frame for the remaining steps: the same frames, events and images as stepping on,
   * for much less work (most levels rest within 1–3 s of the 10.3 s). Default true. A resting step
   * costs 0 in the simulation budget (budget.ts: no awake dynamic body), so skipping its charge
   * changes no budget verdict.
   */
  stopWhenResting?: boolean;
  /** Where frame batches get their arrays (default: new ones per batch; frame-memory.ts). */
  frameMemory?: FrameMemory;
}

/**
 * Throws `SimulationBudgetError` (budget.ts) before a step that would take the trial over `budget`;
 * the frames and events streamed up to then are the trial's beginning, and the trial has no result.
 */
export function simulateTrial(
  level: Level,
  seed: number,
  settings: SimulationSettings,
  out: TrialStream,
  shouldStop?: () => boolean,
  budget: SimulationBudget = SIMULATION_BUDGET,
  options: TrialRunOptions = {},
): TrialImages | undefined {
  const stopWhenResting = options.stopWhenResting ?? true;
  const world = new LevelWorld(level, { trial: settings.trial, damage: settings.damage, seed, perturbation: settings.perturbation });
  const meter = new CostMeter(budget);
  const bodyCount = world.bodies.length;
  out.loaded(world.bodies, world.dt);

  // The evaluator's timing (bridge/window.ts): frames up to the window's end, or to the image step.
  const window = evaluatorWindow(settings.windowSteps);
  const totalSteps = stepsToSimulate(settings);
  const perBatch = Math.max(1, Math.floor(settings.framesPerBatch));
  let batchFirst = 0;
  let batchSteps = Math.min(perBatch, totalSteps + 1);
  const memory = options.frameMemory ?? FRESH_FRAME_MEMORY;
  let { states, alive } = memory.take(batchSteps * bodyCount * FIELD_COUNT, batchSteps * bodyCount);
  let pending: SimEvent[] = [];
  let bound: Bound | undefined;
  let raw: RgbImage | undefined;
  let image: MaskImage | undefined;

  /** Records step `step`'s frame; `repeat`: the world was not stepped since the previous frame, which is in this batch. */
  const record = (step: number, repeat = false): void => {
    const s = step - batchFirst;
    if (repeat && s > 0) {
      // The same values writeFrame would write again (nothing moved, nothing died), copied at once.
      const frame = bodyCount * FIELD_COUNT;
      states.copyWithin(s * frame, (s - 1) * frame, s * frame);
      alive.copyWithin(s * bodyCount, (s - 1) * bodyCount, s * bodyCount);
    } else {
      world.writeFrame(states, s * bodyCount * FIELD_COUNT, alive, s * bodyCount);
    }
    if (s + 1 === batchSteps) {
      if (pending.length > 0) out.events(pending);
      pending = [];
      out.frames({ firstStep: batchFirst, stepCount: batchSteps, bodyCount, states, alive });
      batchFirst = step + 1;
      batchSteps = Math.min(perBatch, totalSteps + 1 - batchFirst);
      if (batchSteps > 0) ({ states, alive } = memory.take(batchSteps * bodyCount * FIELD_COUNT, batchSteps * bodyCount));
    }
  };

  const captureAt = (step: number): void => {
    if (!settings.capture) return;
    if (step === window.boundStep) bound = structureBound(world);
    if (settings.captureRaw && step === window.rawStep) raw = renderRgb(rawShapes(world), bound && viewOf(bound));
    if (step === window.imageStep) image = renderMask(ocrShapes(world), bound && viewOf(bound));
  };

  record(0);
  captureAt(0);
  let resting = false;
  for (let step = 1; step <= totalSteps; step++) {
    if (shouldStop?.()) return undefined;
    const stepped = !resting;
    if (stepped) {
      meter.charge(step, world.workload());
      const events = world.advance();
      for (const e of events) pending.push(e);
      resting = stopWhenResting && world.isResting();
    }
    // A resting world is not stepped: its frame (and anything rendered from it) is the last one again.
    record(step, !stepped);
    captureAt(step);
  }
  if (!settings.capture || !image) return undefined;
  return raw ? { image, raw, bound } : { image, bound };
}

/** `GetStructureBound`: union of the live ABBlocks' collider bounds (collider cores, no skin). */
function structureBound(world: LevelWorld): Bound | undefined {
  const sets: Vec[][] = [];
  for (const o of world.liveObjects()) {
    if (!o.plan.framesImage) continue;
    sets.push(transformPoints(o.plan.outline[0] as Vec[], o.x, o.y, o.angle));
  }
  return boundOf(sets);
}

/** After `AdjustBlocks`: OCR types black at their OCR sprite size, other layer-10 objects black at their sprite/collider shape; dead objects are invisible. Each shape's world-space paths (all black). */
function ocrShapes(world: LevelWorld): Vec[][][] {
  const shapes: Vec[][][] = [];
  for (const o of world.liveObjects()) {
    if (!o.plan.draw) continue;
    shapes.push(o.plan.draw.paths.map((p) => transformPoints(p, o.x, o.y, o.angle)));
  }
  return shapes;
}

/** The `_raw` image before the OCR swap: textured sprites, here a flat colour per material / object (see RAW_COLOURS). */
function rawShapes(world: LevelWorld): Shape[] {
  const shapes: Shape[] = [];
  for (const o of world.liveObjects()) {
    if (!o.plan.draw) continue;
    const colour = RAW_COLOURS[o.plan.material ?? o.plan.kind] ?? BLACK;
    const paths = o.plan.kind === 'block' ? o.plan.outline : o.plan.draw.paths;
    shapes.push({ paths: paths.map((p) => transformPoints(p, o.x, o.y, o.angle)), colour });
  }
  return shapes;
}
