import { transformPoints, type Vec } from '../../bridge/headless/geometry.js';
import { loadLevel } from '../../bridge/headless/load-level.js';
import { planObjects } from '../../bridge/headless/objects.js';
import { encodeMaskPng } from '../../bridge/headless/png.js';
import { boundOf, renderMask, viewOf } from '../../bridge/headless/render.js';

/**
 * The starting state of a level (t = 0, as dropped, before any physics step) drawn exactly as the
 * evaluator draws its final image (bridge/headless/render.ts): every layer-10 object black at its
 * image shape, framed on the blocks' collider bounds, 1024 × 1024 with the 100 px margin. Side by side
 * with the final image, a rater sees what physics did.
 */
export async function startImagePng(xml: string): Promise<Uint8Array> {
  const plans = planObjects(loadLevel(xml));
  const bound = boundOf(plans.filter((p) => p.framesImage).map((p) => transformPoints(p.outline[0] as Vec[], p.x, p.y, p.angle)));
  const shapes = plans.filter((p) => p.draw).map((p) => p.draw!.paths.map((path) => transformPoints(path, p.x, p.y, p.angle)));
  return encodeMaskPng(renderMask(shapes, bound && viewOf(bound)));
}
