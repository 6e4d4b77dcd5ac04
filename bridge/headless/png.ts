import { deflateSync } from 'node:zlib';
import { crc32 } from '../../core/crc32.js';
import { IMAGE_SIZE, type MaskImage, type RgbImage } from './render.js';

/**
 * PNG files of the headless engine's images.
 *
 * The capture is written as 1-bit greyscale (colour type 0, bit depth 1) and the `_raw` image as
 * 8-bit RGB (colour type 2), both unfiltered and deflated at zlib level 1: the renderer already
 * produces PNG scanlines (render.ts), so encoding is one `deflateSync` and four chunk headers, in the
 * worker thread, without an image library. Unity's `Texture2D.EncodeToPNG` writes 8-bit RGBA (colour
 * type 6); what the similarity stage reads is the RGB pixels after decoding (`PIL convert("RGB")` /
 * scoring/similarity/decode.ts), and those are the same: black stays (0, 0, 0), white (255, 255, 255).
 * Fixed options and no metadata, so the same pixels always give the same bytes.
 *
 * `encodePng` keeps the RGBA layout of Unity's files (sharp, zlib level 6) for callers that hold RGBA
 * pixels; the engine no longer uses it (it was 18 ms per image, more than a simulated trial).
 */

/** zlib level of the engine's PNGs: 1 (fastest); a capture is mostly runs of white, level 6 saves little. */
const PNG_ZLIB_LEVEL = 1;

const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

/** Signature, IHDR, one IDAT, IEND. */
function pngFile(width: number, height: number, bitDepth: number, colourType: number, scanlines: Uint8Array): Uint8Array {
  const idat = deflateSync(scanlines, { level: PNG_ZLIB_LEVEL });
  const out = new Uint8Array(SIGNATURE.length + (12 + 13) + (12 + idat.length) + 12);
  const view = new DataView(out.buffer);
  out.set(SIGNATURE, 0);
  let at = SIGNATURE.length;
  const chunk = (type: string, length: number, fill: (offset: number) => void) => {
    view.setUint32(at, length);
    for (let i = 0; i < 4; i++) out[at + 4 + i] = type.charCodeAt(i);
    fill(at + 8);
    view.setUint32(at + 8 + length, crc32(out, at + 4, at + 8 + length));
    at += 12 + length;
  };
  chunk('IHDR', 13, (o) => {
    view.setUint32(o, width);
    view.setUint32(o + 4, height);
    out[o + 8] = bitDepth;
    out[o + 9] = colourType;
    out[o + 10] = 0; // deflate
    out[o + 11] = 0; // adaptive filtering (every row uses filter 0)
    out[o + 12] = 0; // no interlace
  });
  chunk('IDAT', idat.length, (o) => out.set(idat, o));
  chunk('IEND', 0, () => undefined);
  return out;
}

/** The capture as a 1-bit greyscale PNG. */
export function encodeMaskPng(mask: MaskImage): Uint8Array {
  return pngFile(mask.width, mask.height, 1, 0, mask.scanlines);
}

/** The `_raw` image as an 8-bit RGB PNG. */
export function encodeRgbPng(image: RgbImage): Uint8Array {
  return pngFile(image.width, image.height, 8, 2, image.scanlines);
}

/** sharp (libvips) is loaded only by callers of the two functions below, not by the engine's workers. */
async function loadSharp(): Promise<typeof import('sharp').default> {
  return (await import('sharp')).default;
}

/** RGBA pixels as an 8-bit RGBA PNG (Unity's layout), with sharp. */
export async function encodePng(rgba: Uint8Array, width = IMAGE_SIZE, height = IMAGE_SIZE): Promise<Uint8Array> {
  const sharp = await loadSharp();
  const buffer = await sharp(Buffer.from(rgba.buffer, rgba.byteOffset, rgba.byteLength), { raw: { width, height, channels: 4 } })
    .png({ compressionLevel: 6, adaptiveFiltering: false, palette: false, force: true })
    .toBuffer();
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/** Decodes any PNG to RGBA pixels (tests, fidelity IoU). */
export async function decodePng(png: Uint8Array): Promise<{ width: number; height: number; rgba: Uint8Array }> {
  const sharp = await loadSharp();
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, rgba: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}
