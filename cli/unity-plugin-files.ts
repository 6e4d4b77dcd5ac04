import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROTOCOL_VERSION } from '../bridge/protocol.js';
import { UNITY_ENTRY_METHOD } from '../bridge/remote-launchers.js';
import { SbevalError } from '../core/errors.js';

/**
 * The Unity plugin as this sbeval installation ships it, and as `sbeval unity install` leaves it in a
 * project: which folders are copied, where to, and the marker file naming the versions (read back by
 * `sbeval unity doctor`).
 */

/** The plugin folder of this sbeval installation (sources or the published package). */
export function pluginSource(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i += 1) {
    const candidate = join(dir, 'unity-plugin');
    if (existsSync(join(candidate, 'Runtime', 'Protocol.cs'))) return candidate;
    dir = dirname(dir);
  }
  throw new SbevalError('config', 'the unity-plugin folder of this sbeval installation was not found');
}

/** Where the plugin goes inside a project. */
export const INSTALL_DIR = join('Assets', 'Sbeval');

/** What is copied: the runtime and editor sources and the README (never the test double or the mono tests: Unity has the real types). */
export const INSTALLED = ['Runtime', 'Editor', 'README.md'];

/** The marker file in INSTALL_DIR. */
export const MARKER_FILE = 'SBEVAL-PLUGIN.txt';

export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(pluginSource(), '..', 'package.json'), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export function markerText(): string {
  return (
    `sbeval Unity plugin ${packageVersion()}, bridge protocol ${PROTOCOL_VERSION}.\n` +
    'Installed by `sbeval unity install`; reinstall with --force after upgrading sbeval.\n' +
    `Batch entry: ${UNITY_ENTRY_METHOD}\n`
  );
}

/** The versions a marker names (undefined when it is not one). */
export function readMarker(text: string): { plugin: string; protocol: string } | undefined {
  const m = /^sbeval Unity plugin (\S+), bridge protocol (\S+)\.$/m.exec(text);
  return m ? { plugin: m[1] as string, protocol: m[2] as string } : undefined;
}
