import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sbevalInProcess as sbeval } from './helpers/in-process-cli.js';
import { copyOf, ok, type RunCounts, resultFiles, runCounts, scoredExample, type Workspace, workspace } from './helpers/result-folder.js';

/**
 * After a scored run, `sbeval check` detects a changed level, image, similarity file
 * and judge file (exit 1, naming it), and a full `sbeval run` then redoes exactly what changed — the
 * counts of recomputed levels, classified images, diversity files and whether the score was written are
 * asserted — after which `check` says the results describe the folder again.
 *
 * The folder: the example (3 teams × 5 letters × 3 responses), a team `Outsider` whose folder starts at
 * `levels/` (its levels are inputs, not derived from responses), and a rubric judge's file.
 */
let ws: Workspace;
let scored: string;

const RUBRIC = (score: number) => `${JSON.stringify({ judge: 'rubric', character: 'I', trials: [{ name: 'BlockSmith_I_1', score }] })}\n`;

beforeAll(async () => {
  ws = workspace('sbeval-result-check-');
  // The example scored, then Outsider's level and the judge's file added and a run over them.
  scored = await scoredExample(ws);
  mkdirSync(join(scored, 'Outsider', 'levels', 'I'), { recursive: true });
  // Outsider's level: an I as BlockSmith's response makes it.
  copyFileSync(join(scored, 'BlockSmith', 'levels', 'I', 'BlockSmith_I_2.xml'), join(scored, 'Outsider', 'levels', 'I', 'Outsider_I_1.xml'));
  mkdirSync(join(scored, 'BlockSmith', 'judge-rubric'), { recursive: true });
  writeFileSync(join(scored, 'BlockSmith', 'judge-rubric', 'I.json'), RUBRIC(50));
  await ok(['run', scored, '--model', ws.model]);
  const check = await sbeval(['check', scored]);
  expect(check.code, check.stdout).toBe(0);
  expect(check.stdout).toMatch(/^result\/ describes the folder: \d+ input file\(s\) unchanged since sbeval run wrote it\n$/);
}, 240_000);
afterAll(() => {
  ws.restore();
  rmSync(ws.dir, { recursive: true, force: true });
});

/** `check` names the change (exit 1), `run --json` redoes it, `check` is satisfied again; returns the run's counts. */
async function detectAndRedo(root: string, named: RegExp): Promise<RunCounts> {
  const before = await sbeval(['check', root]);
  expect(before.code, before.stdout).toBe(1);
  expect(before.stdout).toMatch(/^result\/ does not describe the folder any more \(written by sbeval run\); run sbeval run to bring it up to date\n/);
  expect(before.stdout).toMatch(named);
  const run = await ok(['run', root, '--model', ws.model, '--json']);
  const after = await sbeval(['check', root]);
  expect(after.code, after.stdout).toBe(0);
  return runCounts(run.stdout);
}

