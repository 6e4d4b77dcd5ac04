import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyMutant, loadMutants } from '../../scripts/unity-mutants.js';
import { PROJECT_ROOT } from '../helpers/cli.js';

/**
 * The mutant list of the Unity half (test/bridge/unity-mutants.json) stays applicable: every mutant's
 * edits match the current sources exactly once, so `npm run unity:mutants` (each mutant applied, `npm
 * run unity:check` must fail) checks what the list says. Running the mutants themselves is that
 * script's job (about half a minute each: a build of the mutated plugin and the stand-in editor).
 */
const work = mkdtempSync(join(tmpdir(), 'sbeval-mutant-list-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the Unity mutant list', () => {
  const mutants = loadMutants();

  it('holds the faults a review found surviving, each with the test that catches it', () => {
    expect(mutants.map((m) => m.id)).toEqual(
      expect.arrayContaining(['readpixels-origin', 'probes-on-blocks-only', 'load-limit-2-frames', 'ocr-sprites-wood-only', 'sample-at-late-update']),
    );
    expect(new Set(mutants.map((m) => m.id)).size).toBe(mutants.length);
    const tests = ['test/bridge/unity-plugin.test.ts', 'test/bridge/unity-double.test.ts'].map((f) => readFileSync(join(PROJECT_ROOT, f), 'utf8')).join('\n');
    for (const m of mutants) expect(tests, `${m.id}: killedBy "${m.killedBy}"`).toContain(m.killedBy);
  });

  it.each(mutants.map((m) => [m.id, m] as const))('%s applies to the current sources, and changes them', (_id, mutant) => {
    const plugin = join(work, mutant.id, 'unity-plugin');
    cpSync(join(PROJECT_ROOT, 'unity-plugin'), plugin, { recursive: true });
    expect(applyMutant(plugin, mutant)).toBeUndefined();
    for (const edit of mutant.edits)
      expect(readFileSync(join(plugin, edit.file), 'utf8')).not.toBe(readFileSync(join(PROJECT_ROOT, 'unity-plugin', edit.file), 'utf8'));
  });
});
