import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { CODE_NOT_FOUND } from '../../levels/extract.js';
import { folderFates, NEVER_GENERATED } from '../../orchestrator/report/fates.js';
import { collectGallery } from '../../orchestrator/report/gallery.js';
import { makeThumbnail, thumbnailDataUri } from '../../orchestrator/report/thumbnail.js';
import { cachePath } from '../../orchestrator/stages/level-cache.js';
import { areaDownsampleGrey } from '../../scoring/report/area-downscale.js';
import { decodeGreyPng } from '../../scoring/similarity/png-grey.js';
import { REFERENCE_LEVELS } from '../helpers/cli.js';
import { writeTeam } from '../scoring/write-team.js';

/**
 * Where the report's pictures come from: thumbnails (area-averaged, checked against a brute-force
 * integral and against libvips' own downscale of real evaluator images), the thumbnail cache, and every
 * trial's fate read from the files when there is no run accounting.
 */
const IMAGES = join(REFERENCE_LEVELS, 'v1/images/L');
const tmp = mkdtempSync(join(tmpdir(), 'sbeval-report-gallery-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The mean grey over each output pixel's source area, by integrating on a fine sub-grid (slow, obviously right). */
function bruteForce(grey: Uint8Array, w: number, h: number, size: number, sub = 16): number[] {
  const out: number[] = [];
  for (let oy = 0; oy < size; oy++) {
    for (let ox = 0; ox < size; ox++) {
      let sum = 0;
      for (let sy = 0; sy < sub; sy++) {
        for (let sx = 0; sx < sub; sx++) {
          const x = Math.floor(((ox + (sx + 0.5) / sub) / size) * w);
          const y = Math.floor(((oy + (sy + 0.5) / sub) / size) * h);
          sum += grey[y * w + x]!;
        }
      }
      out.push(sum / (sub * sub));
    }
  }
  return out;
}

async function decodeGrey(png: Uint8Array): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

function meanAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

describe('thumbnails', () => {
  it('average the source area of each pixel, fractions included', () => {
    // 1024 px, left half black: exactly 40 black and 40 white columns at 80 px.
    const half = new Uint8Array(1024 * 1024).map((_, i) => (i % 1024 < 512 ? 0 : 255));
    const t = areaDownsampleGrey(half, 1024, 1024, 1, 80);
    expect([...t.slice(0, 80)]).toEqual([...Array(40).fill(0), ...Array(40).fill(255)]);
    // A non-integer ratio (37×23 → 10): every pixel equals the integral of its area (sub-grid 16: exact for these boundaries to ~1 grey level).
    let seed = 7;
    const noise = new Uint8Array(37 * 23).map(() => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 24) & 255);
    const down = areaDownsampleGrey(noise, 37, 23, 1, 10);
    const reference = bruteForce(noise, 37, 23, 10);
    for (let i = 0; i < down.length; i++) expect(Math.abs(down[i]! - reference[i]!), `pixel ${i}`).toBeLessThan(9);
    expect(meanAbsDiff(down, reference)).toBeLessThan(2.5);
  });

  it("take the exact one-channel shortcut for power-of-two ratios with the general loop's pixels", () => {
    // Grey + opaque alpha goes through the general per-pixel loop; plain grey through the whole-pixel sums.
    let seed = 11;
    const noise = new Uint8Array(1024 * 1024).map(() => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 24) & 255);
    const opaque = new Uint8Array(noise.length * 2);
    for (let i = 0; i < noise.length; i++) {
      opaque[2 * i] = noise[i]!;
      opaque[2 * i + 1] = 255;
    }
    for (const [width, height, size] of [
      [1024, 1024, 80], // the evaluator's image and the report's thumbnail: 5/64
      [1024, 1024, 64],
      [512, 2048, 80],
      [1024, 1024, 100], // not a dyadic ratio: both take the general loop
    ] as const) {
      const grey = noise.subarray(0, width * height);
      const general = areaDownsampleGrey(opaque.subarray(0, 2 * width * height), width, height, 2, size);
      expect(Buffer.from(areaDownsampleGrey(grey, width, height, 1, size)).equals(Buffer.from(general)), `${width}×${height} → ${size}`).toBe(true);
    }
  });

  it('turn colour grey and composite transparency over white', () => {
    // 2×2: red, transparent black on each row.
    const rgba = new Uint8Array([255, 0, 0, 255, 0, 0, 0, 0, 255, 0, 0, 255, 0, 0, 0, 0]);
    const red = Math.round(0.299 * 255);
    expect([...areaDownsampleGrey(rgba, 2, 2, 4, 2)]).toEqual([red, 255, red, 255]);
    expect([...areaDownsampleGrey(rgba, 2, 2, 4, 1)]).toEqual([Math.round((red + 255) / 2)]);
    expect([...areaDownsampleGrey(new Uint8Array([0, 128]), 1, 1, 2, 1)]).toEqual([Math.round(255 * (127 / 255))]);
  });

  it('look like libvips’ own downscale of the same evaluator image, and unlike another one', async () => {
    const files = readdirSync(IMAGES)
      .filter((f) => f.endsWith('.png'))
      .slice(0, 4);
    for (const [i, file] of files.entries()) {
      const png = readFileSync(join(IMAGES, file));
      const thumb = await decodeGrey(await makeThumbnail(png));
      expect([thumb.width, thumb.height]).toEqual([80, 80]);
      const libvips = await sharp(png).greyscale().resize(80, 80, { kernel: 'lanczos3' }).raw().toBuffer();
      expect(meanAbsDiff(thumb.data, libvips), file).toBeLessThan(6);
      const other = await sharp(readFileSync(join(IMAGES, files[(i + 1) % files.length]!)))
        .greyscale()
        .resize(80, 80, { kernel: 'lanczos3' })
        .raw()
        .toBuffer();
      expect(meanAbsDiff(thumb.data, other), file).toBeGreaterThan(10);
    }
  });

  it('come out the same from a plain grey PNG (decoded without libvips) as from the RGBA file', async () => {
    const rgbaPng = readFileSync(join(IMAGES, 'V1_L_2.png'));
    const grey = await sharp(rgbaPng).greyscale().raw().toBuffer({ resolveWithObject: true });
    const greyPng = await sharp(grey.data, { raw: { width: grey.info.width, height: grey.info.height, channels: 1 } })
      .toColourspace('b-w')
      .png()
      .toBuffer();
    expect(decodeGreyPng(greyPng, 1 << 26)?.channels).toBe(1);
    const [a, b] = await Promise.all([decodeGrey(await makeThumbnail(greyPng)), decodeGrey(await makeThumbnail(rgbaPng))]);
    expect(a.data.length).toBe(80 * 80);
    expect(meanAbsDiff(a.data, b.data)).toBeLessThan(1);
  });

  it('are cached by content: identical images share one, and the cache is read back', async () => {
    const root = join(tmp, 'cache');
    mkdirSync(root);
    const a = join(root, 'a.png');
    const b = join(root, 'b.png');
    copyFileSync(join(IMAGES, 'V1_L_1.png'), a);
    copyFileSync(join(IMAGES, 'V1_L_1.png'), b);
    const first = await thumbnailDataUri(a, root);
    expect(await thumbnailDataUri(b, root)).toBe(first);
    const cached = readdirSync(join(root, '.sbeval', 'thumbnails'));
    expect(cached).toHaveLength(1);
    // What is in the cache is what the report embeds (a planted file proves the read).
    writeFileSync(join(root, '.sbeval', 'thumbnails', cached[0]!), Buffer.from('planted'));
    expect(await thumbnailDataUri(a, root)).toBe(`data:image/png;base64,${Buffer.from('planted').toString('base64')}`);
  });
});