describe('sbeval check after a scored run, and the run that follows', () => {
  it('an unchanged folder: check exits 0, and run redoes nothing and writes nothing', async () => {
    const root = copyOf(scored, join(ws.dir, 'unchanged'));
    const before = resultFiles(root);
    const counts = runCounts((await ok(['run', root, '--model', ws.model, '--json'])).stdout);
    expect(counts.simulated).toBe(0);
    expect(counts.stages.similarity).toMatchObject({ ok: 0, skipped: 38 });
    expect(counts.stages.diversity).toMatchObject({ ok: 0, skipped: 16 });
    expect(counts.stages.score!.status).toBe('skipped');
    expect(resultFiles(root)).toEqual(before);
  }, 120_000);

  interface Change {
    what: string;
    /** Changes the copy of the scored folder. */
    change(root: string): void;
    named: RegExp;
    redone: { simulated: number; convert?: number; similarity: [number, number]; diversity: [number, number]; score: 'done' | 'skipped' };
    /** The result files afterwards: as before the change (the change was undone), or not. */
    resultsAsBefore: boolean;
  }
  const read = (root: string, path: string) => readFileSync(join(root, path));
  const CHANGES: Change[] = [
    {
      what: "a changed level (a team that starts at levels/): that level, its letter's images and diversity, the score",
      change: (root) => writeFileSync(join(root, 'Outsider/levels/I/Outsider_I_1.xml'), read(root, 'BlockSmith/levels/L/BlockSmith_L_1.xml')),
      named: /\n {2}changed: levels \(1\): Outsider\/levels\/I\/Outsider_I_1\.xml\n/,
      redone: { simulated: 1, similarity: [1, 37], diversity: [1, 15], score: 'done' },
      resultsAsBefore: false,
    },
    {
      what: 'a level that no longer is what its program converts to: convert makes it again, nothing else is redone',
      change: (root) => writeFileSync(join(root, 'BlockSmith/levels/I/BlockSmith_I_1.xml'), read(root, 'BlockSmith/levels/L/BlockSmith_L_1.xml')),
      named: /\n {2}changed: levels \(1\): BlockSmith\/levels\/I\/BlockSmith_I_1\.xml\n/,
      redone: { simulated: 0, convert: 1, similarity: [0, 38], diversity: [0, 16], score: 'skipped' },
      resultsAsBefore: true,
    },
    {
      what: "a changed image: no level, that letter's images classified again, its diversity, the score",
      change: (root) => writeFileSync(join(root, 'BlockSmith/images/I/BlockSmith_I_1.png'), read(root, 'BlockSmith/images/L/BlockSmith_L_1.png')),
      named: /\n {2}changed: images \(1\): BlockSmith\/images\/I\/BlockSmith_I_1\.png\n/,
      redone: { simulated: 0, similarity: [3, 35], diversity: [1, 15], score: 'done' },
      resultsAsBefore: false,
    },
    {
      what: 'a similarity file edited by hand: computed again from its images, and the results stand as they were',
      change: (root) =>
        writeFileSync(
          join(root, 'GridThinkers/similarity/L.json'),
          read(root, 'GridThinkers/similarity/L.json')
            .toString('utf8')
            .replace(/"similarity": [0-9.e-]+/, '"similarity": 0.999'),
        ),
      named: /\n {2}changed: similarity \(1\): GridThinkers\/similarity\/L\.json\n/,
      redone: { simulated: 0, similarity: [3, 35], diversity: [0, 16], score: 'skipped' },
      resultsAsBefore: true,
    },
    {
      what: 'a changed judge file: no stage redone, the score and the report written again with it',
      change: (root) => writeFileSync(join(root, 'BlockSmith/judge-rubric/I.json'), RUBRIC(100)),
      named: /\n {2}changed: judge \(1\): BlockSmith\/judge-rubric\/I\.json\n/,
      redone: { simulated: 0, similarity: [0, 38], diversity: [0, 16], score: 'done' },
      resultsAsBefore: false,
    },
  ];

  for (const [i, c] of CHANGES.entries()) {
    it(c.what, async () => {
      const root = copyOf(scored, join(ws.dir, `change-${i}`));
      const results = resultFiles(root);
      c.change(root);
      const counts = await detectAndRedo(root, c.named);
      expect(counts.simulated).toBe(c.redone.simulated);
      if (c.redone.convert !== undefined) expect(counts.stages.convert).toMatchObject({ ok: c.redone.convert });
      expect(counts.stages.similarity).toMatchObject({ ok: c.redone.similarity[0], skipped: c.redone.similarity[1] });
      expect(counts.stages.diversity).toMatchObject({ ok: c.redone.diversity[0], skipped: c.redone.diversity[1] });
      expect(counts.stages.score!.status).toBe(c.redone.score);
      if (c.resultsAsBefore) expect(resultFiles(root)).toEqual(results);
      else expect(resultFiles(root).get('report.md')).not.toBe(results.get('report.md'));
    }, 120_000);
  }

  it('a result file edited or left from another state is named too', async () => {
    const root = copyOf(scored, join(ws.dir, 'outputs'));
    writeFileSync(join(root, 'result', 'prompt_scores_ranks.csv'), 'team,normalizedPromptScore,promptScore,rank\nBlockSmith,100,1,1\n');
    rmSync(join(root, 'result', 'report.md'));
    const check = await sbeval(['check', root]);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/\n {2}result files edited since: result\/prompt_scores_ranks\.csv\n {2}result files missing: result\/report\.md\n/);
    await ok(['run', root, '--model', ws.model]);
    expect((await sbeval(['check', root])).code).toBe(0);
  }, 120_000);
});
