import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LLM_RESULT_CONTRIBUTORS, runScoreStage } from '../../index.js';
import { FakeOllama } from '../helpers/fake-ollama.js';
import { sbevalInProcess as sbeval } from './helpers/in-process-cli.js';
import { copyOf, ok, resultFiles, scoredExample, type Workspace, workspace } from './helpers/result-folder.js';

/**
 * Scoring through the one results writer (orchestrator/result/step.ts), on copies of the shipped
 * example after `sbeval run`:
 * - the package's `runScoreStage` leaves the files `sbeval score` leaves, the manifest included, so
 *   `sbeval check` vouches for them; a folder it cannot rank is an error naming why, with every trial
 *   still accounted for. Through the package's own exports.
 * - `sbeval score` after a real `sbeval judge rubric` run keeps what `run` wrote: the accounting files
 *   byte for byte, the report's failure accounting and settings rows, and adds the judge's section; it
 *   removes nothing, the judge's own files in `result/` included, and `run` on the same folder then
 *   writes the same files. The judge is a fake Ollama over a real socket (Ollama cannot run here) that
 *   answers every level with a well-formed rubric verdict.
 */
const JUDGE = 'llava:13b';
/** The judge's folder name: the model as a folder name (llm/judges/paths.ts `judgeId`). */
const JUDGE_ID = 'llava_13b';
const RUBRIC = 'question: Does this level look like "{letter}"?\nlevels:\n  100: ["perfect {letter}"]\n  50: [s1]\n  25: [f1]\n';
const ANSWER = [
  '<analysis>',
  '[100.1] not met — looked at the image',
  '[50.1] met — looked at the image',
  '[25.1] not met — looked at the image',
  '</analysis>',
  '<score>',
  '50',
  '</score>',
].join('\n');

let ws: Workspace;
let scored: string;
let host: FakeOllama;

beforeAll(async () => {
  ws = workspace('sbeval-score-one-writer-');
  scored = await scoredExample(ws);
  host = await new FakeOllama({ models: [JUDGE], answer: () => ANSWER }).start();
}, 240_000);
afterAll(async () => {
  await host?.stop();
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

describe('score after sbeval judge rubric', () => {
  it('keeps the accounting files and the report sections run wrote, adds the judges, removes nothing', async () => {
    const truth = resultFiles(scored);
    const root = copyOf(scored, join(ws.dir, 'judged'));
    const rubric = join(ws.dir, 'rubric.yaml');
    writeFileSync(rubric, RUBRIC);
    await ok(['judge', 'rubric', root, '--judge', JUDGE, '--hosts', host.url, '--rubric', rubric, '--concurrency', '2']);
    expect(host.calls.length).toBeGreaterThan(0);
    expect(existsSync(join(root, 'BlockSmith', 'judge-rubric', JUDGE_ID, 'I.json'))).toBe(true);
    const prompts = readdirSync(join(root, 'result', 'judge-prompts'));
    expect(prompts.length).toBeGreaterThan(0);
    // The judge writes no file of run's.
    expect(resultFiles(root)).toEqual(truth);

    const score = await ok(['score', root]);
    expect(score.stderr).not.toMatch(/removed/);
    const after = resultFiles(root);
    expect(after.get('trials.csv')).toBe(truth.get('trials.csv'));
    expect(after.get('failures.md')).toBe(truth.get('failures.md'));
    const report = after.get('report.md')!;
    for (const section of ['## Failure accounting', '## Judges']) expect(report).toContain(section);
    // The judge's column (markdown escapes the `_`), with a mean of its scores for every team.
    expect(report).toContain('| team | official rank | official score | rubric:llava\\_13b |');
    expect(report).toMatch(/\| BlockSmith \| \d \| [\d.]+ \| \d+\.\d \(/);
    expect(report).toMatch(/\| engine \| headless \|/);
    expect(report).toMatch(/\| similarity model \| sha256 [0-9a-f]{16}…: not verifiable \(/);
    expect(readdirSync(join(root, 'result', 'judge-prompts'))).toEqual(prompts);
    expect((await sbeval(['check', root])).code).toBe(0);

    // run on the judged folder writes what score wrote.
    await ok(['run', root, '--model', ws.model]);
    expect(withoutManifest(resultFiles(root))).toEqual(withoutManifest(after));
  }, 180_000);
});
