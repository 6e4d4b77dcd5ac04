import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { resolveSettings } from '../../orchestrator/config/index.js';
import type { EngineFactory } from '../../orchestrator/pool/index.js';
import { type RunReport, runCompetition } from '../../orchestrator/run/index.js';
import { writeRandomVit } from '../../scripts/make-random-vit.js';
import { runSbeval } from '../helpers/cli.js';
import { knifeEdgeLevels } from './helpers/knife-edge.js';

/**
 * The ranking's uncertainty with physics variation: `sbeval run --robustness 20` hands its perturbed
 * runs to the bootstrap, and `sbeval score --robustness 20` afterwards reads the same runs from the
 * cache (nothing simulated), so both write the same interval files; without `--robustness` the
 * bootstrap varies the trials only and the files differ. The knife-edge level (a bar whose verdict
 * flips) is trial 1 of team `edgy`; the model is a tiny random ViT.
 */
const tmp = mkdtempSync(join(tmpdir(), 'sbeval-run-uncertainty-'));
const root = join(tmp, 'competition');
const inProcess: EngineFactory = async (slot, generation) => new HeadlessEngine(`headless-${slot}-${generation}`);
const FILES = ['score_intervals.csv', 'rank_probabilities.csv'];
const read = () => FILES.map((f) => readFileSync(join(root, 'result', f), 'utf8'));
let model: string;
let report: RunReport;
let fromRun: string[];

beforeAll(async () => {
  model = writeRandomVit(join(tmp, 'vit'), { layers: 1, hidden: 32, heads: 2, intermediate: 64, image: 32, patch: 16, labels: 26, seed: 5 }).onnx;
  const { knife, solid } = knifeEdgeLevels();
  for (const [team, levels] of [
    ['edgy', [knife, solid]],
    ['steady', [solid, solid]],
  ] as const) {
    const dir = join(root, team, 'levels', 'I');
    mkdirSync(dir, { recursive: true });
    levels.forEach((xml, i) => writeFileSync(join(dir, `${team}_I_${i + 1}.xml`), xml));
  }
  writeFileSync(join(root, 'sbeval.config.yaml'), 'rules: 2024\ntrials: 2\n');
  report = await runCompetition({ config: resolveSettings(root, { model, workers: 1, robustness: 20 }), engineFactory: inProcess });
  fromRun = read();
}, 300_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('uncertainty with perturbed physics', () => {
  it('sbeval run draws each level’s stability from its perturbed runs and says so', () => {
    const stage = report.stages.find((s) => s.stage === 'uncertainty');
    expect(stage, JSON.stringify(report.stages)).toMatchObject({ status: 'done' });
    expect(stage?.detail).toMatch(/(ranks first|no clear winner).*2000 resamples, seed 1; result\/score_intervals\.csv, result\/rank_probabilities\.csv/);
    const md = readFileSync(join(root, 'result', 'report.md'), 'utf8');
    expect(md).toContain(
      "Physics varied too: each drawn trial's stability is the evaluator's best of up to 3 runs drawn from its level's 20 perturbed runs (`--robustness`; 4 trials had them).",
    );
    expect(fromRun[0]?.split('\n')[0]).toBe('team,promptScore,low,high,normalizedPromptScore,normLow,normHigh');
  });

  it('sbeval score --robustness 20 reads the same runs from the cache: the same files', async () => {
    const score = await runSbeval(['score', root, '--robustness', '20']);
    expect(score.exitCode, score.stderr).toBe(0);
    expect(read()).toEqual(fromRun);
  }, 120_000);

  it('without --robustness the trials alone vary: other intervals, no physics in the report', async () => {
    const score = await runSbeval(['score', root]);
    expect(score.exitCode, score.stderr).toBe(0);
    // The same trials are drawn either way (physics has its own random stream): what differs is the
    // knife-edge level's stability, drawn from its runs (the solid level stands in every run).
    expect(read()[0]).not.toEqual(fromRun[0]);
    expect(readFileSync(join(root, 'result', 'report.md'), 'utf8')).not.toContain('Physics varied too');
  }, 120_000);

  it('with a run count nothing cached, score says the physics is not varied', async () => {
    const score = await runSbeval(['score', root, '--robustness', '7']);
    expect(score.exitCode, score.stderr).toBe(0);
    expect(score.stderr).toContain('score: note: no perturbed runs (7 per level) in the cache: the bootstrap varies the trials only');
  }, 120_000);
});
