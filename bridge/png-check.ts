import { inflateSync } from 'node:zlib';
import { crc32 } from '../core/crc32.js';

/**
 * Does a PNG decode completely? The structural decode a PNG reader does before it reconstructs
 * pixels, without producing them: every chunk's length and CRC, a valid IHDR (PNG 1.2 §11.2.2: the
 * allowed colour type / bit depth pairs, methods 0, interlace 0 or 1), PLTE where colour type 3 needs
 * it, contiguous IDAT chunks whose zlib stream inflates completely (zlib checks its Adler-32) to
 * exactly the scanline bytes the header implies (Adam7 passes included), a valid filter type (0–4) on
 * every scanline, and an IEND chunk (what follows it is ignored, as readers do). Once all of that holds, un-filtering cannot fail,
 * so the pixels decode.
 *
 * Why not a full decode with sharp: the engine pool checks every capture of every engine
 * (bridge/expected-run.ts `pngProblem`) on the main thread, and a 1024² decode to raw pixels there
 * cost more than the level's whole simulation in a worker (the main thread and libvips' threads
 * compete with the engines for the same cores; `npm run bench -- simulate`). Inflating the 128 KiB
 * of a 1-bit capture takes well under a millisecond. test/bridge/png-check.test.ts checks the verdicts
 * against sharp's (`failOn: 'warning'`) on valid and damaged files: the same, except that a missing IEND
 * and surplus image data (malformed, PNG 1.2 §11.2.5 and §11.2.4, but sharp decodes past them) are
 * refused here; no honest encoder writes either. Not checked: where ancillary chunks stand.
 */
