import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * vitest globalSetup: `dist/` is what the sources say before any test file starts. The CLI tests run
 * `sbeval` as a user gets it — `bin/sbeval.js`, which runs the compiled CLI from `dist/` — so that a
 * command's child process starts in about a second instead of transpiling the sources through tsx
 * (and every engine worker thread again). `scripts/build-if-stale.mjs` (the package's `prepare` step)
 * builds only when a source is newer than the build, so `npm test` (which builds first) and a run of
 * one file after an edit both test the current sources.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export default function setup(): void {
  const result = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-if-stale.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`dist/ could not be built from the sources (scripts/build-if-stale.mjs exited ${result.status}):\n${result.stdout}${result.stderr}`);
}
