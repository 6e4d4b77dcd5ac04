import type { Level } from '../../levels/level.js';
import { FIELD_COUNT } from '../frames.js';
import { transformPoints, type Vec } from './geometry.js';
import { planObjects } from './objects.js';
import { boundOf, type MaskImage, renderMask, viewOf } from './render.js';

/** One step of a frame stream: every body's state (x, y, angle, … per body) and alive flag. */
export interface FrameRow {
  states: Float32Array;
  alive: Uint8Array;
}

/**
 * The black-on-white capture drawn from a frame stream instead of a world: the structure bound from
 * the live blocks at the window's bound step, the live layer-10 objects at its image step, drawn as the
 * headless engine draws its own capture (run.ts `structureBound`, `ocrShapes`; render.ts). What any
 * engine's capture must show, given the final state it streamed. Throws when the level's objects cannot
 * be planned (then no engine could draw it either).
 */
export function renderFrameImage(level: Level, bound: FrameRow, image: FrameRow): MaskImage {
  const plans = planObjects(level);
  const pose = (row: FrameRow, id: number) => {
    const o = id * FIELD_COUNT;
    return { x: row.states[o] as number, y: row.states[o + 1] as number, angle: row.states[o + 2] as number };
  };
  const outlines: Vec[][] = [];
  for (const plan of plans) {
    if (!plan.framesImage || bound.alive[plan.id] !== 1) continue;
    const p = pose(bound, plan.id);
    outlines.push(transformPoints(plan.outline[0] as Vec[], p.x, p.y, p.angle));
  }
  const shapes: Vec[][][] = [];
  for (const plan of plans) {
    if (!plan.draw || image.alive[plan.id] !== 1) continue;
    const p = pose(image, plan.id);
    shapes.push(plan.draw.paths.map((path) => transformPoints(path, p.x, p.y, p.angle)));
  }
  const b = boundOf(outlines);
  return renderMask(shapes, b && viewOf(b));
}
