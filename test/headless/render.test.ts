import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodePng, encodeMaskPng, encodePng, encodeRgbPng } from '../../bridge/headless/png.js';
import { type MaskImage, maskPixel, maskToRgba, RAW_COLOURS, type RgbImage } from '../../bridge/headless/render.js';
import { parseLevelXml } from '../../levels/xml-read.js';
import { decodePngToRgb } from '../../scoring/similarity/decode.js';
import { REFERENCE_LEVELS } from '../helpers/cli.js';
import { block, GROUND, level, record } from './helpers.js';

interface Box {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  black: number;
}

/** Bounding box and count of the black pixels of a 1024² image (a mask or RGBA pixels). */
function blackBox(image: MaskImage | Uint8Array): Box {
  const black =
    image instanceof Uint8Array
      ? (x: number, y: number) => (image[(y * 1024 + x) * 4] as number) < 128
      : (x: number, y: number) => maskPixel(image, x, y) === 0;
  const box: Box = { x0: Infinity, x1: -Infinity, y0: Infinity, y1: -Infinity, black: 0 };
  for (let y = 0; y < 1024; y++) {
    for (let x = 0; x < 1024; x++) {
      if (!black(x, y)) continue;
      box.black++;
      box.x0 = Math.min(box.x0, x);
      box.x1 = Math.max(box.x1, x);
      box.y0 = Math.min(box.y0, y);
      box.y1 = Math.max(box.y1, y);
    }
  }
  return box;
}

/** The distinct RGB colours of an RGB image in PNG scanline layout. */
function colours(image: RgbImage): Set<string> {
  const keys = new Set<string>();
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const i = y * image.rowBytes + 1 + x * 3;
      keys.add(`${image.scanlines[i]},${image.scanlines[i + 1]},${image.scanlines[i + 2]}`);
    }
  }
  return keys;
}

