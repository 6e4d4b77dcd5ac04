import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LLM_RESULT_CONTRIBUTORS, runScoreStage } from '../../index.js';
import { sbevalInProcess as sbeval } from './helpers/in-process-cli.js';
import { copyOf, ok, resultFiles, scoredExample, type Workspace, workspace } from './helpers/result-folder.js';

/**
 * The package's `runScoreStage` writes `result/` through the one results writer `sbeval score` uses
 * (orchestrator/result/step.ts): after `sbeval run` on the shipped example it leaves the files the
 * command leaves, the manifest included, so `sbeval check` vouches for them; a folder it cannot rank
 * is an error naming why, with every trial still accounted for. Through the package's own exports.
 */
let ws: Workspace;
let scored: string;

beforeAll(async () => {
  ws = workspace('sbeval-score-api-');
  scored = await scoredExample(ws);
}, 240_000);
afterAll(() => {
  ws.restore();
  rmSync(ws.dir, { recursive: true, force: true });
});

const withoutManifest = (files: Map<string, string>) => new Map([...files].filter(([name]) => name !== 'manifest.json'));

describe('runScoreStage (package API)', () => {
  it('writes what `sbeval score` writes, the manifest included, and `sbeval check` vouches for it', async () => {
    const byCommand = copyOf(scored, join(ws.dir, 'by-command'));
    const byApi = copyOf(scored, join(ws.dir, 'by-api'));
    await ok(['score', byCommand]);
    const result = await runScoreStage({ root: byApi, rules: '2025' }, LLM_RESULT_CONTRIBUTORS);
    const files = resultFiles(byApi);
    expect(files).toEqual(resultFiles(byCommand));
    expect(withoutManifest(files)).toEqual(withoutManifest(resultFiles(scored)));
    expect(JSON.parse(files.get('manifest.json')!).command).toBe('score');
    expect(files.get('report.md')).toContain('## Failure accounting');
    expect(result.files.map((f) => f.split(/[\\/]/).pop())).toContain('report.md');
    expect((await sbeval(['check', byApi])).code).toBe(0);
  }, 120_000);

  it("adds the caller's sections after the command's own", async () => {
    const root = copyOf(scored, join(ws.dir, 'sections'));
    await runScoreStage({
      root,
      rules: '2025',
      sections: [{ id: 'mine', title: 'My notes', markdown: 'written by the caller', html: '<p>written by the caller</p>' }],
    });
    const report = resultFiles(root).get('report.md')!;
    expect(report.indexOf('## Failure accounting')).toBeGreaterThan(-1);
    expect(report.indexOf('## My notes\n\nwritten by the caller')).toBeGreaterThan(report.indexOf('## Failure accounting'));
  }, 120_000);

  it('a folder it cannot rank: an error naming why and the files it removed; every trial still accounted for', async () => {
    const root = copyOf(scored, join(ws.dir, 'blocked'));
    writeFileSync(join(root, 'BlockSmith', 'levels', 'I', 'BlockSmith_I_1.xml'), '<Level/>\n');
    await expect(runScoreStage({ root, rules: '2025' })).rejects.toThrow(
      /cannot be scored as it is: .*BlockSmith_I_1.*; removed result\/constants\.json, .*, which described an earlier state of the folder$/,
    );
    expect([...resultFiles(root).keys()]).toEqual(['failures.md', 'manifest.json', 'trials.csv']);
  }, 120_000);
});
