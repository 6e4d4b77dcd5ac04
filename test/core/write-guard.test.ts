import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeError } from '../../core/errors.js';
import { StorageError } from '../../core/storage.js';
import { confineWrites, type GuardedWrite, guardWrite, WRITE_CHANNEL } from '../../core/write-guard.js';
import { writeFileAtomic } from '../../orchestrator/layout/atomic.js';
import { LineFile } from '../../orchestrator/layout/line-file.js';

/**
 * The write guard in process (core/write-guard.ts); every command through the CLI:
 * test/orchestrator/writing-commands.test.ts.
 */
const withdrawals: Array<() => void> = [];
afterEach(() => {
  for (const withdraw of withdrawals.splice(0)) withdraw();
});

function confined(): { root: string; outside: string } {
  const base = mkdtempSync(join(tmpdir(), 'sbeval-guard-'));
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  withdrawals.push(confineWrites(root));
  return { root, outside };
}

function refusal(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(StorageError);
    return describeError(error);
  }
  throw new Error('not refused');
}

describe('guardWrite under a declared root', () => {
  it('makes the missing folders one by one and lets the write through', () => {
    const { root } = confined();
    const file = join(root, 'team', 'judge-rubric', 'I.json');
    expect(guardWrite(file)).toBe(file);
    expect(lstatSync(join(root, 'team', 'judge-rubric')).isDirectory()).toBe(true);
    expect(existsSync(file)).toBe(false);
  });

  it('refuses a link at any depth between the root and the file, and a link as the file, naming the link', () => {
    const { root, outside } = confined();
    mkdirSync(join(root, 'team'));
    symlinkSync(outside, join(root, 'team', 'judge-rubric'));
    const link = join(root, 'team', 'judge-rubric');
    expect(refusal(() => guardWrite(join(link, 'deeper', 'I.json')))).toBe(
      `cannot write through ${link}: a symbolic link is there, which could carry the write outside the competition root (SYMLINK) (sbeval writes only real folders inside the competition root: replace the link with a folder, then run the same command again)`,
    );
    expect(readdirSync(outside)).toEqual([]);
    // A link that points inside the root is refused too: the rule is about links, not their targets.
    mkdirSync(join(root, 'real'));
    symlinkSync(join(root, 'real'), join(root, 'alias'));
    expect(refusal(() => guardWrite(join(root, 'alias', 'x.txt')))).toContain(`cannot write through ${join(root, 'alias')}:`);
    // The file itself a link (an append would follow it).
    writeFileSync(join(outside, 'target.txt'), 'theirs');
    symlinkSync(join(outside, 'target.txt'), join(root, 'real', 'log.txt'));
    expect(refusal(() => new LineFile(join(root, 'real', 'log.txt')).append('ours\n'))).toContain(`cannot write through ${join(root, 'real', 'log.txt')}:`);
    expect(readFileSync(join(outside, 'target.txt'), 'utf8')).toBe('theirs');
    // A file where a folder belongs.
    writeFileSync(join(root, 'plain'), '');
    expect(refusal(() => guardWrite(join(root, 'plain', 'x.txt')))).toMatch(/\(ENOTDIR\)/);
  });

  it('guards atomic writes, whose temporaries are never followed through a planted link', async () => {
    const { root, outside } = confined();
    symlinkSync(outside, join(root, 'result'));
    await expect(writeFileAtomic(join(root, 'result', 'trials.csv'), 'x\n')).rejects.toThrow(/cannot write through .*result: a symbolic link/);
    expect(readdirSync(outside)).toEqual([]);
    // Temporaries are created exclusively: a link planted under the next names is skipped, not written through.
    mkdirSync(join(root, 'logs'));
    for (let n = 1; n <= 3; n += 1) symlinkSync(join(outside, `planted-${n}`), join(root, 'logs', `.a.txt.${process.pid}.${n}.tmp`));
    await writeFileAtomic(join(root, 'logs', 'a.txt'), 'ours\n');
    expect(readFileSync(join(root, 'logs', 'a.txt'), 'utf8')).toBe('ours\n');
    expect(readdirSync(outside)).toEqual([]);
  });

  it('checks from the outermost declared root (a 2025 parent before its model folder); outside every root it only makes folders', () => {
    const { root, outside } = confined();
    mkdirSync(join(root, 'model-a'));
    withdrawals.push(confineWrites(join(root, 'model-a')));
    symlinkSync(outside, join(root, 'linked'));
    expect(refusal(() => guardWrite(join(root, 'linked', 'x')))).toContain('SYMLINK');
    // A declared folder that does not exist yet (a survey's --out) is made with the file's folders.
    const fresh = join(outside, 'survey-out');
    withdrawals.push(confineWrites(fresh));
    expect(guardWrite(join(fresh, 'assets', 'a.png'))).toBe(join(fresh, 'assets', 'a.png'));
    expect(lstatSync(join(fresh, 'assets')).isDirectory()).toBe(true);
    const free = join(outside, 'elsewhere', 'deep', 'x.txt');
    expect(guardWrite(free)).toBe(free);
    expect(existsSync(join(outside, 'elsewhere', 'deep'))).toBe(true);
  });

  it('stops checking once the root is withdrawn, and publishes every guarded path on its channel', () => {
    const { root, outside } = confined();
    symlinkSync(outside, join(root, 'linked'));
    const seen: GuardedWrite[] = [];
    const listener = (message: unknown) => seen.push(message as GuardedWrite);
    subscribe(WRITE_CHANNEL, listener);
    try {
      guardWrite(join(root, 'a', 'b.txt'));
      guardWrite(join(root, 'c'), { folder: true });
    } finally {
      unsubscribe(WRITE_CHANNEL, listener);
    }
    expect(seen).toEqual([
      { path: join(root, 'a', 'b.txt'), folder: false },
      { path: join(root, 'c'), folder: true },
    ]);
    withdrawals.pop()!();
    expect(() => guardWrite(join(root, 'linked', 'x.txt'))).not.toThrow();
  });
});
