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
const IMAGE_MARGIN = 100;
const RENDER_SIZE = IMAGE_SIZE - 2 * IMAGE_MARGIN;

export interface Bound {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

type Rgb = readonly [number, number, number];

/** One filled shape of the `_raw` image: world-space paths (even-odd) and a colour. */
export interface Shape {
  paths: Vec[][];
  colour: Rgb;
}

export const BLACK: Rgb = [0, 0, 0];

/** The camera of `AdjustCamera`: centre and world units per render pixel. */
interface View {
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

/**
 * The black-on-white capture as it is stored: a 1-bit greyscale image in PNG scanline layout (per
 * row one filter byte 0, then one bit per pixel, most significant bit first, 1 = white), so the PNG
 * encoder only deflates it (png.ts). The reference images hold exactly two colours (black and white),
 * and a 1-bit grey PNG decodes to the same RGB pixels as Unity's 8-bit RGBA one (test/headless/
 * render.test.ts checks it through the similarity stage's decoder).
 */
export interface MaskImage {
  width: number;
  height: number;
  /** Bytes per row including the filter byte: 1 + width / 8. */
  rowBytes: number;
  scanlines: Uint8Array;
}

/** An RGB 8-bit image in PNG scanline layout (filter byte 0, then R, G, B per pixel): the `_raw` image. */
export interface RgbImage {
  width: number;
  height: number;
  rowBytes: number;
  scanlines: Uint8Array;
}

/** A white 1024 × 1024 mask (Unity's Texture2D filled with the camera background). */
function blankMask(): MaskImage {
  const rowBytes = 1 + IMAGE_SIZE / 8;
  const scanlines = new Uint8Array(rowBytes * IMAGE_SIZE).fill(0xff);
  for (let row = 0; row < IMAGE_SIZE; row++) scanlines[row * rowBytes] = 0;
  return { width: IMAGE_SIZE, height: IMAGE_SIZE, rowBytes, scanlines };
}

/** Black (0) or white (255) at image pixel (x, y), y down as in the PNG. */
export function maskPixel(mask: MaskImage, x: number, y: number): 0 | 255 {
  const byte = mask.scanlines[y * mask.rowBytes + 1 + (x >> 3)] as number;
  return (byte >> (7 - (x & 7))) & 1 ? 255 : 0;
}

/** The mask as 8-bit RGBA (tests, comparisons with RGBA images). */
export function maskToRgba(mask: MaskImage): Uint8Array {
  const out = new Uint8Array(mask.width * mask.height * 4);
  for (let y = 0; y < mask.height; y++) {
    for (let x = 0; x < mask.width; x++) {
      const v = maskPixel(mask, x, y);
      const o = (y * mask.width + x) * 4;
      out[o] = out[o + 1] = out[o + 2] = v;
      out[o + 3] = 255;
    }
  }
  return out;
}

/** Clears (blackens) image pixels [x0, x1) of one image row. */
function blackenSpan(mask: MaskImage, row: number, x0: number, x1: number): void {
  const base = row * mask.rowBytes + 1;
  const bytes = mask.scanlines;
  let x = x0;
  // Leading partial byte, whole bytes, trailing partial byte.
  while (x < x1 && (x & 7) !== 0) {
    bytes[base + (x >> 3)]! &= ~(0x80 >> (x & 7));
    x++;
  }
  if (x + 8 <= x1) {
    bytes.fill(0, base + (x >> 3), base + (x1 >> 3));
    x = x1 & ~7;
  }
  while (x < x1) {
    bytes[base + (x >> 3)]! &= ~(0x80 >> (x & 7));
    x++;
  }
}

/** Render-texture paths of a shape: x right, y up, pixel (i, j) has its centre at (i + 0.5, j + 0.5). */
function toRenderPaths(paths: readonly Vec[][], view: View): Vec[][] {
  const half = RENDER_SIZE / 2;
  return paths.map((path) => path.map(([x, y]) => [(x - view.cx) * view.scale + half, (y - view.cy) * view.scale + half] as const));
}

/**
 * Draws black shapes through the view into a white 1024 × 1024 mask, clipped to the 824 × 824
 * render area. With no view (no block to frame) the image stays white. All shapes are black, so
 * their order does not matter: the image is the union of the shapes (each filled even-odd).
 */
export function renderMask(shapes: ReadonlyArray<readonly Vec[][]>, view: View | undefined): MaskImage {
  const mask = blankMask();
  if (!view) return mask;
  for (const paths of shapes) {
    fillSpans(toRenderPaths(paths, view), (py, from, to) => blackenSpan(mask, IMAGE_SIZE - 1 - (IMAGE_MARGIN + py), IMAGE_MARGIN + from, IMAGE_MARGIN + to));
  }
  return mask;
}

/**
 * Draws the shapes in order (later shapes over earlier ones) through the view into a white
 * 1024 × 1024 RGB image, clipped to the 824 × 824 render area (the `_raw` image).
 */
export function renderRgb(shapes: readonly Shape[], view: View | undefined): RgbImage {
  const rowBytes = 1 + IMAGE_SIZE * 3;
  const scanlines = new Uint8Array(rowBytes * IMAGE_SIZE).fill(255);
  for (let row = 0; row < IMAGE_SIZE; row++) scanlines[row * rowBytes] = 0;
  const image = { width: IMAGE_SIZE, height: IMAGE_SIZE, rowBytes, scanlines };
  if (!view) return image;
  for (const shape of shapes) {
    const [r, g, b] = shape.colour;
    fillSpans(toRenderPaths(shape.paths, view), (py, from, to) => {
      const row = IMAGE_SIZE - 1 - (IMAGE_MARGIN + py);
      for (let px = from; px < to; px++) {
        const o = row * rowBytes + 1 + (IMAGE_MARGIN + px) * 3;
        scanlines[o] = r;
        scanlines[o + 1] = g;
        scanlines[o + 2] = b;
      }
    });
  }
  return image;
}

/**
 * Scanline fill: calls `span(py, from, to)` for every run of render pixels [from, to) of row py
 * (0 ≤ px, py < 824) whose centres are inside the paths by the even-odd rule. Edges are half-open in
 * y (a centre exactly on a shared horizontal edge belongs to one side only), spans half-open in x.
 */
function fillSpans(paths: ReadonlyArray<ReadonlyArray<Vec>>, span: (py: number, from: number, to: number) => void): void {
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
  // One scratch array for every row and call: a `number[]` emptied per row reallocated its backing
  // store each time (half of the engine's allocated bytes in a heap-sampling profile of the bench mix).
  let count = 0;
  for (let py = firstRow; py <= lastRow; py++) {
    const yc = py + 0.5;
    count = 0;
    for (const path of paths) {
      const n = path.length;
      for (let i = 0; i < n; i++) {
        const p1 = path[i] as Vec;
        const p2 = path[i + 1 === n ? 0 : i + 1] as Vec;
        const y1 = p1[1];
        const y2 = p2[1];
        if (y1 <= yc !== y2 <= yc) {
          const x1 = p1[0];
          // Insertion in order (a row crosses a few edges; no comparator calls).
          const x = x1 + ((yc - y1) / (y2 - y1)) * (p2[0] - x1);
          if (count === crossings.length) crossings = growCrossings(crossings);
          let k = count++;
          while (k > 0 && (crossings[k - 1] as number) > x) {
            crossings[k] = crossings[k - 1] as number;
            k--;
          }
          crossings[k] = x;
        }
      }
    }
    for (let k = 0; k + 1 < count; k += 2) {
      const from = Math.max(0, Math.ceil((crossings[k] as number) - 0.5));
      const to = Math.min(RENDER_SIZE, Math.ceil((crossings[k + 1] as number) - 0.5));
      if (from < to) span(py, from, to);
    }
  }
}

/** The rows' edge crossings (x), reused by every fillSpans call; doubled when a row crosses more edges. */
let crossings: Float64Array = new Float64Array(64);

function growCrossings(old: Float64Array): Float64Array {
  const grown = new Float64Array(old.length * 2);
  grown.set(old);
  return grown;
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
