import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REFERENCE_LEVELS } from '../helpers/cli.js';
import { sbevalInProcess as sbeval } from './helpers/in-process-cli.js';

/**
 * One write guard (core/write-guard.ts) for the two commands that write into a folder
 * the user names rather than into a competition root — `sbeval qualify --copy-to <dir>` and `sbeval
 * record --out <corpus>` — write through the same guard (core/write-guard.ts): a symbolic link inside
 * the target (a received corpus or prompts folder may hold one) is refused with one `[storage]` line
 * naming it and exit 2, and nothing is written where it points (on the base commit both wrote through).
 */
const base = mkdtempSync(join(tmpdir(), 'sbeval-out-guard-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function folders(name: string): { target: string; outside: string } {
  const target = join(base, name, 'target');
  const outside = join(base, name, 'outside');
  mkdirSync(target, { recursive: true });
  mkdirSync(outside, { recursive: true });
  return { target, outside };
}

/** Runs `args` with a link planted at `link` inside the target: exit 2, one `[storage]` line naming the link. */
async function refused(args: string[], link: string): Promise<void> {
  const result = await sbeval(args);
  expect(result.code).toBe(2);
  expect(result.stderr.split('\n').filter((l) => l.startsWith('sbeval: ['))).toEqual([
    `sbeval: [storage] cannot write through ${link}: a symbolic link is there, which could carry the write outside the competition root (SYMLINK) (sbeval writes only real folders inside the competition root: replace the link with a folder, then run the same command again)`,
  ]);
}

describe('sbeval qualify --copy-to', () => {
  const prompts = join(base, 'prompts');
  mkdirSync(prompts, { recursive: true });
  writeFileSync(join(prompts, 'Team.txt'), 'Build the letter <OBJECT> with a few blocks, stems first.\n');

  it('refuses a link inside the target as the log folder, writing nothing outside', async () => {
    const { target, outside } = folders('qualify-logs');
    symlinkSync(outside, join(target, 'logs'), 'dir');
    await refused(['qualify', prompts, '--copy-to', target], join(target, 'logs'));
    expect(readdirSync(outside)).toEqual([]);
  });

  it('refuses a link inside the target where a qualified prompt is copied, leaving the file it points to as it was', async () => {
    const { target, outside } = folders('qualify-copy');
    writeFileSync(join(outside, 'theirs.txt'), 'theirs\n');
    symlinkSync(join(outside, 'theirs.txt'), join(target, 'Team.txt'));
    await refused(['qualify', prompts, '--copy-to', target], join(target, 'Team.txt'));
    expect(readFileSync(join(outside, 'theirs.txt'), 'utf8')).toBe('theirs\n');
    expect(readdirSync(outside)).toEqual(['theirs.txt']);
  });

  it('still copies into a plain target', async () => {
    const { target } = folders('qualify-plain');
    const result = await sbeval(['qualify', prompts, '--copy-to', join(target, 'new')]);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(target, 'new', 'Team.txt'), 'utf8')).toContain('<OBJECT>');
    expect(readdirSync(join(target, 'new', 'logs'))).toHaveLength(1);
  });
});

describe('sbeval record --out', () => {
  const levels = join(base, 'levels');
  mkdirSync(join(levels, 'L'), { recursive: true });
  copyFileSync(join(REFERENCE_LEVELS, 'v1/levels/L', 'V1_L_10.xml'), join(levels, 'L', 'V1_L_10.xml'));

  it('refuses a link inside the corpus folder where a trace goes, writing nothing outside', async () => {
    const { target, outside } = folders('record-trace');
    symlinkSync(outside, join(target, 'L'), 'dir');
    await refused(['record', levels, '--out', target], join(target, 'L'));
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(join(target, 'corpus.json'))).toBe(false);
  }, 60_000);

  it('refuses a link as the corpus index, leaving the file it points to as it was', async () => {
    const { target, outside } = folders('record-index');
    writeFileSync(join(outside, 'theirs.json'), '{}\n');
    symlinkSync(join(outside, 'theirs.json'), join(target, 'corpus.json'));
    await refused(['record', levels, '--out', target], join(target, 'corpus.json'));
    expect(readFileSync(join(outside, 'theirs.json'), 'utf8')).toBe('{}\n');
  }, 60_000);
});
