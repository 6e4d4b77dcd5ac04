/**
 * Loader for the Pillow golden vectors in `fixtures/pillow/` (written by
 * `scripts/fixtures/pillow-preprocess.py` with Pillow + transformers' ViTImageProcessor; see its header).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { goldenPath } from '../helpers/cli.js';

export const PILLOW_DIR = fileURLToPath(new URL('./fixtures/pillow/', import.meta.url));

export interface PillowCase {
  name: string;
  source: string;
  what: string;
  pilMode: string;
  inputSize: [number, number];
  config: Record<string, unknown>;
  output: { height: number; width: number };
  resized: string;
  resizedSha256: string;
  normalized: string | null;
  normalizedSha256: string;
  checkedAgainstViTImageProcessor: boolean;
}

export interface PillowManifest {
  pillow: string;
  defaultConfig: Record<string, unknown>;
  cases: PillowCase[];
}

export function loadManifest(): PillowManifest {
  return JSON.parse(readFileSync(join(PILLOW_DIR, 'manifest.json'), 'utf8')) as PillowManifest;
}

/** Absolute path of a case's input PNG (`inputs/…` in the fixture folder or `golden/…` in test/fixtures/golden). */
export function manifestPath(c: PillowCase): string {
  return c.source.startsWith('golden/') ? goldenPath(c.source) : join(PILLOW_DIR, c.source);
}

/** Pillow's resize output (HWC RGB uint8): undo the row-then-column delta coding. */
export function expectedResized(c: PillowCase): Uint8Array {
  const d = gunzipSync(readFileSync(join(PILLOW_DIR, c.resized)));
  const { width, height } = c.output;
  const stride = width * 3;
  if (d.length !== height * stride) throw new Error(`${c.resized}: ${d.length} bytes, expected ${height * stride}`);
  const out = new Uint8Array(d.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let ch = 0; ch < 3; ch++) {
        const i = y * stride + x * 3 + ch;
        const left = x > 0 ? out[i - 3]! : 0;
        const up = y > 0 ? out[i - stride]! : 0;
        const upLeft = x > 0 && y > 0 ? out[i - stride - 3]! : 0;
        // d = (a - left) - (up - upLeft)  ⇒  a = d + left + up - upLeft (mod 256)
        out[i] = (d[i]! + left + up - upLeft) & 0xff;
      }
    }
  }
  return out;
}

export function expectedNormalized(c: PillowCase): Float32Array | undefined {
  if (!c.normalized) return undefined;
  const b = gunzipSync(readFileSync(join(PILLOW_DIR, c.normalized)));
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}