describe('the gallery of a folder without a run accounting', () => {
  const root = join(tmp, 'competition');
  const put = (path: string, text: string | Buffer) => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
  };

  it('gives every trial 1..T its fate from the files, in the official wording', async () => {
    // team t, letter A: 1 complete, 2 no code, 3 does not convert, 4 simulate failure recorded, 5 level not simulated, 6 never generated.
    put(join(root, 't', 'raw', 'A', 't_A_1.txt'), "```\ndrop_block('b11', 10)\n```");
    put(join(root, 't', 'intermediate', 'A', 't_A_1.txt'), "drop_block('b11', 10)");
    put(join(root, 't', 'levels', 'A', 't_A_1.xml'), '<Level/>');
    mkdirSync(join(root, 't', 'images', 'A'), { recursive: true });
    copyFileSync(join(IMAGES, 'V1_L_1.png'), join(root, 't', 'images', 'A', 't_A_1.png'));
    put(join(root, 't', 'raw', 'A', 't_A_2.txt'), 'I cannot build that.');
    put(join(root, 't', 'raw', 'A', 't_A_3.txt'), "```\ndrop_block('b99', 10)\n```");
    put(join(root, 't', 'intermediate', 'A', 't_A_3.txt'), "drop_block('b99', 10)");
    put(join(root, 't', 'levels', 'A', 't_A_4.xml'), '<Level/>');
    put(
      cachePath(root, 't', 'A', 't_A_4.xml'),
      JSON.stringify({ format: 1, xmlSha256: '', settings: '', outcome: { ok: false, reason: 'the level has no blocks' } }),
    );
    put(join(root, 't', 'levels', 'A', 't_A_5.xml'), '<Level/>');
    writeTeam(root, 't', { A: { stability: [1, null, null, null, null, null], similarity: [0.25, null, null, null, null, null] } });
    const fates = folderFates(root, { teams: ['t'], trials: 6, prefix: 'drop_block' });
    expect(fates.map((f) => `${f.trial}:${f.reason}`)).toEqual([
      '1:',
      `2:${CODE_NOT_FOUND}`,
      '3:BlockType does not exist.',
      '4:the level has no blocks',
      '5:no image (the level is not simulated yet)',
      `6:${NEVER_GENERATED}`,
    ]);

    const { gallery, unreadable } = await collectGallery(root, { teams: ['t'], trials: 6, prefix: 'drop_block' });
    expect(unreadable).toEqual([]);
    const one = gallery.trials.find((t) => t.trial === '1')!;
    expect(one).toMatchObject({ image: 't_A_1.png', imageHref: '../t/images/A/t_A_1.png', stability: 1, similarity: 0.25 });
    expect(one.thumbnail).toMatch(/^data:image\/png;base64,/);
    expect(gallery.trials.filter((t) => t.thumbnail === undefined).map((t) => t.reason)).toEqual(fates.slice(1).map((f) => f.reason));
  });

  it('takes the run accounting when given, and turns an unreadable image into a blank that says so', async () => {
    put(join(root, 't', 'images', 'A', 't_A_5.png'), 'not a png');
    const fates = [
      { team: 't', letter: 'A', trial: '1', reason: '' },
      { team: 't', letter: 'A', trial: '5', reason: '' },
      { team: 't', letter: 'A', trial: '2', reason: 'Code not found.' },
    ];
    const { gallery, unreadable } = await collectGallery(root, { teams: ['t'], trials: 6, prefix: 'drop_block', fates });
    expect(gallery.trials.map((t) => t.trial)).toEqual(['1', '5', '2']);
    expect(unreadable.map((u) => u.path)).toEqual([join(root, 't', 'images', 'A', 't_A_5.png')]);
    expect(gallery.trials[1]!.reason).toMatch(/^image unreadable: /);
    expect(gallery.trials[1]!.thumbnail).toBeUndefined();
    expect(existsSync(join(root, '.sbeval', 'thumbnails'))).toBe(true);
  });
});
