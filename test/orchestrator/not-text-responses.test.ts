import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exampleCopy } from './helpers/competition.js';
import { sbevalInProcess as sbeval } from './helpers/in-process-cli.js';

/**
 * A response that is not UTF-8 text (UTF-16, binary data) is read as UTF-8 the official way, so its row
 * says what that reading gives (`Code not found.`); the accounting says that the file is why, in `run`'s
 * closing list of warnings and in `score`'s, as it does for trials beyond T — not only in a line that
 * scrolled past while the stage ran. Through the CLI on a copy of the shipped example.
 */
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

const WARNING =
  /accounting: 2 response\(s\) not UTF-8 text \(BlockSmith\/I\/BlockSmith_I_2: a UTF-16 byte order mark; BlockSmith\/I\/BlockSmith_I_3: NUL bytes: binary data or UTF-16\): read as UTF-8 the official way/;

describe('responses that are not text', () => {
  it('are rows with the official reason and one warning in the summary of run and of score', async () => {
    const root = exampleCopy({ teams: ['BlockSmith'], letters: ['I'] });
    roots.push(root);
    const raw = join(root, 'BlockSmith', 'raw', 'I');
    const text = readFileSync(join(raw, 'BlockSmith_I_1.txt'), 'utf8');
    writeFileSync(join(raw, 'BlockSmith_I_2.txt'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    writeFileSync(join(raw, 'BlockSmith_I_3.txt'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0xc3]));
    const run = await sbeval(['run', root, '--workers', '1']);
    expect(run.code, run.stderr).toBe(0);
    const out = `${run.stdout}\n${run.stderr}`;
    expect(out).not.toMatch(/^warnings: none$/m);
    expect(out).toMatch(new RegExp(`^ {2}- ${WARNING.source}`, 'm'));
    const rows = readFileSync(join(root, 'result', 'trials.csv'), 'utf8');
    expect(rows).toMatch(/^BlockSmith,,I,2,raw,Code not found\.,,/m);
    expect(rows).toMatch(/^BlockSmith,,I,3,raw,Code not found\.,,/m);
    const score = await sbeval(['score', root]);
    expect(score.stderr).toMatch(WARNING);
  }, 120_000);
});
