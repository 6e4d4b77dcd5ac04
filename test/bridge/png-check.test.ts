import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { encodeMaskPng } from '../../bridge/headless/png.js';
import { renderMask } from '../../bridge/headless/render.js';
import { checkPngDecodes } from '../../bridge/png-check.js';
import { crc32 } from '../../core/crc32.js';

/** sharp's verdict, as the pool used to check captures: decodes with no warning at all. */
async function sharpDecodes(png: Uint8Array): Promise<boolean> {
  try {
    await sharp(png, { failOn: 'warning' }).raw().toBuffer();
    return true;
  } catch {
    return false;
  }
}

function ours(png: Uint8Array): boolean {
  try {
    checkPngDecodes(png);
    return true;
  } catch {
    return false;
  }
}

/** Byte offset of the first chunk of `type`. */
function chunkAt(png: Uint8Array, type: string): number {
  for (let at = 8; at < png.length; ) {
    const length = new DataView(png.buffer, png.byteOffset).getUint32(at);
    if (Buffer.from(png.subarray(at + 4, at + 8)).toString('latin1') === type) return at;
    at += 12 + length;
  }
  throw new Error(`no ${type}`);
}

/** `png` with the data of its (single) IDAT chunk replaced, CRC recomputed: damage only zlib or the scanlines see. */
function withIdat(png: Uint8Array, data: Uint8Array): Uint8Array {
  const at = chunkAt(png, 'IDAT');
  const length = new DataView(png.buffer, png.byteOffset).getUint32(at);
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write('IDAT', 4, 'latin1');
  Buffer.from(data).copy(chunk, 8);
  chunk.writeUInt32BE(crc32(chunk, 4, 8 + data.length), 8 + data.length);
  return Buffer.concat([png.subarray(0, at), chunk, png.subarray(at + 12 + length)]);
}

describe("checkPngDecodes (the pool's check that a capture decodes)", () => {
  it('accepts what sharp decodes and refuses what it does not, on real and damaged files', async () => {
    // Real files: the engine's 1-bit capture, sharp's 8-bit RGBA (Unity's layout), grey+alpha, palette, interlaced, 16-bit.
    const mask = renderMask(
      [
        [
          [
            [-1, -1],
            [1, -1],
            [1, 1],
            [-1, 1],
          ],
        ],
      ],
      { cx: 0, cy: 0, scale: 200 },
    );
    const capture = encodeMaskPng(mask);
    const pixels = Buffer.alloc(64 * 48 * 4);
    for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 37) % 251;
    const raw = { raw: { width: 64, height: 48, channels: 4 as const } };
    const valid: Uint8Array[] = [
      capture,
      await sharp(pixels, raw).png().toBuffer(),
      await sharp(pixels, raw).png({ progressive: true }).toBuffer(),
      await sharp(pixels, raw).png({ palette: true }).toBuffer(),
      await sharp(pixels, raw).toColourspace('b-w').png().toBuffer(),
      await sharp(pixels, raw).png({ compressionLevel: 0 }).toBuffer(),
      await sharp(pixels, raw).toColourspace('rgb16').png().toBuffer(),
    ];
    const idat = capture.subarray(chunkAt(capture, 'IDAT') + 8, chunkAt(capture, 'IEND') - 4);
    const inflated = (await import('node:zlib')).inflateSync(idat);
    const badFilter = Buffer.from(inflated);
    badFilter[0] = 5;
    const flipped = Buffer.from(capture);
    const where = chunkAt(capture, 'IDAT') + 20;
    flipped[where] = flipped[where]! ^ 0x40;
    const damaged: Array<[string, Uint8Array]> = [
      ['truncated in IDAT', capture.subarray(0, chunkAt(capture, 'IDAT') + 30)],
      ['without IEND', capture.subarray(0, chunkAt(capture, 'IEND'))],
      ['a flipped bit in IDAT (CRC)', flipped],
      ['zlib stream cut short (CRC fixed)', withIdat(capture, idat.subarray(0, idat.length - 9))],
      ['zlib checksum wrong (CRC fixed)', withIdat(capture, Buffer.concat([idat.subarray(0, idat.length - 1), Buffer.of(idat[idat.length - 1]! ^ 1)]))],
      ['one scanline short', withIdat(capture, deflateSync(inflated.subarray(0, inflated.length - 129)))],
      ['a scanline with filter type 5', withIdat(capture, deflateSync(badFilter))],
      ['extra image data', withIdat(capture, deflateSync(Buffer.concat([inflated, Buffer.alloc(129)])))],
      ['junk after the signature', Buffer.concat([capture.subarray(0, 8), Buffer.from('not chunks at all, just some text')])],
    ];
    for (const png of valid) {
      expect(await sharpDecodes(png)).toBe(true);
      expect(ours(png)).toBe(true);
    }
    expect(checkPngDecodes(capture)).toEqual({ width: 1024, height: 1024 });
    // Bytes after IEND are ignored, by sharp too.
    expect(ours(Buffer.concat([capture, Buffer.from('trailing')]))).toBe(await sharpDecodes(Buffer.concat([capture, Buffer.from('trailing')])));
    for (const [what, png] of damaged) {
      // Stricter than sharp on two malformations (PNG 1.2 §11.2.5, §11.2.4) that sharp decodes past: no honest encoder writes them.
      const sharpLenient = what === 'without IEND' || what === 'extra image data';
      expect({ what, sharp: await sharpDecodes(png), ours: ours(png) }).toEqual({ what, sharp: sharpLenient, ours: false });
    }
  });
});
