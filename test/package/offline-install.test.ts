import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { packedTarball, writeInstallManifest } from '../helpers/packed.js';

/**
 * README.md's "Offline Linux servers" paragraph, checked as written: the packed package (shared with
 * the other package tests, test/helpers/packed.ts) installed into an empty folder on a machine without
 * network — a new network namespace with no interface up (`unshare -n`, util-linux), npm `--offline`
 * taking every dependency from the npm cache (the folder's lock is this checkout's, so npm asks no
 * registry for metadata). The plain command the paragraph names must stop in onnxruntime-node's install
 * script with the error it quotes; its skip command must install a working `sbeval` whose package
 * carries the docs pages the product's messages cite.
 */
const README = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
const VERSION = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** The paragraph as one line (markdown wraps it anywhere). */
function paragraph(): string {
  const start = README.indexOf('**Offline Linux servers.**');
  expect(start, 'README.md has no "Offline Linux servers" paragraph').toBeGreaterThanOrEqual(0);
  return README.slice(start, README.indexOf('\n\n', start)).replace(/\s*\n\s*/g, ' ');
}

/** The code span of the paragraph that `pattern` (a regex source that may hold one group) finds. */
function quoted(pattern: string): string {
  const text = paragraph();
  const m = new RegExp(pattern).exec(text);
  expect(m, `README.md's "Offline Linux servers" paragraph has no ${pattern}:\n${text}`).not.toBeNull();
  return m![1]!;
}

/** How this machine cuts a child off the network: `unshare -n` as root, `unshare -rn` (a user namespace) otherwise. */
function offlinePrefix(): string[] {
  for (const prefix of [
    ['unshare', '-n'],
    ['unshare', '-rn'],
  ]) {
    try {
      execFileSync(prefix[0]!, [...prefix.slice(1), 'true'], { stdio: 'pipe' });
      return prefix;
    } catch {
      // the next way
    }
  }
  throw new Error(
    'neither `unshare -n` nor `unshare -rn` works here: this test needs a process without network (util-linux, root or user namespaces; .ci/run installs it)',
  );
}

/**
 * The environment of a user's shell: none of the test run's onnxruntime setting (CI exports it) or of
 * the variables `npm test` gives its scripts (their project and prefix are this checkout), the npm
 * cache kept.
 */
function userEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { FORCE_COLOR: '0' };
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || key === 'ONNXRUNTIME_NODE_INSTALL' || (/^npm_/i.test(key) && key.toLowerCase() !== 'npm_config_cache')) continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

/** `VAR=value … npm install <tarball>` as written, in an empty project beside a copy of the tarball, offline. */
async function installOffline(command: string, tarball: string, prefix: string[]) {
  const words = command.split(/\s+/);
  const assignments = Object.fromEntries(words.filter((w) => /^[A-Z_]+=/.test(w)).map((w) => w.split('=') as [string, string]));
  const argv = words.filter((w) => !/^[A-Z_]+=/.test(w)).map((w) => w.replace('<version>', VERSION));
  const dir = mkdtempSync(join(work, 'project-'));
  const file = argv.at(-1)!;
  expect(file).toBe(basename(tarball));
  copyFileSync(tarball, join(dir, file));
  writeInstallManifest(dir, join(dir, file), `file:${file}`);
  const result = await execa(prefix[0]!, [...prefix.slice(1), ...argv, '--offline', '--no-audit', '--no-fund'], {
    cwd: dir,
    reject: false,
    extendEnv: false,
    env: userEnv(assignments),
  });
  return { dir, exitCode: result.exitCode, output: `${String(result.stdout)}\n${String(result.stderr)}` };
}

let tarball: string;
let prefix: string[];
let work: string;

beforeAll(async () => {
  prefix = offlinePrefix();
  tarball = await packedTarball();
  work = mkdtempSync(join(tmpdir(), 'sbeval-offline-install-'));
}, 900_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("README.md's offline install, on a machine without network", { timeout: 300_000 }, () => {
  it('the child really has no network', async () => {
    const probe = await execa(
      prefix[0]!,
      [...prefix.slice(1), process.execPath, '-e', "require('node:dns').lookup('registry.npmjs.org', (e) => process.exit(e ? 3 : 0))"],
      {
        reject: false,
      },
    );
    expect(probe.exitCode).toBe(3);
  });

  it("the plain install stops in onnxruntime-node's install script with the error the README quotes", async () => {
    const plain = quoted('`(npm install sbeval-<version>\\.tgz)`');
    const error = quoted('offline it stops the install with `([^`]+)`');
    const result = await installOffline(plain, tarball, prefix);
    expect(result.exitCode, result.output).not.toBe(0);
    expect(result.output).toContain(error);
    expect(result.output).toMatch(/node_modules\/onnxruntime-node\b/);
    expect(existsSync(join(result.dir, 'node_modules', 'sbeval'))).toBe(false);
  });

  it("the README's skip command installs a working sbeval that carries the docs its messages cite", async () => {
    const skip = quoted('`(ONNXRUNTIME_NODE_INSTALL=skip npm install sbeval-<version>\\.tgz)`');
    const result = await installOffline(skip, tarball, prefix);
    expect(result.exitCode, result.output).toBe(0);
    const version = await execa(prefix[0]!, [...prefix.slice(1), 'npx', 'sbeval', '--version'], {
      cwd: result.dir,
      reject: false,
      extendEnv: false,
      env: userEnv({}),
    });
    expect(version.exitCode, String(version.stderr)).toBe(0);
    expect(String(version.stdout).trim()).toBe(VERSION);
    expect(String(version.stderr)).toBe('');
    const installed = join(result.dir, 'node_modules', 'sbeval');
    const cited = citedDocs(join(installed, 'dist'));
    expect(cited.size).toBeGreaterThan(5);
    expect([...cited].filter((page) => !existsSync(join(installed, page)))).toEqual([]);
  });
});

/** Every `docs/<page>.md` the installed product's code names (its messages and hints point users there; not another project's `…/docs/x.md`). */
function citedDocs(dir: string): Set<string> {
  const out = new Set<string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
    for (const m of readFileSync(join(entry.parentPath, entry.name), 'utf8').matchAll(/(?<![\w/.-])docs\/[\w-]+\.md\b/g)) out.add(m[0]);
  }
  return out;
}
