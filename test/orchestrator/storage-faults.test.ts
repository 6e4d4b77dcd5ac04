import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { SBEVAL_BIN } from '../helpers/sbeval-bin.js';
import { exampleCopy, PROJECT_ROOT, snapshot, spawnSbeval } from './helpers/competition.js';

/**
 * Storage faults (disk full, read-only folders, permissions, a folder where a file belongs): each stops
 * `sbeval run` with exit 2 and ONE line naming the path and the cause, leaves no half-written file, and
 * the same command run after the fix ends with the files of an undisturbed run.
 *
 * Faults come from two sources, both exercised on every machine:
 * - a real tiny tmpfs in a private mount namespace (`unshare -rm`: root, or unprivileged user
 *   namespaces) — when the machine refuses namespaces the same scenario runs through the seam;
 * - the fault-injection seam test/helpers/fs-faults.mjs, preloaded into the real CLI process, which
 *   fails writes below a folder once a byte budget is spent (ENOSPC) or makes a folder read-only
 *   (EROFS) or forbidden (EACCES) — the exact point a fault hits is chosen by the test.
 */
const SEAM = fileURLToPath(new URL('../helpers/fs-faults.mjs', import.meta.url));
const ARGS = ['--workers', '1'];
const competition = () => exampleCopy({ teams: ['BlockSmith'], letters: ['I', 'L'] });

interface Fault {
  code: string;
  under: string;
  afterBytes?: number;
}

const withFault = (args: string[], fault: Fault) => spawnSbeval(args, { NODE_OPTIONS: `--import ${SEAM}`, SBEVAL_FS_FAULT: JSON.stringify(fault) });

const CAUSES: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EISDIR: 'a folder is where a file should be',
  ENOTDIR: 'a file is where a folder should be',
};

/** Exit 2 and exactly one line from sbeval: `[storage] cannot <action> <path under root>: <cause> (<code>) (<hint>)`; no stack trace. Returns the path. */
function expectStorageLine(result: { exitCode?: number | undefined; stderr: unknown }, root: string, code: string): string {
  const stderr = String(result.stderr);
  expect(result.exitCode, stderr).toBe(2);
  const lines = stderr.split('\n').filter((l) => l.startsWith('sbeval:'));
  expect(lines, stderr).toHaveLength(1);
  const m = /^sbeval: \[storage\] cannot [a-z ]+? (\/\S+): (.+) \(([A-Z]+)\) \((.+)\)$/.exec(lines[0]!);
  expect(m, lines[0]).not.toBeNull();
  const [, path, cause, shownCode] = m!;
  expect(shownCode).toBe(code);
  expect(cause).toBe(CAUSES[code]);
  expect(relative(root, path!).startsWith('..'), `${path} is outside ${root}`).toBe(false);
  expect(stderr, 'no stack trace').not.toMatch(/^\s+at /m);
  return path!;
}

/** Every file is whole: no temporaries, JSON parses, PNGs end with IEND, text files end with a line end. */
function expectNothingHalfWritten(root: string): void {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
  for (const file of walk(root)) {
    const name = relative(root, file);
    expect(name.endsWith('.tmp'), `${name} left behind`).toBe(false);
    const bytes = readFileSync(file);
    if (name.endsWith('.json')) expect(() => JSON.parse(bytes.toString('utf8')), name).not.toThrow();
    if (name.endsWith('.jsonl')) for (const line of bytes.toString('utf8').split('\n').filter(Boolean)) expect(() => JSON.parse(line), name).not.toThrow();
    if (name.endsWith('.png')) expect(bytes.subarray(-8).toString('latin1'), name).toBe('IEND\xaeB`\x82');
    if (name.endsWith('.xml')) expect(bytes.toString('utf8').trimEnd().endsWith('</Level>'), name).toBe(true);
    if (/\.(csv|md|txt)$/.test(name) && bytes.length > 0 && !name.includes('/raw/')) expect(bytes.at(-1), name).toBe(0x0a);
  }
}

let reference: Map<string, string>;
let referenceBytes = 0;

beforeAll(async () => {
  const root = competition();
  const result = await spawnSbeval(['run', root, ...ARGS]);
  expect(result.exitCode, String(result.stderr)).toBe(0);
  reference = snapshot(root);
  const walk = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? walk(join(dir, e.name)) : statSync(join(dir, e.name)).size), 0);
  referenceBytes = walk(root);
}, 180_000);

