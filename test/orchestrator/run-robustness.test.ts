import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { resolveSettings } from '../../orchestrator/config/index.js';
import type { EngineFactory } from '../../orchestrator/pool/index.js';
import { runCompetition } from '../../orchestrator/run/index.js';
import { writeRandomVit } from '../../scripts/make-random-vit.js';
import { knifeEdgeLevels } from './helpers/knife-edge.js';

/**
 * `sbeval run --robustness N`: the knife-edge level (a bar placed where its verdict flips) is flagged
 * fragile in `result/trials.csv` and listed in the report's "Knife-edge verdicts" section; the solid one
 * (the same bar centred) is not. The model is a tiny random ViT (the report needs a score).
 */
const tmp = mkdtempSync(join(tmpdir(), 'sbeval-run-robustness-'));
const root = join(tmp, 'competition');
let model: string;
const inProcess: EngineFactory = async (slot, generation) => new HeadlessEngine(`headless-${slot}-${generation}`);

beforeAll(() => {
  model = writeRandomVit(join(tmp, 'vit'), { layers: 1, hidden: 32, heads: 2, intermediate: 64, image: 32, patch: 16, labels: 26, seed: 5 }).onnx;
  const dir = join(root, 'team', 'levels', 'I');
  mkdirSync(dir, { recursive: true });
  const { knife, solid } = knifeEdgeLevels();
  writeFileSync(join(dir, 'team_I_1.xml'), knife);
  writeFileSync(join(dir, 'team_I_2.xml'), solid);
  writeFileSync(join(root, 'sbeval.config.yaml'), 'rules: 2024\ntrials: 2\n');
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The section of a Markdown report under `## <title>`, up to the next `## `. */
function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start < 0) return '';
  const end = markdown.indexOf('\n## ', start + 4);
  return markdown.slice(start, end < 0 ? undefined : end);
}

describe('sbeval run --robustness', () => {
  it('flags the knife-edge level in trials.csv and the report, not the solid one', async () => {
    const report = await runCompetition({ config: resolveSettings(root, { model, workers: 1, robustness: 20 }), engineFactory: inProcess });
    const stage = report.stages.find((s) => s.stage === 'robustness');
    expect(stage, JSON.stringify(report.stages)).toMatchObject({ status: 'done' });
    expect(stage?.detail).toMatch(/2 level\(s\) × 20 perturbed runs .*; 1 fragile verdict/);
    expect(report.stages.find((s) => s.stage === 'report')?.status).toBe('done');

    const csv = readFileSync(join(root, 'result', 'trials.csv'), 'utf8')
      .trimEnd()
      .split('\n');
    expect(csv[0]).toBe('team,model,letter,trial,stage_reached,reason,stability,similarity,robustness_runs,stable_runs,moving_min,moving_max,fragile');
    // Officially stable (1.0), stands in fewer than 18 of the 20 perturbed runs.
    const knife = csv.find((l) => l.startsWith('team,,I,1,'))!.split(',');
    expect(knife.slice(4, 7)).toEqual(['image', '', '1.0']);
    expect(knife.slice(8)).toEqual(['20', knife[9], '0', '1', 'yes']);
    expect(Number(knife[9])).toBeLessThan(18);
    expect(
      csv
        .find((l) => l.startsWith('team,,I,2,'))!
        .split(',')
        .slice(8),
    ).toEqual(['20', '20', '0', '0', 'no']);

    const md = section(readFileSync(join(root, 'result', 'report.md'), 'utf8'), 'Knife-edge verdicts');
    expect(md).toContain('1 of 2 verdicts are fragile');
    // Names are Markdown-escaped (`_` → `\_`).
    expect(md).toMatch(/\| team \| I \| team\\_I\\_1 \| stable \| \d+% \(\d+\/20\) \| 0–1 \|/);
    expect(md).not.toMatch(/team\\_I\\_2/);
    const html = readFileSync(join(root, 'result', 'report.html'), 'utf8');
    expect(html).toMatch(/<h2>Knife-edge verdicts<\/h2>[\s\S]*<table class="fragile">[\s\S]*<td>team_I_1<\/td>/);
  }, 240_000);

  it('a run without --robustness has neither the columns nor the section', async () => {
    await runCompetition({ config: resolveSettings(root, { model, workers: 1 }), engineFactory: inProcess });
    expect(readFileSync(join(root, 'result', 'trials.csv'), 'utf8').split('\n')[0]).toBe('team,model,letter,trial,stage_reached,reason,stability,similarity');
    expect(readFileSync(join(root, 'result', 'report.md'), 'utf8')).not.toContain('Knife-edge verdicts');
  }, 240_000);

  it('is refused with an engine that cannot perturb a run, from the flag or the config', () => {
    expect(() => resolveSettings(root, { robustness: 20, engine: 'unity' })).toThrow(/--robustness needs the headless engine/);
    const other = join(tmp, 'other');
    mkdirSync(join(other, 'team', 'levels', 'I'), { recursive: true });
    writeFileSync(join(other, 'team', 'levels', 'I', 'team_I_1.xml'), knifeEdgeLevels().solid);
    writeFileSync(join(other, 'sbeval.config.yaml'), 'robustness: 5\nengine: headless-ws\n');
    expect(() => resolveSettings(other, {})).toThrow(/--robustness needs the headless engine \(the headless-ws engine/);
  });
});
