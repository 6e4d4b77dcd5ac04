// Pure geometry of the viewer: world ↔ pixel, step ↔ time ↔ position on the time axis, chart ticks.
// No DOM here, so every function is unit-tested in Node (test/viewer/geometry.test.ts).
// Types: the JSDoc below (viewer/static/tsconfig.json checks this file).

/** @typedef {{ scale: number, ox: number, oy: number }} View */
/** @typedef {{ minX: number, maxX: number, minY: number, maxY: number }} Bounds */
/** @typedef {[number, number]} Point */
/** @typedef {ReadonlyArray<readonly [number, number]>} Path */

/** The evaluator's image: 1024 px with a 100 px margin, the structure's larger side filling 824 px
 * (BaseSimilarityEvaluator: RenderTexture 824×824 pasted at (100, 100); reference/science-birds-evaluator.md §5). */
const EVALUATOR_IMAGE = 1024;
const EVALUATOR_RENDER = 824;

/**
 * A view maps world (x, y; y up) to canvas pixels (y down): px = ox + x·scale, py = oy − y·scale.
 * @param {View} view
 * @param {number} x
 * @param {number} y
 * @returns {Point}
 */
export function worldToPixel(view, x, y) {
  return [view.ox + x * view.scale, view.oy - y * view.scale];
}

/**
 * @param {View} view
 * @param {number} px
 * @param {number} py
 * @returns {Point}
 */
export function pixelToWorld(view, px, py) {
  return [(px - view.ox) / view.scale, (view.oy - py) / view.scale];
}

/**
 * Fits a world box into a width × height canvas with `margin` px on every side, centred, same scale on both axes.
 * @param {Bounds} bounds
 * @param {number} width
 * @param {number} height
 * @param {number} margin
 * @returns {View}
 */
export function fitView(bounds, width, height, margin) {
  const w = Math.max(bounds.maxX - bounds.minX, 1e-6);
  const h = Math.max(bounds.maxY - bounds.minY, 1e-6);
  const scale = Math.min((width - 2 * margin) / w, (height - 2 * margin) / h);
  const cx = (bounds.minX + bounds.maxX) / 2;
  const cy = (bounds.minY + bounds.maxY) / 2;
  return { scale, ox: width / 2 - cx * scale, oy: height / 2 + cy * scale };
}

/**
 * The evaluator's camera on a `size` px square canvas: centred on the bound, its larger side = 824/1024 of the canvas.
 * @param {Bounds} bound
 * @param {number} size
 * @returns {View}
 */
export function evaluatorView(bound, size) {
  const side = Math.max(bound.maxX - bound.minX, bound.maxY - bound.minY, 1e-6);
  const scale = (size * (EVALUATOR_RENDER / EVALUATOR_IMAGE)) / side;
  const cx = (bound.minX + bound.maxX) / 2;
  const cy = (bound.minY + bound.maxY) / 2;
  return { scale, ox: size / 2 - cx * scale, oy: size / 2 + cy * scale };
}

/**
 * A body-frame path placed at (x, y) turned by `angle` radians CCW.
 * @param {Path} path
 * @param {number} x
 * @param {number} y
 * @param {number} angle
 * @returns {Point[]}
 */
export function placePath(path, x, y, angle) {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  return path.map(([px, py]) => /** @type {Point} */ ([x + c * px - s * py, y + s * px + c * py]));
}

/**
 * Bounding box of point sets; undefined when there is no point.
 * @param {ReadonlyArray<Path>} pointSets
 * @returns {Bounds | undefined}
 */
export function boundsOf(pointSets) {
  let minX = Infinity;
  let maxX = -Infinity;
  let minY = Infinity;
  let maxY = -Infinity;
  for (const points of pointSets) {
    for (const [x, y] of points) {
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
  }
  return minX <= maxX ? { minX, maxX, minY, maxY } : undefined;
}

/**
 * @param {number} step
 * @param {number} dt
 */
export function stepToTime(step, dt) {
  return step * dt;
}

/**
 * Position of a step on a time axis of `width` px starting at x0 (step 0 at x0, the last step at x0 + width).
 * @param {number} step
 * @param {number} stepCount
 * @param {number} x0
 * @param {number} width
 */
export function stepToX(step, stepCount, x0, width) {
  return stepCount <= 1 ? x0 : x0 + (width * step) / (stepCount - 1);
}

/**
 * The step nearest to an x position on that axis, clamped to the steps that exist.
 * @param {number} x
 * @param {number} stepCount
 * @param {number} x0
 * @param {number} width
 */
export function xToStep(x, stepCount, x0, width) {
  if (stepCount <= 1 || width <= 0) return 0;
  const s = Math.round(((x - x0) / width) * (stepCount - 1));
  return Math.min(stepCount - 1, Math.max(0, s));
}

/**
 * Value → y on a chart of `height` px whose top is y0 and which shows 0..max (values above max clamp to the top).
 * @param {number} value
 * @param {number} max
 * @param {number} y0
 * @param {number} height
 */
export function valueToY(value, max, y0, height) {
  const v = Math.min(Math.max(value, 0), max);
  return y0 + height - (v / max) * height;
}

/**
 * A "nice" tick interval (1, 2 or 5 × 10^k) so that labels over `range` drawn on `pixels` px are at least
 * `minSpacing` px apart (Playwright's timeline does the same for its dividers).
 * @param {number} range
 * @param {number} pixels
 * @param {number} minSpacing
 */
export function niceInterval(range, pixels, minSpacing) {
  if (!(range > 0) || !(pixels > 0)) return 1;
  const raw = (range * minSpacing) / pixels;
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw - 1e-12) return m * power;
  return 10 * power;
}

/**
 * Tick values from min to max on a nice interval.
 * @param {number} min
 * @param {number} max
 * @param {number} pixels
 * @param {number} minSpacing
 * @returns {number[]}
 */
export function ticks(min, max, pixels, minSpacing) {
  const interval = niceInterval(max - min, pixels, minSpacing);
  const out = [];
  const first = Math.ceil(min / interval - 1e-9) * interval;
  // `|| 0` turns -0 (from rounding a tiny negative) into 0.
  for (let v = first; v <= max + 1e-9; v += interval) out.push(Math.round(v / interval) * interval || 0);
  return out;
}

/**
 * Whether (x, y) is inside a shape made of closed paths, by the even-odd rule (holes are paths too).
 * @param {ReadonlyArray<Path>} paths
 * @param {number} x
 * @param {number} y
 */
export function pointInPaths(paths, x, y) {
  let inside = false;
  for (const path of paths) {
    for (let i = 0, j = path.length - 1; i < path.length; j = i++) {
      const [xi, yi] = path[i];
      const [xj, yj] = path[j];
      if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
    }
  }
  return inside;
}

/**
 * The body under a world point: the last one drawn (drawn on top) whose placed outline holds the point,
 * or -1. `shapes[i]` is body i's outline paths already placed at its current pose, or null when hidden.
 * @param {ReadonlyArray<ReadonlyArray<Path> | null>} shapes
 * @param {number} x
 * @param {number} y
 */
export function pickBody(shapes, x, y) {
  for (let i = shapes.length - 1; i >= 0; i--) {
    const shape = shapes[i];
    if (shape && pointInPaths(shape, x, y)) return i;
  }
  return -1;
}

/**
 * Block-number font size in px for a view: about a third of a grid unit, readable from 9 to 14 px.
 * @param {number} scale
 */
export function labelFontSize(scale) {
  return Math.max(9, Math.min(14, Math.round(scale * 0.3)));
}