async function expectResumesToReference(root: string): Promise<void> {
  const again = await spawnSbeval(['run', root, ...ARGS]);
  expect(again.exitCode, String(again.stderr)).toBe(0);
  const actual = snapshot(root);
  expect([...actual.keys()]).toEqual([...reference.keys()]);
  for (const [file, hash] of reference) expect(actual.get(file), file).toBe(hash);
}

/** `unshare -rm` works here (root, or unprivileged user namespaces): a real tmpfs can be mounted privately. */
async function canUseMountNamespace(): Promise<boolean> {
  const probe = await execa(
    'unshare',
    ['-rm', '--propagation', 'private', 'sh', '-c', 'd=$(mktemp -d) && mount -t tmpfs -o size=1m tmpfs "$d" && umount "$d"'],
    { reject: false },
  );
  return probe.exitCode === 0;
}

/**
 * Runs `script` (sh) in a private mount namespace with `$MNT` an empty folder to mount on and the
 * CLI as `$SBEVAL`; files it writes outside `$MNT` are visible to the test.
 */
async function inNamespace(mnt: string, script: string, env: Record<string, string>): Promise<void> {
  const result = await execa('unshare', ['-rm', '--propagation', 'private', 'sh', '-c', script], {
    reject: false,
    cwd: PROJECT_ROOT,
    env: { ...env, MNT: mnt, SBEVAL: `${process.execPath} ${SBEVAL_BIN}`, FORCE_COLOR: '0' },
  });
  expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
}

describe('a full disk', () => {
  it('stops the run with one line wherever the disk fills (seam, two points), and the next run finishes identically', async () => {
    // Early (the level stages) and late (images, caches, stability files), by the bytes an undisturbed run writes.
    for (const share of [0.06, 0.6]) {
      const root = competition();
      const result = await withFault(['run', root, ...ARGS], { code: 'ENOSPC', under: root, afterBytes: Math.round(referenceBytes * share) });
      expectStorageLine(result, root, 'ENOSPC');
      expectNothingHalfWritten(root);
      await expectResumesToReference(root);
    }
  }, 300_000);

  it('stops the run with one line when the run log hits the full disk (no uncaught exception), and resumes', async () => {
    const root = competition();
    const result = await withFault(['run', root, ...ARGS], { code: 'ENOSPC', under: join(root, 'logs'), afterBytes: 4_000 });
    const path = expectStorageLine(result, root, 'ENOSPC');
    expect(path.startsWith(join(root, 'logs'))).toBe(true);
    expectNothingHalfWritten(root);
    await expectResumesToReference(root);
  }, 300_000);

  it('on a real tiny tmpfs (private mount namespace; through the seam where namespaces are refused)', async () => {
    const source = competition();
    const out = mkdtempSync(join(tmpdir(), 'sbeval-tmpfs-out-'));
    if (await canUseMountNamespace()) {
      // 1 MiB, filled up to 64 KiB before the run: the disk fills during the level stages or the images.
      const mnt = mkdtempSync(join(tmpdir(), 'sbeval-mnt-'));
      await inNamespace(
        mnt,
        `set -e
        mount -t tmpfs -o size=1m tmpfs "$MNT"
        cp -r "$SOURCE" "$MNT/c"
        avail=$(df -k --output=avail "$MNT" | tail -1)
        dd if=/dev/zero of="$MNT/filler" bs=1k count=$((avail - 64)) 2>/dev/null
        set +e
        $SBEVAL run "$MNT/c" --workers 1 >"$OUT/first.out" 2>"$OUT/first.err"; echo $? >"$OUT/first.code"
        set -e
        cp -r "$MNT/c" "$OUT/after-fault"
        rm "$MNT/filler"
        $SBEVAL run "$MNT/c" --workers 1 >"$OUT/second.out" 2>"$OUT/second.err"; echo $? >"$OUT/second.code"
        cp -r "$MNT/c" "$OUT/resumed"`,
        { SOURCE: source, OUT: out },
      );
      const first = { exitCode: Number(readFileSync(join(out, 'first.code'), 'utf8')), stderr: readFileSync(join(out, 'first.err'), 'utf8') };
      expectStorageLine(first, join(mnt, 'c'), 'ENOSPC');
      expectNothingHalfWritten(join(out, 'after-fault'));
      expect(readFileSync(join(out, 'second.code'), 'utf8').trim(), readFileSync(join(out, 'second.err'), 'utf8')).toBe('0');
      const actual = snapshot(join(out, 'resumed'));
      expect([...actual.keys()]).toEqual([...reference.keys()]);
      for (const [file, hash] of reference) expect(actual.get(file), file).toBe(hash);
    } else {
      const result = await withFault(['run', source, ...ARGS], { code: 'ENOSPC', under: source, afterBytes: Math.round(referenceBytes * 0.3) });
      expectStorageLine(result, source, 'ENOSPC');
      expectNothingHalfWritten(source);
      await expectResumesToReference(source);
    }
  }, 300_000);
});

