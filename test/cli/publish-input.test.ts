import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyExampleSources } from '../helpers/cli.js';
import { sbevalInProcess } from '../orchestrator/helpers/in-process-cli.js';

/** `sbeval publish` refuses what it cannot publish with a clear error, and writes nothing then. */
const dir = mkdtempSync(join(tmpdir(), 'sbeval-publish-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sbeval publish on bad input', () => {
  it('refuses a folder that was never scored, naming the missing ranking and the command that makes it', async () => {
    const root = join(dir, 'unscored');
    copyExampleSources(root, { teams: ['BlockSmith'], letters: ['I'] });
    const out = join(dir, 'site-unscored');
    const result = await sbevalInProcess(['publish', root, '--out', out]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('prompt_scores_ranks.csv does not exist');
    expect(result.stderr).toContain('sbeval score');
    expect(existsSync(out)).toBe(false);
  });

  it('refuses an --out folder that is not empty, and leaves its file alone', async () => {
    const out = join(dir, 'full');
    mkdirSync(out);
    writeFileSync(join(out, 'keep.txt'), 'mine');
    const result = await sbevalInProcess(['publish', join(dir, 'unscored'), '--out', out]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('is not empty');
    expect(existsSync(join(out, 'keep.txt'))).toBe(true);
  });
});