interface PngDecodeResult {
  width: number;
  height: number;
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Bits per sample allowed for each colour type (PNG 1.2 §11.2.2) and the samples per pixel. */
const COLOUR_TYPES: Record<number, { depths: number[]; samples: number }> = {
  0: { depths: [1, 2, 4, 8, 16], samples: 1 },
  2: { depths: [8, 16], samples: 3 },
  3: { depths: [1, 2, 4, 8], samples: 1 },
  4: { depths: [8, 16], samples: 2 },
  6: { depths: [8, 16], samples: 4 },
};

/** Adam7 passes: x start, y start, x step, y step. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** The images the scanlines make up: the whole image, or the non-empty Adam7 passes. */
function subImages(width: number, height: number, interlaced: boolean): Array<{ width: number; height: number }> {
  if (!interlaced) return [{ width, height }];
  return ADAM7.map(([x0, y0, dx, dy]) => ({ width: Math.ceil((width - x0) / dx), height: Math.ceil((height - y0) / dy) })).filter(
    (p) => p.width > 0 && p.height > 0,
  );
}

/** Throws an Error saying what is wrong, or returns the decoded size. */
export function checkPngDecodes(png: Uint8Array): PngDecodeResult {
  if (png.byteLength < 8 || !SIGNATURE.every((b, i) => png[i] === b)) throw new Error('no PNG signature');
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let at = 8;
  let header: { width: number; height: number; depth: number; colourType: number; interlaced: boolean } | undefined;
  let palette = false;
  let idatState: 'before' | 'in' | 'after' = 'before';
  const idat: Uint8Array[] = [];
  let ended = false;
  // Bytes after IEND are not part of the image (readers, sharp among them, ignore them).
  while (at < png.byteLength && !ended) {
    if (at + 12 > png.byteLength) throw new Error('truncated chunk header');
    const length = view.getUint32(at);
    const type = String.fromCharCode(png[at + 4]!, png[at + 5]!, png[at + 6]!, png[at + 7]!);
    if (!/^[A-Za-z]{4}$/.test(type)) throw new Error('invalid chunk type');
    if (length > 0x7fffffff || at + 12 + length > png.byteLength) throw new Error(`truncated ${type} chunk`);
    const data = at + 8;
    if (crc32(png, at + 4, data + length) !== view.getUint32(data + length)) throw new Error(`${type}: CRC error`);
    if (header === undefined && type !== 'IHDR') throw new Error('IHDR is not the first chunk');
    if (type === 'IHDR') {
      if (header !== undefined || length !== 13) throw new Error('invalid IHDR');
      const width = view.getUint32(data);
      const height = view.getUint32(data + 4);
      const depth = png[data + 8]!;
      const colourType = png[data + 9]!;
      const allowed = COLOUR_TYPES[colourType];
      if (width === 0 || height === 0 || width > 0x7fffffff || height > 0x7fffffff) throw new Error('invalid image size');
      if (!allowed?.depths.includes(depth)) throw new Error(`invalid colour type ${colourType} / bit depth ${depth}`);
      if (png[data + 10] !== 0 || png[data + 11] !== 0 || png[data + 12]! > 1) throw new Error('invalid compression, filter or interlace method');
      header = { width, height, depth, colourType, interlaced: png[data + 12] === 1 };
    } else if (type === 'PLTE') {
      if (idatState !== 'before' || length === 0 || length % 3 !== 0 || length / 3 > 256) throw new Error('invalid PLTE');
      palette = true;
    } else if (type === 'IDAT') {
      if (idatState === 'after') throw new Error('IDAT chunks are not contiguous');
      idatState = 'in';
      idat.push(png.subarray(data, data + length));
    } else if (type === 'IEND') {
      if (length !== 0) throw new Error('invalid IEND');
      ended = true;
    } else {
      if (idatState === 'in') idatState = 'after';
      // An unknown critical chunk (upper-case first letter) cannot be skipped by a decoder.
      if (
        type.charCodeAt(0) < 0x61 &&
        !['cHRM', 'gAMA', 'iCCP', 'sBIT', 'sRGB', 'bKGD', 'hIST', 'tRNS', 'pHYs', 'sPLT', 'tIME', 'iTXt', 'tEXt', 'zTXt'].includes(type)
      )
        throw new Error(`unknown critical chunk ${type}`);
    }
    at = data + length + 4;
  }
  if (!header) throw new Error('no IHDR');
  if (!ended) throw new Error('no IEND');
  if (idat.length === 0) throw new Error('no IDAT');
  if (header.colourType === 3 && !palette) throw new Error('palette image without PLTE');

  const bitsPerPixel = header.depth * (COLOUR_TYPES[header.colourType] as { samples: number }).samples;
  const passes = subImages(header.width, header.height, header.interlaced);
  const expected = passes.reduce((sum, p) => sum + p.height * (1 + Math.ceil((p.width * bitsPerPixel) / 8)), 0);
  let pixels: Buffer;
  try {
    // One byte more than the image needs, so a stream with extra data is caught without inflating all of it.
    // Output chunks of the whole image (up to 1 MiB) instead of zlib's 16 KiB: one buffer, not nine
    // and a copy; the main thread checks every capture, and its full garbage collections per 1,000
    // levels halved (31 → 15, `node --trace-gc`, the bench mix with 2 engines).
    pixels = inflateSync(Buffer.concat(idat), { maxOutputLength: expected + 1, chunkSize: Math.max(64, Math.min(expected + 1, 1 << 20)) });
  } catch (error) {
    throw new Error(`image data: ${(error as Error).message}`);
  }
  if (pixels.byteLength !== expected)
    throw new Error(`image data is ${pixels.byteLength > expected ? 'longer' : 'shorter'} than the image (${expected} bytes)`);
  let row = 0;
  for (const pass of passes) {
    const rowBytes = 1 + Math.ceil((pass.width * bitsPerPixel) / 8);
    for (let y = 0; y < pass.height; y++, row += rowBytes) if (pixels[row]! > 4) throw new Error(`invalid filter type ${pixels[row]}`);
  }
  return { width: header.width, height: header.height };
}
