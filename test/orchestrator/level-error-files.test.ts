import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SBEVAL_BIN } from '../helpers/sbeval-bin.js';
import { copyOf, ok, scoredExample, type Workspace, workspace } from './helpers/result-folder.js';

/**
 * `sbeval simulate` and `sbeval run` keep a simulated level through one module
 * (orchestrator/stages/level-results.ts): a level edited into one the engine cannot load loses its
 * earlier image, gets its verdict cached, and has one Failed line in the stability log, alike in both.
 * On copies of the shipped example after `sbeval run`, the level's response and program removed.
 */
let ws: Workspace;
let scored: string;

beforeAll(async () => {
  ws = workspace('sbeval-level-error-files-');
  scored = await scoredExample(ws);
}, 240_000);
afterAll(() => {
  ws.restore();
  rmSync(ws.dir, { recursive: true, force: true });
});

const LEVEL = join('BlockSmith', 'levels', 'I', 'BlockSmith_I_1.xml');
const SOURCES = [join('BlockSmith', 'raw', 'I', 'BlockSmith_I_1.txt'), join('BlockSmith', 'intermediate', 'I', 'BlockSmith_I_1.txt')];
const IMAGE = join('BlockSmith', 'images', 'I', 'BlockSmith_I_1.png');
const CACHE = join('.sbeval', 'simulate', 'BlockSmith', 'I', 'BlockSmith_I_1.json');

/** The stability log lines about the level, from the logs this command wrote (those not in `before`). */
function newLines(root: string, before: ReadonlySet<string>): string[] {
  return readdirSync(join(root, 'logs'))
    .filter((f) => f.startsWith('stability_log_') && !before.has(f))
    .flatMap((f) => readFileSync(join(root, 'logs', f), 'utf8').split('\n'))
    .filter((l) => l.includes('trial: BlockSmith_I_1.xml'))
    .map((l) => l.replace(/^\[[^\]]+\] /, ''));
}

describe('a level that can no longer be loaded', () => {
  it('loses its image and has its verdict cached, in simulate and in run alike', async () => {
    const byStage = copyOf(scored, join(ws.dir, 'simulate'));
    const byRun = copyOf(scored, join(ws.dir, 'run'));
    const before = new Set(readdirSync(join(scored, 'logs')));
    for (const root of [byStage, byRun]) {
      expect(existsSync(join(root, IMAGE))).toBe(true);
      // The level alone, as a folder that starts at `levels` holds it (else convert writes it again from its program).
      for (const source of SOURCES) rmSync(join(root, source));
      writeFileSync(join(root, LEVEL), 'not a level XML\n');
    }
    await ok(['simulate', byStage]);
    await ok(['run', byRun, '--model', ws.model]);
    for (const root of [byStage, byRun]) {
      expect(existsSync(join(root, IMAGE)), root).toBe(false);
      const cached = JSON.parse(readFileSync(join(root, CACHE), 'utf8'));
      expect(cached.outcome.ok).toBe(false);
      expect(cached.outcome.reason).toMatch(/\S/);
    }
    expect(readFileSync(join(byRun, CACHE), 'utf8')).toBe(readFileSync(join(byStage, CACHE), 'utf8'));
    const logged = newLines(byStage, before);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/ - Failed - \S/);
    expect(newLines(byRun, before)).toEqual(logged);
  }, 180_000);

  it('that cannot be kept because its cache folder turned read-only stops simulate and run alike with one storage line', async () => {
    // The fault-injection seam of test/orchestrator/storage-faults.test.ts: every change under the folder fails (EROFS).
    const seam = fileURLToPath(new URL('../helpers/fs-faults.mjs', import.meta.url));
    for (const command of ['simulate', 'run']) {
      const root = copyOf(scored, join(ws.dir, `read-only-${command}`));
      for (const source of SOURCES) rmSync(join(root, source));
      writeFileSync(join(root, LEVEL), 'not a level XML\n');
      const fault = { code: 'EROFS', under: join(root, '.sbeval', 'simulate', 'BlockSmith', 'I') };
      const result = await execa(process.execPath, [SBEVAL_BIN, command, root, ...(command === 'run' ? ['--model', ws.model] : [])], {
        reject: false,
        env: { NODE_OPTIONS: `--import ${seam}`, SBEVAL_FS_FAULT: JSON.stringify(fault) },
      });
      const lines = result.stderr.split('\n').filter((l) => l.startsWith('sbeval:'));
      expect(result.exitCode, `${command}: ${result.stderr}`).toBe(2);
      expect(lines, command).toEqual([expect.stringMatching(/^sbeval: \[storage\] cannot .*BlockSmith_I_1.*: the file system is read-only \(EROFS\)/)]);
      // Nothing kept: the level's cache is still the earlier run's (of the level before it was edited).
      expect(readFileSync(join(root, CACHE), 'utf8'), command).toBe(readFileSync(join(scored, CACHE), 'utf8'));
    }
  }, 180_000);
});
