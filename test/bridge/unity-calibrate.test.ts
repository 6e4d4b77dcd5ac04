import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, REFERENCE_LEVELS, runSbeval } from '../helpers/cli.js';
import { type HeadlessPass, headlessPasses, settleAfterFirstStep, shiftSteps, standInExecutable, writeScripts } from './double.js';
import { sharedPluginBuild } from './mcs.js';
import { defaultCalibrationScripts, rulerPasses, scienceBirdsProject } from './standin-project.js';

/**
 * `sbeval unity calibrate` end to end, with the stand-in editor as `--unity`: the mono-run plugin on
 * the test double, launched, watched and fed by the same fleet as a real Unity. The double's bodies
 * follow scripts. Replaying the headless engine's trials, the Unity column equals the headless one,
 * the step offset is 0, and the command passes — from a checkout through `npx`, without `--reference`
 * (the 90 shipped reference levels and the ruler). Replaying them shifted by +1, −1 or +7 steps, the
 * verdicts and counts barely move, but the step offset names the shift and the command fails. With
 * bodies that settle after one step, the collapsing levels come out stable and the verdict fails.
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
/** Two of the subset for the shifted streams (one that collapses, one that stands): the step offset needs the ruler, not many levels. */
let pair: string;
let project: string;
let unity: string;
let subsetPasses: HeadlessPass[];

/** A reference folder with some of the shipped levels: each level's XML and image, and its character's stability file. */
function copyReference(levels: ReadonlyArray<[string, string, string]>, into: string): string {
  for (const [v, c, level] of levels) {
    for (const path of [join(v, 'levels', c, `${level}.xml`), join(v, 'images', c, `${level}.png`), join(v, 'stability', `${c}.json`)]) {
      mkdirSync(join(into, path, '..'), { recursive: true });
      cpSync(join(REFERENCE_LEVELS, path), join(into, path));
    }
  }
  return into;
}

beforeAll(async () => {
  const build = await sharedPluginBuild();
  dir = mkdtempSync(join(tmpdir(), 'sbeval-unity-calibrate-'));
  reference = copyReference(SUBSET, join(dir, 'reference'));
  pair = copyReference([SUBSET[0]!, SUBSET[3]!], join(dir, 'reference-pair'));
  project = await scienceBirdsProject(join(dir, 'modified-science-birds'));
  unity = standInExecutable(dir, build.standIn);
  subsetPasses = [...headlessPasses(SUBSET.map(([v, c, level]) => readFileSync(join(reference, v, 'levels', c, `${level}.xml`), 'utf8'))), ...rulerPasses()];
}, 900_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sbeval unity calibrate (the stand-in editor runs the plugin on the test double)', () => {
  it('works without --reference from a checkout through npx: the shipped reference and ruler levels, Unity column = headless, step offset 0, exit 0', async () => {
    const scripts = await defaultCalibrationScripts();
    const result = await execa('npx', ['sbeval', 'unity', 'calibrate', '--unity', unity, '--project', project], {
      cwd: PROJECT_ROOT,
      reject: false,
      env: { FORCE_COLOR: '0', SBEVAL_DOUBLE_SCRIPTS: scripts },
    });
    const stdout = String(result.stdout);
    expect(result.exitCode, `${stdout}\n${String(result.stderr)}`).toBe(0);
    expect(stdout).toMatch(/Agreement with the Unity evaluator's own results on 90 reference levels/);
    // The Unity column is the double replaying the headless trials: every figure equals the headless one.
    const rows = stdout.split('\n').filter((l) => /^\| (stable|moving|score|image)/.test(l));
    expect(rows).toHaveLength(5);
    for (const row of rows) {
      const cells = row.split('|').map((c) => c.trim());
      expect(cells[2], row).toBe(cells[3]);
    }
    expect(stdout).toMatch(
      /\| step offset against the headless engine \(collision-free motion of \d+ bodies in \d+ levels\) \| 0 \(largest difference 0\.0000\) \|/,
    );
    expect(stdout).toMatch(/\| ruler levels without a stream \| 0\/12 \|/);
    expect(stdout).toMatch(/Step offset: 0: Unity's step k is the headless engine's step k/);
    // It ran the real plugin on every level: the logs name each scripted stability and image load.
    const logDir = /logs in (\S+)/.exec(String(result.stderr))?.[1];
    expect(logDir).toBeDefined();
    const log = readFileSync(join(logDir as string, 'unity-0.log'), 'utf8');
    expect(log.match(/script \S+\.similarity\.sbds/g)).toHaveLength(90);
  }, 600_000);

  for (const offset of [1, -1, 7]) {
    it(`names a stream shifted by ${offset > 0 ? '+' : '−'}${Math.abs(offset)} step${Math.abs(offset) === 1 ? '' : 's'} and exits 1, although verdicts and counts still agree`, async () => {
      const scripts = join(dir, `scripts-shift${offset}`);
      writeScripts(scripts, subsetPasses, shiftSteps(offset));
      const result = await runSbeval(['unity', 'calibrate', '--unity', unity, '--project', project, '--reference', pair], {
        env: { SBEVAL_DOUBLE_SCRIPTS: scripts },
      });
      expect(result.exitCode, result.stderr).toBe(1);
      const n = Math.abs(offset);
      expect(result.stdout).toContain(
        `Step offset: ${offset > 0 ? '+' : '−'}${n}: Unity's step k shows the headless engine's step k ${offset > 0 ? '+' : '−'} ${n} — its stream runs ${n} physics step${n === 1 ? '' : 's'} ${offset > 0 ? 'ahead of' : 'behind'} its labels (largest difference 0.0000`,
      );
      // What the step offset adds: the evaluator's verdicts alone do not see the shift — it is the only check that fails.
      expect(result.stdout).toMatch(/\| stable\/unstable verdict \| 2\/2 \| 2\/2 \| ≥ 2\/2 \| ok \|/);
      expect(result.stdout).toMatch(/\| moving count equal \| 2\/2 \| 2\/2 \| ≥ 2\/2 \| ok \|/);
      const below = result.stdout.split('\n').filter((l) => l.endsWith('| BELOW |'));
      expect(below).toEqual([
        expect.stringMatching(
          new RegExp(
            `^\\| step offset against the headless engine \\(collision-free motion of \\d+ bodies in \\d+ levels\\) \\| ${offset} \\(largest difference 0\\.0000\\) \\|`,
          ),
        ),
      ]);
    }, 300_000);
  }

  it('exits 1 and names the levels that differ when the Unity results do not match the evaluator', async () => {
    const settled = join(dir, 'scripts-settled');
    writeScripts(settled, subsetPasses, settleAfterFirstStep);
    const result = await runSbeval(['unity', 'calibrate', '--unity', unity, '--project', project, '--reference', reference, '--json'], {
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
    expect(
      report.unity.levels
        .filter((l) => !l.stableAgrees)
        .map((l) => l.level)
        .sort(),
    ).toEqual(['V1_L_2', 'V3_I_3']);

    const text = await runSbeval(['unity', 'calibrate', '--unity', unity, '--project', project, '--reference', join(reference, 'v1')]);
    expect(text.exitCode).toBe(2);
    expect(text.stderr).toMatch(/no reference levels under/);
  }, 300_000);
});
