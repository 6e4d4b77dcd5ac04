/**
 * The software a report's numbers came from: sbeval, Node.js, the physics, image and inference
 * libraries as installed (read from their package.json files), the headless engine's version and
 * physics-settings digest, the platform. No dates: the same installation writes the same lines.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { HEADLESS_ENGINE_VERSION, headlessDigest } from '../../bridge/headless/engine.js';
import type { ReportFact } from '../../scoring/report/index.js';

const require = createRequire(import.meta.url);

/** The version in the nearest package.json named `name` above `file`, or undefined. */
function packageVersionAbove(file: string, name: string): string | undefined {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        const json = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
        if (json.name === name && typeof json.version === 'string') return json.version;
      } catch {
        // Not a readable manifest: keep walking up.
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** The installed version of a dependency (its entry point resolved, then its package.json found above it). */
function installedVersion(name: string): string {
  try {
    return packageVersionAbove(require.resolve(name), name) ?? 'unknown';
  } catch {
    return 'not installed';
  }
}

export function softwareVersions(): ReportFact[] {
  return [
    { name: 'sbeval', value: packageVersionAbove(fileURLToPath(import.meta.url), 'sbeval') ?? 'unknown' },
    { name: 'Node.js', value: process.version },
    { name: 'platform', value: `${process.platform} ${process.arch}` },
    { name: 'headless engine', value: `${HEADLESS_ENGINE_VERSION} (evaluator settings ${headlessDigest()})` },
    { name: 'planck (physics)', value: installedVersion('planck') },
    { name: 'onnxruntime-node (similarity)', value: installedVersion('onnxruntime-node') },
    { name: 'sharp (images)', value: `${sharp.versions.sharp ?? installedVersion('sharp')} (libvips ${sharp.versions.vips})` },
  ];
}
