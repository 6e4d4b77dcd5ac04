import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sbevalInProcess as sbeval } from './helpers/in-process-cli.js';
import { copyOf, ok, resultFiles, scoredExample, trialRows, type Workspace, workspace } from './helpers/result-folder.js';

/**
 * One writer of `result/` (orchestrator/result/step.ts): `sbeval score` after `sbeval run` writes the
 * report sections, the settings rows and the accounting files (`trials.csv`, `failures.md`) that `run`
 * wrote (after a real judge run: score-one-writer.test.ts); a score the folder cannot support removes
 * only the ranking's files and names them. On copies of the shipped example, through the real CLI.
 */
let ws: Workspace;
let scored: string;
let truth: Map<string, string>;

beforeAll(async () => {
  ws = workspace('sbeval-one-writer-');
  scored = await scoredExample(ws);
  truth = resultFiles(scored);
}, 240_000);
afterAll(() => {
  ws.restore();
  rmSync(ws.dir, { recursive: true, force: true });
});

const withoutManifest = (files: Map<string, string>) => new Map([...files].filter(([name]) => name !== 'manifest.json'));

describe('score writes result/ as run does', () => {
  it('after run: every result file byte for byte (the report with its failure accounting and settings rows)', async () => {
    expect(truth.get('report.md')).toContain('## Failure accounting');
    expect(truth.get('report.md')).toMatch(/\| engine \| headless \|/);
    expect(truth.get('report.md')).toMatch(/\| similarity model \| sha256 [0-9a-f]{16}…: not verifiable \(/);
    const root = copyOf(scored, join(ws.dir, 'after-run'));
    const score = await ok(['score', root]);
    // The summary names the model beside the winner as the report does: a random model's ranking looks like any other.
    expect(score.stdout).toMatch(/^ {2}winner: .*\n(?: {2}.*\n)*? {2}similarity model: sha256 [0-9a-f]{16}…: not verifiable \(/m);
    expect(withoutManifest(resultFiles(root))).toEqual(withoutManifest(truth));
    expect((await sbeval(['check', root])).code).toBe(0);
  }, 120_000);

  it('a score the folder cannot support still accounts for every trial and names only the ranking files it removes', async () => {
    const root = copyOf(scored, join(ws.dir, 'blocked'));
    writeFileSync(join(root, 'BlockSmith', 'levels', 'I', 'BlockSmith_I_1.xml'), '<Level/>\n');
    const score = await sbeval(['score', root]);
    expect(score.code).toBe(1);
    expect(score.stderr).toMatch(/removed result\/constants\.json, .*, which described an earlier state of the folder\n$/);
    expect(score.stderr).not.toMatch(/removed .*(trials\.csv|failures\.md)/);
    expect([...resultFiles(root).keys()]).toEqual(['failures.md', 'manifest.json', 'trials.csv']);
    expect(resultFiles(root).get('trials.csv')).toMatch(/BlockSmith,,I,1,level,no image \(the level is not simulated yet\)/);
  }, 120_000);
});

describe('trials beyond T follow one rule', () => {
  it('a response numbered beyond T is no row of trials.csv or failures.md, in run and score alike, and is named once', async () => {
    const root = copyOf(scored, join(ws.dir, 'beyond-t'));
    copyFileSync(join(root, 'BlockSmith', 'raw', 'I', 'BlockSmith_I_1.txt'), join(root, 'BlockSmith', 'raw', 'I', 'BlockSmith_I_7.txt'));
    const run = await ok(['run', root, '--model', ws.model]);
    expect(run.stderr).toMatch(/accounting: 1 trial\(s\) numbered beyond T = 3 \(BlockSmith\/I\/BlockSmith_I_7\): not trials of the competition/);
    // The summary's levels line counts the 45 trials of trials.csv, and the file beyond T apart.
    expect(`${run.stdout}\n${run.stderr}`).toMatch(/^levels: 45 trials and 1 file\(s\) numbered beyond T: /m);
    expect(`${run.stdout}\n${run.stderr}`).toMatch(/^ {2}similarity model: sha256 [0-9a-f]{16}…: not verifiable \(/m);
    const rows = trialRows(root);
    expect(rows).toHaveLength(45);
    expect(rows.some((r) => r[3] === '7')).toBe(false);
    expect(resultFiles(root).get('failures.md')).toContain('45 trials;');
    const afterRun = resultFiles(root);
    const score = await ok(['score', root]);
    expect(score.stderr).toMatch(/numbered beyond T = 3/);
    expect(withoutManifest(resultFiles(root))).toEqual(withoutManifest(afterRun));
  }, 120_000);
});
