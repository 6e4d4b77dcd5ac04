#!/usr/bin/env node
// `prepare`: build dist/ unless it is already built from these sources.
//
// npm runs `prepare` on `npm ci` (a fresh clone has no dist/: build) and also whenever `npx sbeval`
// installs this checkout into a fresh npx cache — a full `tsc` (about 25 s of CPU) before the first
// `npx sbeval …` of every user. The stamp written after a build records the newest source time and
// the number of source files; when neither changed, the build is skipped. `npm run build` always builds.
// The build is tsc, then the playground's browser bundle (scripts/build-play.mjs, into dist/play/).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stampFile = join(root, 'dist', '.build-stamp.json');
// The inputs of tsconfig.build.json (its include list, the folders they import, the configs).
const INPUTS = [
  'index.ts',
  'core',
  'levels',
  'bridge',
  'scoring',
  'orchestrator',
  'viewer',
  'llm',
  'cli',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
  'scripts/build-play.mjs',
];

function sources() {
  let newest = 0;
  let count = 0;
  const visit = (path) => {
    if (!existsSync(path)) return;
    const info = statSync(path);
    if (info.isDirectory()) {
      for (const name of readdirSync(path)) if (!name.startsWith('.') && name !== 'node_modules') visit(join(path, name));
      return;
    }
    newest = Math.max(newest, info.mtimeMs);
    count += 1;
  };
  for (const input of INPUTS) visit(join(root, input));
  return { newest, count };
}

const now = sources();
let stamp;
try {
  stamp = JSON.parse(readFileSync(stampFile, 'utf8'));
} catch {
  stamp = undefined;
}
const entry = join(root, 'dist', 'cli', 'main.js');
const playEntry = join(root, 'dist', 'play', 'play.js');
// A build by another route (`npm run build`, `npm test`'s tsc) writes no stamp: a CLI entry newer than
// every source file is as good (tsc rewrites every output on a full build).
const builtAfterSources = existsSync(entry) && statSync(entry).mtimeMs >= now.newest && existsSync(playEntry) && statSync(playEntry).mtimeMs >= now.newest;
if (existsSync(entry) && existsSync(playEntry) && ((stamp && stamp.newest === now.newest && stamp.count === now.count) || builtAfterSources)) {
  process.stdout.write('dist/ is up to date with the sources (npm run build rebuilds it anyway)\n');
  process.exit(0);
}
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
if (result.status !== 0) process.exit(result.status ?? 1);
const play = spawnSync(process.execPath, [join(root, 'scripts', 'build-play.mjs')], { stdio: 'inherit', cwd: root });
if (play.status !== 0) process.exit(play.status ?? 1);
writeFileSync(stampFile, `${JSON.stringify(now)}\n`);
