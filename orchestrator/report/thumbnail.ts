/**
 * Thumbnails of the evaluator's images for the report: the PNG decoded (sharp), turned grey and shrunk
 * by area averaging (scoring/report/area-downscale.ts), and stored as a 16-grey palette PNG (about 250
 * bytes for an 80-px thumbnail of a 1024-px image, measured on the example's images and the reference
 * levels').
 *
 * Thumbnails are cached by the image's content (`<dir>/.sbeval/thumbnails/<sha256>-<size>.png`):
 * identical images share one, and a report built again reads them back instead of decoding every
 * 1024-px PNG.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { sha256 } from '../../core/hash.js';
import { areaDownsampleGrey } from '../../scoring/report/area-downscale.js';
import { MAX_INPUT_PIXELS } from '../../scoring/similarity/decode.js';
import { decodeGreyPng } from '../../scoring/similarity/png-grey.js';
import { writeFileAtomic } from '../layout/atomic.js';

/** Thumbnail side in pixels: 80 px shows a 1024-px evaluator image's letter (824 px) at about 64 px. */
export const THUMBNAIL_SIZE = 80;
/** Grey levels kept in the thumbnail's palette: enough for the anti-aliased edges of a downscale. */
const PALETTE_COLOURS = 16;
/** Bumped when the thumbnail algorithm changes, so cached thumbnails are made again. */
const THUMBNAIL_VERSION = 1;

/** A thumbnail PNG of any image sharp reads (PNG of every colour type and depth). */
export async function makeThumbnail(image: Uint8Array, size: number = THUMBNAIL_SIZE): Promise<Buffer> {
  // Plain grey PNGs (sbeval's own captures) decode without libvips and as one channel (png-grey.ts).
  const plain = decodeGreyPng(image, MAX_INPUT_PIXELS);
  let grey: Uint8Array;
  if (plain) grey = areaDownsampleGrey(plain.data, plain.width, plain.height, plain.channels, size);
  else {
    const { data, info } = await sharp(image, { limitInputPixels: MAX_INPUT_PIXELS }).raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
    grey = areaDownsampleGrey(data, info.width, info.height, info.channels, size);
  }
  return sharp(grey, { raw: { width: size, height: size, channels: 1 } })
    .png({ palette: true, colours: PALETTE_COLOURS, dither: 0, compressionLevel: 9 })
    .toBuffer();
}

function thumbnailCachePath(dir: string, image: Uint8Array, size: number = THUMBNAIL_SIZE): string {
  const digest = sha256(image);
  return join(dir, '.sbeval', 'thumbnails', `${digest}-${size}-v${THUMBNAIL_VERSION}.png`);
}

/**
 * The thumbnail of an image file as a `data:` URI, from the cache under `cacheRoot` when it is there
 * (made and stored otherwise). Throws when the file cannot be read or decoded.
 */
export async function thumbnailDataUri(imagePath: string, cacheRoot: string, size: number = THUMBNAIL_SIZE): Promise<string> {
  const image = await readFile(imagePath);
  const cached = thumbnailCachePath(cacheRoot, image, size);
  let png: Buffer;
  try {
    png = await readFile(cached);
  } catch {
    png = await makeThumbnail(image, size);
    // The cache is an optimisation: a read-only folder still gets its report.
    await writeFileAtomic(cached, png).catch(() => undefined);
  }
  return `data:image/png;base64,${png.toString('base64')}`;
}
