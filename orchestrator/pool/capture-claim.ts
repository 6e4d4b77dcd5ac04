import type { CaptureResult } from '../../bridge/engine.js';
import { renderFrameImage, type FrameRow } from '../../bridge/headless/frame-image.js';
import { encodeMaskPng, encodeRgbPng } from '../../bridge/headless/png.js';
import { IMAGE_SIZE, maskPixel, type MaskImage } from '../../bridge/headless/render.js';
import type { Level } from '../../levels/level.js';
import { decodePngToRgb, MAX_INPUT_PIXELS } from '../../scoring/similarity/decode.js';
import { decodeGreyPng } from '../../scoring/similarity/png-grey.js';
import type { Image8 } from '../../scoring/similarity/pil-resample.js';

/**
 * An engine's image is a claim too ("no engine decides alone", docs/engines-and-claims.md). For an
 * engine without sbeval's own rules, the capture is decoded the way the similarity stage reads it
 * (scoring/similarity/decode.ts, PIL's `convert("RGB")`) and compared with the image sbeval draws from
 * the final state that engine streamed (bridge/headless/frame-image.ts): they must agree but for
 * `CAPTURE_TOLERANCE` of their black pixels. What is kept is not the engine's file but the decoded
 * pixels encoded again by sbeval (png.ts: no ancillary chunk, no metadata, the same bytes for the same
 * pixels whichever engine drew them).
 */

/**
 * Largest capture accepted, in bytes: a 1024² 8-bit RGBA PNG stored without compression is 4 MiB of
 * pixels plus 1,024 filter bytes and the zlib and chunk framing; 8 MiB leaves room for any honest
 * encoder and refuses a capture that is mostly padding.
 */
const MAX_CAPTURE_BYTES = 8 * 1024 * 1024;

/**
 * Pixels that may differ between an honest capture and the image drawn from the streamed final state,
 * as a share of the pixels black in either (1 − IoU of the black pixels). Measured (the 90 reference
 * levels, `calibration/reference-levels`): the headless engine's own captures against the drawing from
 * their float32 frames differ by at most 4 × 10⁻⁶ (one pixel; 87 of 90 identical); the Unity
 * evaluator's images against the headless engine's on the levels it found stable — the same state up
 * to settling, drawn by the GPU — by at most 0.0083 (IoU ≥ 0.9917, shared/reference headless-fidelity
 * and `sbeval unity calibrate`'s `minStableIou`). One reference level's capture given for the next
 * level's frames differs by at least 0.21 (median 0.87). 0.05 is six times the largest honest
 * difference and a quarter of the smallest swap.
 */
const CAPTURE_TOLERANCE = 0.05;

type CaptureVerdict = { ok: true; result: CaptureResult } | { ok: false; reason: string };

/** Share of pixels black in exactly one of the two images among those black in either (0 when both are white). */
function blackDisagreement(capture: Image8, drawn: MaskImage): number {
  let differ = 0;
  let either = 0;
  const { data, channels } = capture;
  for (let y = 0; y < IMAGE_SIZE; y++) {
    for (let x = 0; x < IMAGE_SIZE; x++) {
      const a = (data[(y * IMAGE_SIZE + x) * channels] as number) < 128;
      const b = maskPixel(drawn, x, y) === 0;
      if (a !== b) differ++;
      if (a || b) either++;
    }
  }
  return either === 0 ? 0 : differ / either;
}

/** The decoded pixels as sbeval encodes an image: a 1-bit mask when they are black and white only, else 8-bit RGB. */
function encodeAgain(image: Image8): Uint8Array {
  const { width, height, data, channels } = image;
  const twoTone = (() => {
    for (let i = 0; i < data.length; i++) if (data[i] !== 0 && data[i] !== 255) return false;
    for (let i = 0; i < data.length; i += channels) if (data[i] !== data[i + 1] || data[i] !== data[i + 2]) return false;
    return true;
  })();
  if (twoTone && width % 8 === 0) {
    const rowBytes = 1 + width / 8;
    const scanlines = new Uint8Array(rowBytes * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) if (data[(y * width + x) * channels] === 255) scanlines[y * rowBytes + 1 + (x >> 3)]! |= 0x80 >> (x & 7);
    }
    return encodeMaskPng({ width, height, rowBytes, scanlines });
  }
  const rowBytes = 1 + width * 3;
  const scanlines = new Uint8Array(rowBytes * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const from = (y * width + x) * channels;
      const to = y * rowBytes + 1 + x * 3;
      scanlines[to] = data[from] as number;
      scanlines[to + 1] = data[from + 1] as number;
      scanlines[to + 2] = data[from + 2] as number;
    }
  }
  return encodeRgbPng({ width, height, rowBytes, scanlines });
}

/**
 * Decodes as the similarity stage does (decode.ts `decodePngForModel`: plain grey PNGs, sbeval's own
 * 1-bit captures among them, without libvips, whose first use in a process costs half a second),
 * with R = G = B for grey images (three channels always).
 */
async function decode(png: Uint8Array): Promise<Image8> {
  const image = decodeGreyPng(png, MAX_INPUT_PIXELS) ?? (await decodePngToRgb(png));
  if (image.channels === 3) return image;
  const data = new Uint8Array(image.width * image.height * 3);
  for (let i = 0, o = 0; i < image.data.length; i += image.channels, o += 3) data[o] = data[o + 1] = data[o + 2] = image.data[i] as number;
  return { width: image.width, height: image.height, channels: 3, data };
}

/**
 * Checks a capture (already known to be a complete 1024² PNG: bridge/expected-run.ts `pngProblem`)
 * against the final state the engine streamed, and gives the capture to keep: the pixels encoded
 * again. `level` undefined (sbeval cannot read the XML) or a level whose objects cannot be planned:
 * nothing to draw, the capture is only encoded again.
 */
export async function checkCapture(capture: CaptureResult, level: Level | undefined, rows: { bound: FrameRow; image: FrameRow } | undefined, engineId: string): Promise<CaptureVerdict> {
  const sizes = [capture.png.byteLength, capture.raw?.byteLength ?? 0];
  if (sizes.some((n) => n > MAX_CAPTURE_BYTES)) return { ok: false, reason: `engine ${engineId} sent a capture of ${Math.max(...sizes)} bytes (at most ${MAX_CAPTURE_BYTES})` };
  let pixels: Image8;
  let raw: Image8 | undefined;
  try {
    pixels = await decode(capture.png);
    raw = capture.raw ? await decode(capture.raw) : undefined;
  } catch (error) {
    return { ok: false, reason: `engine ${engineId} sent a capture that does not decode: ${(error as Error).message}` };
  }
  let drawn: MaskImage | undefined;
  if (level && rows) {
    try {
      drawn = renderFrameImage(level, rows.bound, rows.image);
    } catch {
      drawn = undefined; // objects sbeval cannot plan: sbeval's rules fail such a level anyway
    }
  }
  if (drawn) {
    const share = blackDisagreement(pixels, drawn);
    if (share > CAPTURE_TOLERANCE) {
      return { ok: false, reason: `engine ${engineId}'s capture does not show the final state it streamed: ${(share * 100).toFixed(1)} % of the black pixels differ (at most ${CAPTURE_TOLERANCE * 100} %)` };
    }
  }
  const png = encodeAgain(pixels);
  return { ok: true, result: raw ? { png, raw: encodeAgain(raw) } : { png } };
}
