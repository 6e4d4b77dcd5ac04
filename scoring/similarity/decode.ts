/**
 * PNG bytes → RGB pixels as `PIL.Image.open(png).convert("RGB")` gives them (the official script's first
 * step). `sharp` (libvips) decodes; the PIL rules applied on top:
 * - alpha is dropped, not composited (`convert("RGB")` from RGBA/LA/P+tRNS keeps the colour under alpha 0);
 * - greyscale is replicated into R = G = B; palettes are expanded to their colours;
 * - 16-bit colour keeps the high byte (Pillow unpacks `RGB;16B`/`RGBA;16B`/`LA;16B` that way);
 * - 16-bit greyscale opens as mode `I` (Pillow 10.2) / `I;16` (11.x) and converts to RGB by clamping the
 *   value to 0…255 (`i2rgb` / `I16_RGB`), not by scaling;
 * - embedded ICC profiles and gAMA are ignored, as PIL ignores them (`ignoreIcc`; libvips applies no gamma);
 * - no EXIF orientation is applied (PIL's `open` does not rotate).
 * Only PNG is accepted: the images come from the evaluator as PNG, and other formats' decoders (JPEG IDCT)
 * need not agree between libvips and PIL.
 */

import type { Metadata, OutputInfo } from 'sharp';
import sharp from 'sharp';
import { SbevalError } from '../../core/errors.js';
import type { Image8 } from './pil-resample.js';
import { decodeGreyPng } from './png-grey.js';

/** Pixel count above which decoding is refused (64 Mpx ≈ 8192²; a level image is 1024²). */
export const MAX_INPUT_PIXELS = 8192 * 8192;

/**
 * The same pixels as `decodePngToRgb`, but an image whose R, G and B are equal everywhere (every evaluator
 * image: black on white) comes back as one grey channel: a third of the data for the resize, which treats
 * channels independently, so the model input is the same (preprocess.ts replicates the grey plane).
 */
export async function decodePngForModel(png: Uint8Array): Promise<Image8> {
  // sbeval's own captures (1-bit grey) and other plain grey PNGs without libvips (png-grey.ts).
  const grey = decodeGreyPng(png, MAX_INPUT_PIXELS);
  if (grey) return grey;
  const rgb = await decodePngToRgb(png);
  return greyIfNeutral(rgb) ?? rgb;
}

/** One channel when R = G = B in every pixel, else undefined. */
function greyIfNeutral(rgb: Image8): Image8 | undefined {
  if (rgb.channels !== 3) return undefined;
  const src = rgb.data;
  const pixels = rgb.width * rgb.height;
  const grey = new Uint8Array(pixels);
  for (let i = 0, p = 0; i < pixels; i++, p += 3) {
    const r = src[p]!;
    if (r !== src[p + 1] || r !== src[p + 2]) return undefined;
    grey[i] = r;
  }
  return { width: rgb.width, height: rgb.height, channels: 1, data: grey };
}

export async function decodePngToRgb(png: Uint8Array): Promise<Image8> {
  let meta: Metadata;
  try {
    meta = await sharp(png, { ignoreIcc: true, limitInputPixels: MAX_INPUT_PIXELS }).metadata();
  } catch (error) {
    throw new SbevalError('similarity', `not a readable image: ${(error as Error).message}`, undefined, { cause: error });
  }
  if (meta.format !== 'png') throw new SbevalError('similarity', `not a PNG image (${meta.format ?? 'unknown format'})`);
  const wide = meta.depth === 'ushort';
  // 16-bit: ask for the image's own 16-bit colourspace, or libvips would convert to 8-bit sRGB on its own terms.
  const greyWide = wide && meta.space === 'grey16';
  let raw: { data: Buffer; info: OutputInfo };
  try {
    let pipeline = sharp(png, { ignoreIcc: true, limitInputPixels: MAX_INPUT_PIXELS });
    if (wide) pipeline = pipeline.toColourspace(greyWide ? 'grey16' : 'rgb16');
    raw = await pipeline.raw({ depth: wide ? 'ushort' : 'uchar' }).toBuffer({ resolveWithObject: true });
  } catch (error) {
    throw new SbevalError('similarity', `PNG could not be decoded: ${(error as Error).message}`, undefined, { cause: error });
  }
  const { width, height, channels } = raw.info;
  const pixels = width * height;
  const out = new Uint8Array(pixels * 3);
  if (!wide) {
    // libvips hands greyscale over as 3 replicated channels, palettes expanded; keep R, G, B, drop alpha.
    const src = raw.data;
    if (channels === 3) {
      out.set(src.subarray(0, pixels * 3));
    } else if (channels === 4) {
      for (let i = 0; i < pixels; i++) {
        out[i * 3] = src[i * 4]!;
        out[i * 3 + 1] = src[i * 4 + 1]!;
        out[i * 3 + 2] = src[i * 4 + 2]!;
      }
    } else {
      throw new SbevalError('similarity', `unexpected ${channels}-channel 8-bit decode`);
    }
    return { width, height, channels: 3, data: out };
  }
  const src = new Uint16Array(raw.data.buffer.slice(raw.data.byteOffset, raw.data.byteOffset + raw.data.byteLength));
  if (greyWide) {
    // Colour type 0 (grey, no alpha) is mode I / I;16 in Pillow: clamped to 255. Grey + alpha (type 4) is
    // unpacked as LA;16B into RGBA: high byte.
    const clamp = channels === 1;
    for (let i = 0; i < pixels; i++) {
      const v = src[i * channels]!;
      const g = clamp ? Math.min(v, 255) : v >> 8;
      out[i * 3] = out[i * 3 + 1] = out[i * 3 + 2] = g;
    }
  } else {
    if (channels < 3) throw new SbevalError('similarity', `unexpected ${channels}-channel 16-bit colour decode`);
    for (let i = 0; i < pixels; i++) {
      for (let c = 0; c < 3; c++) out[i * 3 + c] = src[i * channels + c]! >> 8;
    }
  }
  return { width, height, channels: 3, data: out };
}
