import sharp from 'sharp';
import { IMAGE_SIZE } from './render.js';

/**
 * PNG encoding with sharp, in the evaluator's channel layout: Unity's `Texture2D.EncodeToPNG` of an
 * RGBA32 texture writes 8-bit RGBA (colour type 6), as every reference image is. Fixed options and no
 * metadata, so the same pixels always give the same bytes (in any process).
 */
export async function encodePng(rgba: Uint8Array, width = IMAGE_SIZE, height = IMAGE_SIZE): Promise<Uint8Array> {
  const buffer = await sharp(Buffer.from(rgba.buffer, rgba.byteOffset, rgba.byteLength), { raw: { width, height, channels: 4 } })
    .png({ compressionLevel: 6, adaptiveFiltering: false, palette: false, force: true })
    .toBuffer();
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/** Decodes any PNG to RGBA pixels (tests, fidelity IoU). */
export async function decodePng(png: Uint8Array): Promise<{ width: number; height: number; rgba: Uint8Array }> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, rgba: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}