describe('read-only and forbidden folders', () => {
  it('a read-only competition folder: one line naming the first folder sbeval must create, nothing written', async () => {
    const root = competition();
    const before = snapshot(root, []);
    let result: { exitCode?: number | undefined; stderr: unknown };
    if (await canUseMountNamespace()) {
      // A real read-only mount (as root, chmod would not stop the writes).
      const out = mkdtempSync(join(tmpdir(), 'sbeval-ro-out-'));
      const mnt = mkdtempSync(join(tmpdir(), 'sbeval-mnt-'));
      await inNamespace(
        mnt,
        `set -e
        mount --bind "$ROOT" "$MNT"
        mount -o remount,bind,ro "$MNT"
        set +e
        $SBEVAL run "$MNT" --workers 1 >"$OUT/out" 2>"$OUT/err"; echo $? >"$OUT/code"`,
        { ROOT: root, OUT: out },
      );
      result = { exitCode: Number(readFileSync(join(out, 'code'), 'utf8')), stderr: readFileSync(join(out, 'err'), 'utf8').replaceAll(mnt, root) };
    } else {
      result = await withFault(['run', root, ...ARGS], { code: 'EROFS', under: root });
    }
    const path = expectStorageLine(result, root, 'EROFS');
    expect(path).toBe(join(root, '.sbeval'));
    expect(String(result.stderr)).toContain(`sbeval: [storage] cannot create the folder ${join(root, '.sbeval')}: the file system is read-only (EROFS)`);
    expect(snapshot(root, [])).toEqual(before);
  }, 300_000);

  it('a folder that turns read-only mid-run (images) stops the run; the next run finishes identically', async () => {
    const root = competition();
    const result = await withFault(['run', root, ...ARGS], { code: 'EROFS', under: join(root, 'BlockSmith', 'images') });
    const path = expectStorageLine(result, root, 'EROFS');
    expect(path.startsWith(join(root, 'BlockSmith', 'images'))).toBe(true);
    expect(existsSync(join(root, 'BlockSmith', 'stability')), 'no stability file from a run that could not write its images').toBe(false);
    expectNothingHalfWritten(root);
    await expectResumesToReference(root);
  }, 300_000);

  it('a forbidden result folder (EACCES) and a folder or file in the way (EISDIR, ENOTDIR) each give their line', async () => {
    const forbidden = competition();
    expect(
      expectStorageLine(await withFault(['run', forbidden, ...ARGS], { code: 'EACCES', under: join(forbidden, 'result') }), forbidden, 'EACCES').startsWith(
        join(forbidden, 'result'),
      ),
    ).toBe(true);

    const folderInTheWay = competition();
    mkdirSync(join(folderInTheWay, 'result', 'trials.csv'), { recursive: true });
    expect(expectStorageLine(await spawnSbeval(['run', folderInTheWay, ...ARGS]), folderInTheWay, 'EISDIR')).toBe(join(folderInTheWay, 'result', 'trials.csv'));

    const fileInTheWay = competition();
    writeFileSync(join(fileInTheWay, 'BlockSmith', 'images'), 'not a folder');
    expect(
      expectStorageLine(await spawnSbeval(['run', fileInTheWay, ...ARGS]), fileInTheWay, 'ENOTDIR').startsWith(join(fileInTheWay, 'BlockSmith', 'images')),
    ).toBe(true);
  }, 300_000);
});
