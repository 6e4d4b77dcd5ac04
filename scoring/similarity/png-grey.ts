/**
 * A fast decoder for the PNGs sbeval's own engine writes: greyscale (colour type 0), 1 or 8 bits,
 * not interlaced. Pillow opens them as mode `1` / `L` and `convert("RGB")` replicates the grey value
 * (a 1-bit pixel is 0 or 255), so one grey channel is the model's input exactly (preprocess.ts).
 *
 * Anything else — other colour types and depths, interlacing, a bad CRC, a stream that does not inflate
 * to exactly the image — returns undefined and the caller decodes with sharp (decode.ts), whose
 * behaviour the golden tests pin down. So this only ever answers for well-formed files, where every
 * decoder gives the same pixels.
 */
import { inflateSync } from 'node:zlib';
import { crc32 } from '../../core/crc32.js';
import type { Image8 } from './pil-resample.js';

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** 8 output bytes (0 or 255) for each packed byte of a 1-bit row. */
const BITS = (() => {
  const table = new Uint8Array(256 * 8);
  for (let v = 0; v < 256; v++) for (let b = 0; b < 8; b++) table[v * 8 + b] = (v >> (7 - b)) & 1 ? 255 : 0;
  return table;
})();

/** Undoes the PNG row filters in place (`bpp` bytes per complete pixel, at least 1). */
function unfilter(data: Uint8Array, rowBytes: number, height: number, bpp: number): boolean {
  const stride = rowBytes + 1;
  for (let y = 0; y < height; y++) {
    const row = y * stride + 1;
    const prev = row - stride;
    const filter = data[row - 1]!;
    switch (filter) {
      case 0:
        break;
      case 1:
        for (let i = bpp; i < rowBytes; i++) data[row + i] = (data[row + i]! + data[row + i - bpp]!) & 0xff;
        break;
      case 2:
        if (y > 0) for (let i = 0; i < rowBytes; i++) data[row + i] = (data[row + i]! + data[prev + i]!) & 0xff;
        break;
      case 3:
        for (let i = 0; i < rowBytes; i++) {
          const left = i >= bpp ? data[row + i - bpp]! : 0;
          const up = y > 0 ? data[prev + i]! : 0;
          data[row + i] = (data[row + i]! + ((left + up) >> 1)) & 0xff;
        }
        break;
      case 4:
        for (let i = 0; i < rowBytes; i++) {
          const a = i >= bpp ? data[row + i - bpp]! : 0;
          const b = y > 0 ? data[prev + i]! : 0;
          const c = i >= bpp && y > 0 ? data[prev + i - bpp]! : 0;
          const p = a + b - c;
          const pa = Math.abs(p - a);
          const pb = Math.abs(p - b);
          const pc = Math.abs(p - c);
          data[row + i] = (data[row + i]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 0xff;
        }
        break;
      default:
        return false;
    }
  }
  return true;
}

/** One grey channel of a well-formed 1- or 8-bit greyscale PNG, or undefined (decode it some other way). */
export function decodeGreyPng(png: Uint8Array, maxPixels: number): Image8 | undefined {
  if (png.length < 8 + 25 || SIGNATURE.some((b, i) => png[i] !== b)) return undefined;
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let at = 8;
  let width = 0;
  let height = 0;
  let depth = 0;
  const idat: Uint8Array[] = [];
  let sawHeader = false;
  let sawEnd = false;
  while (at + 12 <= png.length) {
    const length = view.getUint32(at);
    const end = at + 8 + length;
    if (end + 4 > png.length) return undefined;
    const type = String.fromCharCode(png[at + 4]!, png[at + 5]!, png[at + 6]!, png[at + 7]!);
    if (crc32(png, at + 4, end) !== view.getUint32(end)) return undefined;
    if (!sawHeader) {
      if (type !== 'IHDR' || length !== 13) return undefined;
      width = view.getUint32(at + 8);
      height = view.getUint32(at + 12);
      depth = png[at + 16]!;
      const colourType = png[at + 17]!;
      // compression 0, filter method 0, no interlace
      if (colourType !== 0 || (depth !== 1 && depth !== 8) || png[at + 18] !== 0 || png[at + 19] !== 0 || png[at + 20] !== 0) return undefined;
      if (width < 1 || height < 1 || width * height > maxPixels) return undefined;
      sawHeader = true;
    } else if (type === 'IDAT') idat.push(png.subarray(at + 8, end));
    else if (type === 'IEND') {
      sawEnd = true;
      break;
    } else if (type === 'PLTE') return undefined;
    at = end + 4;
  }
  if (!sawHeader || !sawEnd || idat.length === 0) return undefined;
  const rowBytes = depth === 1 ? Math.ceil(width / 8) : width;
  let data: Uint8Array;
  try {
    data = inflateSync(idat.length === 1 ? idat[0]! : Buffer.concat(idat));
  } catch {
    return undefined;
  }
  if (data.length !== (rowBytes + 1) * height) return undefined;
  if (!unfilter(data, rowBytes, height, 1)) return undefined;
  const out = new Uint8Array(width * height);
  const stride = rowBytes + 1;
  if (depth === 8) {
    for (let y = 0; y < height; y++) out.set(data.subarray(y * stride + 1, y * stride + 1 + width), y * width);
  } else {
    const full = width >> 3;
    for (let y = 0; y < height; y++) {
      const row = y * stride + 1;
      let o = y * width;
      for (let i = 0; i < full; i++, o += 8) {
        const b = data[row + i]! * 8;
        out[o] = BITS[b]!;
        out[o + 1] = BITS[b + 1]!;
        out[o + 2] = BITS[b + 2]!;
        out[o + 3] = BITS[b + 3]!;
        out[o + 4] = BITS[b + 4]!;
        out[o + 5] = BITS[b + 5]!;
        out[o + 6] = BITS[b + 6]!;
        out[o + 7] = BITS[b + 7]!;
      }
      for (let x = full * 8; x < width; x++) out[y * width + x] = (data[row + (x >> 3)]! >> (7 - (x & 7))) & 1 ? 255 : 0;
    }
  }
  return { width, height, channels: 1, data: out };
}
