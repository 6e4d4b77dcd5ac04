import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_LEVELS } from '../../orchestrator/stages/agreement.js';
import { runSbeval } from '../helpers/cli.js';
import { scriptsFromHeadless, settleAfterFirstStep, standInExecutable } from './double.js';
import { sharedPluginBuild } from './mcs.js';

/**
 * `sbeval unity calibrate` end to end through the real CLI, with the stand-in editor as `--unity`:
 * the mono-run plugin on the test double, launched, watched and fed by the same fleet as a real
 * Unity. The double's bodies follow scripts; replaying the headless engine's trials, the Unity
 * column must equal the headless one and pass; with no scripts nothing moves, the collapsing levels
 * disagree with the evaluator, and the command must say so and exit 1. A subset of the reference
 * levels keeps it short (the thresholds are shares of the levels).
 */
const SUBSET: Array<[string, string, string]> = [
  // [version, character, level]: two that collapse in the evaluator, two that stand
  ['v1', 'L', 'V1_L_2'],
  ['v3', 'I', 'V3_I_3'],
  ['v1', 'L', 'V1_L_10'],
  ['v2', 'U', 'V2_U_1'],
];

let dir: string;
let reference: string;
let project: string;
let unity: string;
let scripts: string;
let settled: string;

beforeAll(async () => {
  const build = await sharedPluginBuild();
  dir = mkdtempSync(join(tmpdir(), 'sbeval-unity-calibrate-'));
  reference = join(dir, 'reference');
  for (const [v, c, level] of SUBSET) {
    for (const [from, to] of [
      [join(v, 'levels', c, `${level}.xml`), join(v, 'levels', c, `${level}.xml`)],
      [join(v, 'images', c, `${level}.png`), join(v, 'images', c, `${level}.png`)],
      [join(v, 'stability', `${c}.json`), join(v, 'stability', `${c}.json`)],
    ] as const) {
      mkdirSync(join(reference, to, '..'), { recursive: true });
      cpSync(join(REFERENCE_LEVELS, from), join(reference, to));
    }
  }
  // A project that looks like Science Birds, with the plugin installed the real way.
  project = join(dir, 'modified-science-birds');
  mkdirSync(join(project, 'ProjectSettings'), { recursive: true });
  mkdirSync(join(project, 'Assets', 'Scripts', 'GameWorld'), { recursive: true });
  writeFileSync(join(project, 'Assets', 'Scripts', 'GameWorld', 'ABGameWorld.cs'), '// stand-in\n');
  const installed = await runSbeval(['unity', 'install', project]);
  expect(installed.exitCode, installed.stderr).toBe(0);
  unity = standInExecutable(dir, build.standIn);
  scripts = join(dir, 'scripts');
  const xmls = SUBSET.map(([v, c, level]) => readFileSync(join(reference, v, 'levels', c, `${level}.xml`), 'utf8'));
  scriptsFromHeadless(scripts, xmls);
  settled = join(dir, 'scripts-settled');
  scriptsFromHeadless(settled, xmls, settleAfterFirstStep);
}, 900_000);
afterAll(() => { if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true }); });

describe('sbeval unity calibrate (the stand-in editor runs the plugin on the test double)', () => {
  it('prints the agreement table side by side with the headless engine and exits 0 when Unity reproduces the evaluator', async () => {
    const logDir = join(dir, 'logs-pass');
    const result = await runSbeval(['unity', 'calibrate', '--unity', unity, '--project', project, '--reference', reference, '--workers', '1', '--log-dir', logDir], {
      env: { SBEVAL_DOUBLE_SCRIPTS: scripts },
    });
    expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toMatch(/Agreement with the Unity evaluator's own results on 4 reference levels/);
    expect(result.stdout).toMatch(/\| stable\/unstable verdict \| 4\/4 \| 4\/4 \| ≥ 4\/4 \| ok \|/);
    expect(result.stdout).toMatch(/\| moving count equal \| 4\/4 \| 4\/4 \| ≥ 4\/4 \| ok \|/);
    expect(result.stdout).toMatch(/within the thresholds/);
    // The Unity column is the double replaying the headless trials: every figure equals the headless one.
    const rows = result.stdout.split('\n').filter((l) => /^\| (stable|moving|score|image)/.test(l));
    expect(rows).toHaveLength(5);
    for (const row of rows) {
      const cells = row.split('|').map((c) => c.trim());
      expect(cells[2], row).toBe(cells[3]);
    }
    // It ran the real plugin: two levels collapse, so they took three stability loads each, and every level one image load.
    const log = readFileSync(join(logDir, 'unity-0.log'), 'utf8');
    expect(log.match(/script \S+\.stability-3\.sbds/g)).toHaveLength(2);
    expect(log.match(/script \S+\.similarity\.sbds/g)).toHaveLength(4);
  }, 300_000);

  it('exits 1 and names the levels that differ when the Unity results do not match the evaluator', async () => {
    const result = await runSbeval(['unity', 'calibrate', '--unity', unity, '--project', project, '--reference', reference, '--workers', '1', '--log-dir', join(dir, 'logs-fail'), '--json'], {
      env: { SBEVAL_DOUBLE_SCRIPTS: settled },
    });
    expect(result.exitCode, result.stderr).toBe(1);
    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      checks: Array<{ measure: string; ok: boolean }>;
      unity: { summary: { stableAgreement: number }; levels: Array<{ level: string; stableAgrees: boolean }> };
      headless: { summary: { stableAgreement: number } };
    };
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.measure === 'stable/unstable verdict')?.ok).toBe(false);
    // Every body settles after its first step: the two collapsing levels come out stable.
    expect(report.unity.summary.stableAgreement).toBe(2);
    expect(report.headless.summary.stableAgreement).toBe(4);
    expect(report.unity.levels.filter((l) => !l.stableAgrees).map((l) => l.level).sort()).toEqual(['V1_L_2', 'V3_I_3']);

    const text = await runSbeval(['unity', 'calibrate', '--unity', unity, '--project', project, '--reference', join(reference, 'v1'), '--workers', '1', '--log-dir', join(dir, 'logs-text')]);
    expect(text.exitCode).toBe(2);
    expect(text.stderr).toMatch(/no reference levels under/);
  }, 300_000);
});
