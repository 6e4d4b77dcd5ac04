import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { type CliResult, PROJECT_ROOT } from './cli.js';
import { runShared } from './run-cache.js';

/**
 * sbeval as a user gets it: `npm pack` of this checkout, installed into an empty folder without
 * network — `npm ci --offline` from the tarball, its dependencies from the npm cache at the versions
 * of this checkout's package-lock.json (the lock of the empty folder is derived from it, so npm needs
 * no registry metadata) — made once per test run (test/helpers/run-cache.ts) and shared by the test
 * files that run the installed `sbeval` (`packed.sbeval([...])` is `npx sbeval …` in that folder).
 */
export interface PackedInstall {
  /** The folder the package is installed in (`node_modules/sbeval` inside). */
  dir: string;
  tarball: string;
  /** `npx sbeval <args>` in `dir` (or in `cwd`, a folder inside `dir`, where npx finds the same install). */
  sbeval(args: string[], env?: Record<string, string>, cwd?: string): Promise<CliResult>;
  /**
   * The installed `sbeval` (node_modules/.bin/sbeval, what npx runs) as a child process the caller
   * reads from and stops (`sbeval view`); started without npx so that the process is sbeval itself.
   */
  spawn(args: string[], cwd?: string): ResultPromise;
}

export async function packedInstall(): Promise<PackedInstall> {
  const root = await runShared('packed', install);
  const { dir, tarball } = JSON.parse(readFileSync(join(root, 'install.json'), 'utf8')) as { dir: string; tarball: string };
  return {
    dir,
    tarball,
    sbeval: async (args, env = {}, cwd = dir) => {
      const result = await execa('npx', ['--no-install', 'sbeval', ...args], { cwd, reject: false, env: { FORCE_COLOR: '0', ...env } });
      return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
    },
    spawn: (args, cwd = dir) => execa(join(dir, 'node_modules', '.bin', 'sbeval'), args, { cwd, reject: false, env: { FORCE_COLOR: '0' } }),
  };
}

/** `npm pack` of this checkout, made once per test run: the path of the tarball. */
export async function packedTarball(): Promise<string> {
  const root = await runShared('packed-tarball', pack);
  return (JSON.parse(readFileSync(join(root, 'tarball.json'), 'utf8')) as { tarball: string }).tarball;
}

async function pack(root: string): Promise<void> {
  // dist/ must be what the sources say: build it if stale (the package's own `prepare` step), then pack without scripts.
  await execa(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: PROJECT_ROOT });
  const packed = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', root], { cwd: PROJECT_ROOT });
  const tarball = join(root, (JSON.parse(String(packed.stdout)) as Array<{ filename: string }>)[0]!.filename);
  writeFileSync(join(root, 'tarball.json'), JSON.stringify({ tarball }));
}

async function install(root: string): Promise<void> {
  const tarball = await packedTarball();
  const dir = join(root, 'installed');
  mkdirSync(dir);
  writeInstallManifest(dir, tarball);
  // ONNXRUNTIME_NODE_INSTALL=skip: the runtime's optional GPU download (the CPU binaries are in the package).
  await execa('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: dir, env: { ONNXRUNTIME_NODE_INSTALL: 'skip' } });
  writeFileSync(join(root, 'install.json'), JSON.stringify({ dir, tarball }));
}

/**
 * package.json and package-lock.json of an empty project that depends on the tarball: the lock lists
 * the tarball and this checkout's locked production dependencies (every entry not marked dev), so
 * `npm ci --offline` (or `npm install --offline <spec>`) takes each from the npm cache by its integrity.
 * `spec` is how the project names the tarball (a path relative to `dir` is what `npm install x.tgz` writes).
 */
export function writeInstallManifest(dir: string, tarball: string, spec = `file:${tarball}`): void {
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  const lock = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  const packages: Record<string, unknown> = {
    '': { name: 'sbeval-installed', dependencies: { sbeval: spec } },
    'node_modules/sbeval': {
      version: pkg.version,
      resolved: spec,
      integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`,
      license: pkg.license,
      dependencies: pkg.dependencies,
      bin: pkg.bin,
      engines: pkg.engines,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) if (path !== '' && !entry.dev) packages[path] = entry;
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'sbeval-installed', private: true, dependencies: { sbeval: spec } }, null, 2)}\n`);
  writeFileSync(join(dir, 'package-lock.json'), `${JSON.stringify({ name: 'sbeval-installed', lockfileVersion: 3, requires: true, packages }, null, 2)}\n`);
}
