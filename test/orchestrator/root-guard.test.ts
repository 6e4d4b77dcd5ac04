import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { exampleCopy, runLogs, snapshot, spawnSbeval } from './helpers/competition.js';

/**
 * The root guard every writing command passes (orchestrator/layout/root-guard.ts), through the real
 * CLI as a black box: symbolic links where sbeval writes are refused before anything is written, one
 * process writes a root at a time (a live lock refuses, a stale one is taken over), and temporaries of
 * killed runs are removed. (The guard's parts in process: root-lock.test.ts.)
 */
const tiny = () => exampleCopy({ teams: ['BlockSmith'], letters: ['I'] });
const outsideDir = () => mkdtempSync(join(tmpdir(), 'sbeval-outside-'));

/** The lines sbeval itself printed to stderr (progress lines start with a time stamp). */
const sbevalLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('sbeval:'));

async function deadPid(): Promise<number> {
  const child = execa(process.execPath, ['-e', '0']);
  const pid = child.pid!;
  await child;
  return pid;
}

async function until(what: string, check: () => boolean, deadlineMs = 120_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('symbolic links where sbeval writes', () => {
  it('refuses a linked stage folder, logs or .sbeval through the CLI, writing nothing inside or outside the root', async () => {
    const cases: Array<{ command: string; link: string }> = [
      { command: 'run', link: 'BlockSmith/levels' },
      { command: 'extract', link: 'logs' },
      { command: 'simulate', link: '.sbeval' },
    ];
    for (const { command, link } of cases) {
      const root = tiny();
      const outside = outsideDir();
      symlinkSync(outside, join(root, link));
      const before = snapshot(root, [link]);
      const result = await spawnSbeval([command, root]);
      expect(result.exitCode, `${command} with ${link} linked: ${result.stderr}`).toBe(2);
      expect(sbevalLines(String(result.stderr))).toEqual([
        `sbeval: [input] ${join(root, link)} is a symbolic link (sbeval reads and writes only real folders inside the competition root: replace the link with a folder)`,
      ]);
      expect(readdirSync(outside), `${command} wrote through ${link}`).toEqual([]);
      expect(snapshot(root, [link]), `${command} wrote into the root`).toEqual(before);
    }
  }, 180_000);
});

describe('one writer per competition root', () => {
  it('refuses a second command while a run holds the root, and takes over the lock once that run was killed', async () => {
    const root = tiny();
    // A bridge run waits for engines to dial in: it holds the root until stopped.
    const first = spawnSbeval(['run', root, '--engine', 'bridge']);
    try {
      // Its run log exists once the run has started (the lock is taken before, by the CLI).
      await until('the first run to start', () => runLogs(root).length > 0);
      const lock = join(root, '.sbeval', 'lock');
      const owner = JSON.parse(readFileSync(lock, 'utf8')) as { pid: number; host: string; command: string };
      expect(owner).toMatchObject({ pid: first.pid, host: hostname(), command: 'run' });

      const second = await spawnSbeval(['run', root]);
      expect(second.exitCode).toBe(2);
      const lines = sbevalLines(String(second.stderr));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^sbeval: \\[storage\\] ${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by sbeval run \\(pid ${first.pid} on ${hostname()}, since [0-9T:.Z-]+\\) \\(wait for it to finish, or stop it with kill ${first.pid}\\)$`,
        ),
      );
      // The refused run wrote nothing: only the first run's log exists.
      expect(readdirSync(join(root, 'logs')).filter((f) => f.startsWith('run_'))).toHaveLength(1);

      first.kill('SIGKILL');
      await first;
      expect(JSON.parse(readFileSync(lock, 'utf8')).pid).toBe(first.pid); // left behind by the killed run
      const third = await spawnSbeval(['extract', root]);
      expect(third.exitCode, String(third.stderr)).toBe(0);
      expect(sbevalLines(String(third.stderr))).toEqual([
        expect.stringMatching(new RegExp(`^sbeval: took over the lock of sbeval run \\(pid ${first.pid}, since .+\\), which is no longer running$`)),
      ]);
      expect(existsSync(lock), 'the lock is released at the end').toBe(false);
    } finally {
      first.kill('SIGKILL');
      await first;
    }
  }, 300_000);
});

describe('temporary files of killed runs', () => {
  it('are removed when the next command starts; a live process keeps its own', async () => {
    const root = tiny();
    const dead = await deadPid();
    const stale = [
      join(root, 'BlockSmith', 'raw', 'I', `.BlockSmith_I_4.txt.${dead}.1.tmp`),
      join(root, 'BlockSmith', 'levels', 'I', `.BlockSmith_I_1.xml.${dead}.17.tmp`),
      join(root, '.sbeval', 'simulate', 'BlockSmith', 'I', `.BlockSmith_I_1.json.${dead}.3.tmp`),
      join(root, 'result', `.trials.csv.${dead}.9.tmp`),
      join(root, 'BlockSmith', 'traces', 'I', `.BlockSmith_I_1.trial1.sbtrace.${dead}.0a1b2c3d.tmp`),
    ];
    const live = join(root, 'BlockSmith', 'images', 'I', `.BlockSmith_I_1.png.${process.pid}.5.tmp`);
    const notOurs = join(root, 'BlockSmith', 'raw', 'I', '.notes.tmp');
    for (const file of [...stale, live, notOurs]) {
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, 'half');
    }
    const result = await spawnSbeval(['extract', root]);
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(sbevalLines(String(result.stderr))).toEqual([`sbeval: removed ${stale.length} temporary file(s) left by an interrupted run`]);
    for (const file of stale) expect(existsSync(file), file).toBe(false);
    expect(existsSync(live), 'a live process keeps its temporary').toBe(true);
    expect(existsSync(notOurs), 'a file that is not an sbeval temporary stays').toBe(true);
  }, 120_000);
});
