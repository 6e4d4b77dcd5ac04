import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../cli/main.js';
import { commandPath, ROOT_WRITERS } from '../../cli/root-writers.js';
import { SbevalError } from '../../core/errors.js';
import { CHARACTER_STAGES, logsDir, resultDir, stageDir, stateDir, TRIAL_STAGES } from '../../orchestrator/layout/competition.js';
import { guardRoot } from '../../orchestrator/layout/root-guard.js';
import { acquireRootLock } from '../../orchestrator/layout/root-lock.js';

/** Commands with a `<root>` argument that take no lock, and why. */
const ROOT_UNLOCKED: ReadonlyMap<string, string> = new Map([
  ['survey serve', 'serves raters for days beside other commands; it writes only their answer files, atomically, in its survey folder'],
  ['check', 'only reads: compares result/manifest.json with the folder'],
]);

/**
 * The root guard's parts in process (the CLI behaviour is in root-guard.test.ts): where links are
 * refused, the path helpers for library callers, the lock's edge cases, the list of guarded commands.
 */
const outsideDir = () => mkdtempSync(join(tmpdir(), 'sbeval-outside-'));

describe('symbolic links', () => {
  it('refuses a link at every folder sbeval reads or writes, in flat and 2025 model layouts', () => {
    const stages = [...TRIAL_STAGES, ...CHARACTER_STAGES];
    const links = [
      ...['logs', 'result', '.sbeval'],
      ...stages.map((stage) => `team/${stage}`),
      `team/raw/A`,
      '.sbeval/simulate',
      'qwen/logs',
      'qwen/team/levels',
    ];
    for (const link of links) {
      const root = mkdtempSync(join(tmpdir(), 'sbeval-links-'));
      mkdirSync(join(root, 'team'), { recursive: true });
      mkdirSync(join(root, 'qwen', 'team'), { recursive: true });
      if (link.startsWith('.sbeval/')) mkdirSync(join(root, '.sbeval'), { recursive: true });
      const parent = join(root, link, '..');
      mkdirSync(parent, { recursive: true });
      symlinkSync(outsideDir(), join(root, link));
      expect(() => guardRoot(root, 'test'), link).toThrow(`${join(root, link)} is a symbolic link`);
      expect(existsSync(join(root, '.sbeval', 'lock')), `${link}: a lock was left`).toBe(false);
    }
    // A link by another name, beside the stage folders, is none of sbeval's business.
    const root = mkdtempSync(join(tmpdir(), 'sbeval-links-'));
    mkdirSync(join(root, 'team', 'raw'), { recursive: true });
    symlinkSync(outsideDir(), join(root, 'team', 'notes'));
    guardRoot(root, 'test').release();
  });

  it('makes the path helpers refuse links too (for library callers that skip the guard)', () => {
    const root = mkdtempSync(join(tmpdir(), 'sbeval-links-'));
    mkdirSync(join(root, 'team'), { recursive: true });
    symlinkSync(outsideDir(), join(root, 'team', 'images'));
    symlinkSync(outsideDir(), join(root, 'logs'));
    symlinkSync(outsideDir(), join(root, 'result'));
    mkdirSync(join(root, '.sbeval'));
    symlinkSync(outsideDir(), join(root, '.sbeval', 'simulate'));
    expect(() => stageDir(root, 'team', 'images', 'A')).toThrow(SbevalError);
    expect(() => stageDir(root, 'team', 'images')).toThrow(/images is a symbolic link/);
    expect(() => logsDir(root)).toThrow(/logs is a symbolic link/);
    expect(() => resultDir(root)).toThrow(/result is a symbolic link/);
    expect(() => stateDir(root, 'simulate', 'team')).toThrow(/simulate is a symbolic link/);
    expect(stageDir(root, 'team', 'levels', 'A')).toBe(join(root, 'team', 'levels', 'A'));
  });
});

describe('the root lock', () => {
  it('treats a live pid that started after the lock was written as stale (pid reused after a crash)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sbeval-lock-'));
    const other = execa(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      mkdirSync(join(root, '.sbeval'));
      const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
      const stale = { pid: other.pid, host: hostname(), command: 'run', started: '2020-01-01T00:00:00.000Z', nonce: 'x', boot: bootId, startTicks: '1' };
      writeFileSync(join(root, '.sbeval', 'lock'), JSON.stringify(stale));
      const lock = acquireRootLock(root, 'test');
      expect(lock.replaced).toMatchObject({ pid: other.pid });
      expect(JSON.parse(readFileSync(lock.file, 'utf8')).pid).toBe(process.pid);
      lock.release();
      expect(existsSync(lock.file)).toBe(false);
    } finally {
      other.kill();
      await other.catch(() => undefined);
    }
  });

  it('counts a lock from another host as held, and a lock on the 2025 parent or a model folder too', () => {
    const root = mkdtempSync(join(tmpdir(), 'sbeval-lock-'));
    mkdirSync(join(root, '.sbeval'));
    writeFileSync(join(root, '.sbeval', 'lock'), JSON.stringify({ pid: 1234, host: 'elsewhere.invalid', command: 'score', started: 'then', nonce: 'n' }));
    expect(() => acquireRootLock(root, 'test')).toThrow(`${root} is in use by sbeval score (pid 1234 on elsewhere.invalid, since then)`);
    try {
      acquireRootLock(root, 'test');
    } catch (error) {
      expect((error as SbevalError).hint).toBe(`wait for it to finish; if that process is gone, remove ${join(root, '.sbeval', 'lock')}`);
    }

    const parent = mkdtempSync(join(tmpdir(), 'sbeval-lock-'));
    mkdirSync(join(parent, 'qwen', 'team'), { recursive: true });
    const outer = acquireRootLock(parent, 'run');
    expect(() => acquireRootLock(join(parent, 'qwen'), 'extract')).toThrow(`${parent} is in use by sbeval run (pid ${process.pid}`);
    expect(existsSync(join(parent, 'qwen', '.sbeval', 'lock')), 'the refused lock is not left behind').toBe(false);
    outer.release();
    const inner = acquireRootLock(join(parent, 'qwen'), 'extract');
    expect(() => acquireRootLock(parent, 'run')).toThrow(`${join(parent, 'qwen')} is in use by sbeval extract`);
    inner.release();
  });

  it('guards exactly the commands whose first argument is the competition root', async () => {
    const all = (command: Command): Command[] => command.commands.flatMap((c) => [c, ...all(c)]);
    const withRoot = all(await buildProgram())
      .filter((c) => c.registeredArguments[0]?.name() === 'root')
      .map((c) => commandPath(c));
    expect(withRoot.sort()).toEqual([...ROOT_WRITERS.keys(), ...ROOT_UNLOCKED.keys()].sort());
    for (const name of ROOT_UNLOCKED.keys()) expect(ROOT_WRITERS.has(name)).toBe(false);
  });
});
