import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackedInstall, packedInstall } from '../helpers/packed.js';
import { standInExecutable } from './double.js';
import { sharedPluginBuild } from './mcs.js';
import { defaultCalibrationScripts, scienceBirdsProject } from './standin-project.js';

/**
 * The calibration data ships with the package: `npm pack`, installed into an empty folder without
 * network (test/helpers/packed.ts), then `npx sbeval unity install` and `npx sbeval unity calibrate
 * --unity <stand-in> --project <p>` there — no `--reference`, no checkout: the 90 reference levels and
 * the ruler come from the installed package's calibration/ folder.
 */
let dir: string;
let packed: PackedInstall;
let unity: string;
let project: string;
let scripts: string;

beforeAll(async () => {
  const build = await sharedPluginBuild();
  dir = mkdtempSync(join(tmpdir(), 'sbeval-unity-packed-'));
  packed = await packedInstall();
  project = await scienceBirdsProject(join(dir, 'modified-science-birds'), (args) => packed.sbeval(args));
  unity = standInExecutable(dir, build.standIn);
  scripts = await defaultCalibrationScripts();
}, 900_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sbeval unity calibrate from an installed tarball', () => {
  it('has the calibration data and none of the tests', () => {
    const installed = join(packed.dir, 'node_modules', 'sbeval');
    expect(existsSync(join(installed, 'calibration', 'reference-levels', 'v1', 'stability', 'L.json'))).toBe(true);
    expect(existsSync(join(installed, 'calibration', 'ruler', 'ruler.json'))).toBe(true);
    expect(existsSync(join(installed, 'test'))).toBe(false);
  });

  it('runs without --reference: the shipped reference and ruler levels, Unity column = headless, step offset 0, exit 0', async () => {
    const result = await packed.sbeval(['unity', 'calibrate', '--unity', unity, '--project', project], { SBEVAL_DOUBLE_SCRIPTS: scripts });
    expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toMatch(/Agreement with the Unity evaluator's own results on 90 reference levels/);
    expect(result.stdout).toMatch(/\| stable\/unstable verdict \| 90\/90 \| 90\/90 \|/);
    expect(result.stdout).toMatch(/\| ruler levels without a stream \| 0\/12 \|/);
    expect(result.stdout).toMatch(/Step offset: 0: Unity's step k is the headless engine's step k/);
    const logDir = /logs in (\S+)/.exec(result.stderr)?.[1];
    expect(readFileSync(join(logDir as string, 'unity-0.log'), 'utf8')).toContain(join(project));
  }, 600_000);
});