describe('the similarity image', () => {
  it('one resting RectSmall: its 0.70 width fills 824 px, the 0.72 × 0.24 OCR sprite is cut by the frame, 100 px white margin, y up', () => {
    const rec = record(level([block('RectSmall', 3, GROUND + 0.115)]), { capture: true });
    const image = rec.images!.image;
    // Independent computation from the evaluator's numbers: scale = 824 / 0.70 px per unit; the
    // sprite is 0.24 tall, centred on the bound centre (render row 412); a pixel is black when its
    // centre is inside.
    const scale = 824 / 0.7;
    const half = (0.24 * scale) / 2;
    const firstRow = Math.ceil(412 - half - 0.5);
    const lastRow = Math.floor(412 + half - 0.5);
    expect(blackBox(image)).toEqual({ x0: 100, x1: 923, y0: 1023 - 100 - lastRow, y1: 1023 - 100 - firstRow, black: 824 * (lastRow - firstRow + 1) });
  });

  it('y points up: a block on top of another appears above it', () => {
    const rec = record(level([block('RectSmall', 3, GROUND + 0.115), block('SquareTiny', 3.2, GROUND + 0.22 + 0.015 + 0.105 + 0.005)]), { capture: true });
    const image = rec.images!.image;
    // The tiny block sits at the right end; the image's top black rows are there, to the right.
    const box = blackBox(image);
    let topRowFirstX = -1;
    for (let x = 0; x < 1024; x++) {
      if (maskPixel(image, x, box.y0) === 0) {
        topRowFirstX = x;
        break;
      }
    }
    expect(topRowFirstX).toBeGreaterThan(512);
  });

  it("matches the evaluator image of V2_L_1 (the reference doc's worked check: black x from 256 to 767)", async () => {
    const base = join(REFERENCE_LEVELS, 'v2');
    const rec = record(parseLevelXml(readFileSync(join(base, 'levels', 'L', 'V2_L_1.xml'), 'utf8')), { capture: true });
    const unity = await decodePng(readFileSync(join(base, 'images', 'L', 'V2_L_1.png')));
    const ours = blackBox(rec.images!.image);
    const theirs = blackBox(unity.rgba);
    expect({ ...ours, black: 0 }).toEqual({ ...theirs, black: 0 });
    expect(Math.abs(ours.black - theirs.black) / theirs.black).toBeLessThan(0.001);
  });

  it("PNG: 1024 × 1024 1-bit greyscale; decodes (as the similarity stage and PIL read it) to the RGB pixels of Unity's 8-bit RGBA layout; same bytes twice", async () => {
    const rec = record(parseLevelXml(readFileSync(join(REFERENCE_LEVELS, 'v1', 'levels', 'U', 'V1_U_3.xml'), 'utf8')), { capture: true });
    const mask = rec.images!.image;
    const png = encodeMaskPng(mask);
    const ihdr = Buffer.from(png.subarray(16, 29));
    expect(ihdr.readUInt32BE(0)).toBe(1024);
    expect(ihdr.readUInt32BE(4)).toBe(1024);
    expect([ihdr[8], ihdr[9]]).toEqual([1, 0]);
    // The same pixels in Unity's channel layout (8-bit RGBA, colour type 6) decode to the same RGB.
    const rgba = maskToRgba(mask);
    const unityLayout = await encodePng(rgba);
    expect([unityLayout[24], unityLayout[25]]).toEqual([8, 6]);
    const ours = await decodePngToRgb(png);
    const theirs = await decodePngToRgb(unityLayout);
    expect([ours.width, ours.height, ours.channels]).toEqual([1024, 1024, 3]);
    expect(blackBox(rgba).black).toBeGreaterThan(10_000);
    expect(Buffer.from(ours.data).equals(Buffer.from(theirs.data))).toBe(true);
    // (Buffer.equals: a deep equality over 4 M elements would be slow.)
    expect(Buffer.from((await decodePng(png)).rgba).equals(Buffer.from(rgba))).toBe(true);
    expect(Buffer.from(encodeMaskPng(rec.images!.image)).equals(Buffer.from(png))).toBe(true);
  });

  it('the _raw PNG is 8-bit RGB and decodes to its pixels', async () => {
    const rec = record(level([block('RectSmall', 3, GROUND + 0.115, { material: 'ice' })]), { capture: true, captureRaw: true });
    const raw = rec.images!.raw!;
    const png = encodeRgbPng(raw);
    expect([png[24], png[25]]).toEqual([8, 2]);
    const decoded = await decodePngToRgb(png);
    const expected = new Uint8Array(1024 * 1024 * 3);
    for (let y = 0; y < 1024; y++) expected.set(raw.scanlines.subarray(y * raw.rowBytes + 1, (y + 1) * raw.rowBytes), y * 1024 * 3);
    expect(Buffer.from(decoded.data).equals(Buffer.from(expected))).toBe(true);
  });

  it('no live block to frame (only a pig and TNT): a white image', () => {
    const rec = record(
      level([
        { kind: 'pig', type: 'BasicSmall', x: 3, y: GROUND + 0.23, rotation: 0 },
        { kind: 'tnt', type: '', x: 5, y: GROUND + 0.335, rotation: 0 },
      ]),
      { capture: true },
    );
    expect(rec.images!.bound).toBeUndefined();
    expect(blackBox(rec.images!.image).black).toBe(0);
  });

  it('TriangleHole keeps its hole (even-odd fill of its two collider paths)', () => {
    const rec = record(level([block('TriangleHole', 3, GROUND + 0.42 + 0.005)]), { capture: true });
    const image = rec.images!.image;
    const b = rec.images!.bound!;
    const scale = 824 / Math.max(b.maxX - b.minX, b.maxY - b.minY);
    const toPixel = (lx: number, ly: number) => {
      const x = Math.floor((3 + lx - (b.minX + b.maxX) / 2) * scale + 412) + 100;
      const y = 1023 - (Math.floor((rec.at(514, 0, 'y') + ly - (b.minY + b.maxY) / 2) * scale + 412) + 100);
      return maskPixel(image, x, y) === 0;
    };
    expect(toPixel(0.01, -0.1)).toBe(false); // inside the hole
    expect(toPixel(0, -0.3)).toBe(true); // solid below the hole
  });

  it('the _raw image uses a flat colour per material, 7 frames before the capture', () => {
    const rec = record(level([block('RectSmall', 3, GROUND + 0.115, { material: 'ice' }), block('RectSmall', 4, GROUND + 0.115, { material: 'stone' })]), {
      capture: true,
      captureRaw: true,
    });
    const set = colours(rec.images!.raw!);
    expect(set).toContain(RAW_COLOURS.ice!.join(','));
    expect(set).toContain(RAW_COLOURS.stone!.join(','));
    expect(set).not.toContain('0,0,0');
  });
});
