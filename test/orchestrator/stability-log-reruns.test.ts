import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { resolveSettings } from '../../orchestrator/config/index.js';
import type { EngineFactory } from '../../orchestrator/pool/index.js';
import { runCompetition } from '../../orchestrator/run/index.js';
import { runSimulateStage } from '../../orchestrator/stages/simulate.js';
import { REFERENCE_LEVELS } from '../helpers/cli.js';
import { SlyEngine } from './helpers/lies.js';

/**
 * The official stability log holds one line per level, its final verdict (reference/official-pipeline.md
 * §0.3: `[<ISO>] Processing - team: <t> - character: <C> - trial: <file> - Succeed|Failed - <reason>`),
 * also when a level ran again because the engine that gave its first result was retired for a lie (issue
 * 22's first round wrote a line per run). The sly engine (helpers/lies.ts) streams its first level as if
 * nothing moved, then claims every level cannot run; the claim is refuted by another engine's run and
 * the level it had "simulated" runs again.
 */
/** Six reference levels that collapse (the sly engine's "nothing moved" changes their score), as `team_L_<n>.xml`. */
function competition(): string {
  const root = mkdtempSync(join(tmpdir(), 'sbeval-stability-log-'));
  const reference = REFERENCE_LEVELS;
  mkdirSync(join(root, 'team', 'levels', 'L'), { recursive: true });
  const names = [
    ['v1', 'V1_L_1'],
    ['v1', 'V1_L_2'],
    ['v2', 'V2_L_2'],
    ['v2', 'V2_L_6'],
    ['v3', 'V3_L_5'],
    ['v3', 'V3_L_7'],
  ] as const;
  names.forEach(([version, name], i) =>
    cpSync(join(reference, version, 'levels', 'L', `${name}.xml`), join(root, 'team', 'levels', 'L', `team_L_${i + 1}.xml`)),
  );
  writeFileSync(join(root, 'sbeval.config.yaml'), 'rules: 2024\ntrials: 6\n');
  return root;
}

/** The level files named by the lines of the run's one stability log. */
function loggedLevels(root: string): string[] {
  const logs = readdirSync(join(root, 'logs')).filter((f) => f.startsWith('stability_log_'));
  expect(logs).toHaveLength(1);
  const lines = readFileSync(join(root, 'logs', logs[0]!), 'utf8')
    .trimEnd()
    .split('\n');
  for (const line of lines)
    expect(line).toMatch(/^\[\d{4}-\d\d-\d\dT[\d:.]+Z\] Processing - team: team - character: L - trial: team_L_\d\.xml - (Succeed|Failed - .+)$/);
  return lines.map((l) => /trial: (\S+)/.exec(l)![1]!).sort();
}

const ALL = ['team_L_1.xml', 'team_L_2.xml', 'team_L_3.xml', 'team_L_4.xml', 'team_L_5.xml', 'team_L_6.xml'];

describe('the stability log after a level ran again', () => {
  it('sbeval simulate: one line per level, and the summary counts each level once', async () => {
    const root = competition();
    const sly = new SlyEngine('sly');
    const summary = await runSimulateStage({ root, engines: [sly, new HeadlessEngine('honest')] });
    expect(sly.loads).toBeGreaterThan(1); // it lied on a later level, and was found out
    expect(summary.unfinished).toBe(0);
    expect(loggedLevels(root)).toEqual(ALL);
    expect(summary.succeeded + summary.failed).toBe(6);
  }, 300_000);

  it('sbeval run: one line per level', async () => {
    const root = competition();
    let sly: SlyEngine | undefined;
    // Slot 0 starts with the sly engine; every other engine (and the liar's replacement) is honest.
    const factory: EngineFactory = async (slot, generation) =>
      slot === 0 && generation === 0 ? (sly = new SlyEngine('sly')) : new HeadlessEngine(`headless-${slot}-${generation}`);
    const report = await runCompetition({ config: resolveSettings(root, { workers: 2 }), engineFactory: factory });
    expect(sly!.loads).toBeGreaterThan(1);
    expect(report.warnings.map((w) => w.message).join('\n')).toMatch(/ran on an engine later retired for a lie: their results are not kept, they run again/);
    expect(loggedLevels(root)).toEqual(ALL);
  }, 300_000);
});
