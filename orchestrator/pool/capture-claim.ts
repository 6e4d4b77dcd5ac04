import type { CaptureResult } from '../../bridge/engine.js';
import { type FrameRow, renderFrameImage } from '../../bridge/headless/frame-image.js';
import { encodeMaskPng, encodeRgbPng } from '../../bridge/headless/png.js';
import type { MaskImage } from '../../bridge/headless/render.js';
import type { Level } from '../../levels/level.js';
import { decodePngToRgb, MAX_INPUT_PIXELS } from '../../scoring/similarity/decode.js';
import type { Image8 } from '../../scoring/similarity/pil-resample.js';
import { decodeGreyPng } from '../../scoring/similarity/png-grey.js';

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

/** Set bits per byte value. */
const BITS = Uint8Array.from({ length: 256 }, (_, v) => {
  let n = 0;
  for (let b = v; b > 0; b >>= 1) n += b & 1;
  return n;
});

/**
 * The decoded capture as a mask in `MaskImage` layout (1 = white; R < 128 is black, as the fidelity
 * IoU reads it), and whether its pixels are pure black and white (then the mask is the image).
 */
function toMask(image: Image8): { mask: MaskImage; twoTone: boolean } {
  const { width, height, data, channels } = image;
  const rowBytes = 1 + Math.ceil(width / 8);
  const scanlines = new Uint8Array(rowBytes * height);
  let twoTone = true;
  for (let y = 0; y < height; y++) {
    const row = y * rowBytes + 1;
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * channels;
      const v = data[at] as number;
      if (twoTone && ((v !== 0 && v !== 255) || (channels >= 3 && (data[at + 1] !== v || data[at + 2] !== v)))) twoTone = false;
      if (v >= 128) scanlines[row + (x >> 3)]! |= 0x80 >> (x & 7);
    }
  }
  return { mask: { width, height, rowBytes, scanlines }, twoTone };
}

/** Share of pixels black in exactly one of two same-sized masks among those black in either (0 when both are white). */
function blackDisagreement(a: MaskImage, b: MaskImage): number {
  let differ = 0;
  let either = 0;
  for (let y = 0; y < a.height; y++) {
    const row = y * a.rowBytes;
    for (let i = 1; i < a.rowBytes; i++) {
      const x = ~(a.scanlines[row + i] as number) & 0xff;
      const z = ~(b.scanlines[row + i] as number) & 0xff;
      differ += BITS[x ^ z] as number;
      either += BITS[x | z] as number;
    }
  }
  return either === 0 ? 0 : differ / either;
}

/** The decoded pixels as sbeval encodes an image: the 1-bit mask when they are black and white only, else 8-bit RGB. */
function encodeAgain(image: Image8): Uint8Array {
  const { mask, twoTone } = toMask(image);
  if (twoTone) return encodeMaskPng(mask);
  const { width, height, data, channels } = image;
  const rowBytes = 1 + width * 3;
  const scanlines = new Uint8Array(rowBytes * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const from = (y * width + x) * channels;
      const to = y * rowBytes + 1 + x * 3;
      const r = data[from] as number;
      scanlines[to] = r;
      scanlines[to + 1] = channels >= 3 ? (data[from + 1] as number) : r;
      scanlines[to + 2] = channels >= 3 ? (data[from + 2] as number) : r;
    }
  }
  return encodeRgbPng({ width, height, rowBytes, scanlines });
}

/**
 * Decodes as the similarity stage does (decode.ts `decodePngForModel`: plain grey PNGs, sbeval's own
 * 1-bit captures among them, without libvips, whose first use in a process costs half a second): one
 * grey channel, or R, G, B.
 */
async function decode(png: Uint8Array): Promise<Image8> {
  return decodeGreyPng(png, MAX_INPUT_PIXELS) ?? (await decodePngToRgb(png));
}

/**
 * Checks a capture (already known to be a complete 1024² PNG: bridge/expected-run.ts `pngProblem`)
 * against the final state the engine streamed, and gives the capture to keep: the pixels encoded
 * again. `level` undefined (sbeval cannot read the XML) or a level whose objects cannot be planned:
 * nothing to draw, the capture is only encoded again.
 */
export async function checkCapture(
  capture: CaptureResult,
  level: Level | undefined,
  rows: { bound: FrameRow; image: FrameRow } | undefined,
  engineId: string,
): Promise<CaptureVerdict> {
  const sizes = [capture.png.byteLength, capture.raw?.byteLength ?? 0];
  if (sizes.some((n) => n > MAX_CAPTURE_BYTES))
    return { ok: false, reason: `engine ${engineId} sent a capture of ${Math.max(...sizes)} bytes (at most ${MAX_CAPTURE_BYTES})` };
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
    const share = blackDisagreement(toMask(pixels).mask, drawn);
    if (share > CAPTURE_TOLERANCE) {
      return {
        ok: false,
        reason: `engine ${engineId}'s capture does not show the final state it streamed: ${(share * 100).toFixed(1)} % of the black pixels differ (at most ${CAPTURE_TOLERANCE * 100} %)`,
      };
    }
  }
  const png = encodeAgain(pixels);
  return { ok: true, result: raw ? { png, raw: encodeAgain(raw) } : { png } };
}
