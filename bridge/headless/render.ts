import type { Vec } from './geometry.js';

/**
 * The similarity image of the evaluator (`BaseSimilarityEvaluator.IE_TakeScreenshots`,
 * `Assets/ICE/Scenes/BatchSimilarityTest.unity`), drawn without a GPU:
 *
 * - the camera is centred on the structure bound (union of the ABBlocks' collider AABBs) and its
 *   orthographic half-size is max(width, height)/2, so the larger side fills the 824 × 824 render
 *   texture (1024 − 2 × 100 margin);
 * - the render lands at (100, 100) in a 1024 × 1024 RGBA texture pre-filled with the camera's white
 *   background, so a 100 px white margin surrounds it (anything outside the camera frame is cut);
 * - no anti-aliasing (the render texture has none; the reference images hold exactly two colours):
 *   a pixel takes a shape's colour when its centre lies inside the shape (even-odd over the shape's
 *   paths, so TriangleHole keeps its hole);
 * - y points up in the world and down in the PNG (Unity's textures start at the bottom row;
 *   `EncodeToPNG` writes the top row first).
 */
export const IMAGE_SIZE = 1024;
export const IMAGE_MARGIN = 100;
export const RENDER_SIZE = IMAGE_SIZE - 2 * IMAGE_MARGIN;

export interface Bound {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

export type Rgb = readonly [number, number, number];

/** One filled shape: world-space paths (even-odd) and a colour. */
export interface Shape {
  paths: Vec[][];
  colour: Rgb;
}

export const WHITE: Rgb = [255, 255, 255];
export const BLACK: Rgb = [0, 0, 0];

/** The camera of `AdjustCamera`: centre and world units per render pixel. */
export interface View {
  cx: number;
  cy: number;
  /** Render pixels per world unit. */
  scale: number;
}

export function viewOf(bound: Bound): View | undefined {
  const width = bound.maxX - bound.minX;
  const height = bound.maxY - bound.minY;
  if (!(width > 0) || !(height > 0)) return undefined;
  return { cx: (bound.minX + bound.maxX) / 2, cy: (bound.minY + bound.maxY) / 2, scale: RENDER_SIZE / Math.max(width, height) };
}

/** A white 1024 × 1024 RGBA image (Unity's Texture2D filled with the camera background). */
export function blankImage(): Uint8Array {
  return new Uint8Array(IMAGE_SIZE * IMAGE_SIZE * 4).fill(255);
}

/**
 * Draws the shapes in order (later shapes over earlier ones) through the view into a 1024 × 1024
 * RGBA buffer, clipped to the 824 × 824 render area. With no view (no block to frame) the image
 * stays white.
 */
export function renderImage(shapes: readonly Shape[], view: View | undefined): Uint8Array {
  const image = blankImage();
  if (!view) return image;
  const half = RENDER_SIZE / 2;
  for (const shape of shapes) {
    // Render-texture pixel coordinates: x right, y up, pixel (i, j) has its centre at (i + 0.5, j + 0.5).
    const paths = shape.paths.map((path) => path.map(([x, y]) => [(x - view.cx) * view.scale + half, (y - view.cy) * view.scale + half] as const));
    fillEvenOdd(paths, (px, py) => {
      const row = IMAGE_SIZE - 1 - (IMAGE_MARGIN + py);
      const o = (row * IMAGE_SIZE + IMAGE_MARGIN + px) * 4;
      image[o] = shape.colour[0];
      image[o + 1] = shape.colour[1];
      image[o + 2] = shape.colour[2];
      image[o + 3] = 255;
    });
  }
  return image;
}

/**
 * Scanline fill: calls `plot(px, py)` for every render pixel (0 ≤ px, py < 824) whose centre is
 * inside the paths by the even-odd rule. Edges are half-open in y (a centre exactly on a shared
 * horizontal edge belongs to one side only), spans half-open in x.
 */
export function fillEvenOdd(paths: ReadonlyArray<ReadonlyArray<Vec>>, plot: (px: number, py: number) => void): void {
  let minY = Number.POSITIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  for (const path of paths) {
    for (const [, y] of path) {
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
    }
  }
  const firstRow = Math.max(0, Math.ceil(minY - 0.5));
  const lastRow = Math.min(RENDER_SIZE - 1, Math.floor(maxY - 0.5));
  const crossings: number[] = [];
  for (let py = firstRow; py <= lastRow; py++) {
    const yc = py + 0.5;
    crossings.length = 0;
    for (const path of paths) {
      for (let i = 0; i < path.length; i++) {
        const [x1, y1] = path[i] as Vec;
        const [x2, y2] = path[(i + 1) % path.length] as Vec;
        if (y1 <= yc !== y2 <= yc) crossings.push(x1 + ((yc - y1) / (y2 - y1)) * (x2 - x1));
      }
    }
    crossings.sort((a, b) => a - b);
    for (let k = 0; k + 1 < crossings.length; k += 2) {
      const from = Math.max(0, Math.ceil((crossings[k] as number) - 0.5));
      const to = Math.min(RENDER_SIZE, Math.ceil((crossings[k + 1] as number) - 0.5));
      for (let px = from; px < to; px++) plot(px, py);
    }
  }
}

/** Union of axis-aligned bounds of point sets; undefined when empty. */
export function boundOf(pointSets: ReadonlyArray<ReadonlyArray<Vec>>): Bound | undefined {
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  for (const points of pointSets) {
    for (const [x, y] of points) {
      if (x < minX) minX = x;
      if (y < minY) minY = y;
      if (x > maxX) maxX = x;
      if (y > maxY) maxY = y;
    }
  }
  return minX <= maxX ? { minX, minY, maxX, maxY } : undefined;
}

/**
 * Flat colours of the `_raw` image (the evaluator draws the textured sprites there; a flat colour per
 * material or object is enough to see what the structure looked like before the OCR swap).
 */
export const RAW_COLOURS: Readonly<Record<string, Rgb>> = {
  wood: [190, 135, 75],
  stone: [130, 130, 135],
  ice: [150, 205, 240],
  tnt: [205, 45, 35],
  pig: [110, 190, 60],
};
