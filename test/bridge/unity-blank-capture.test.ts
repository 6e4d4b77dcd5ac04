import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_LEVELS, runSbeval } from '../helpers/cli.js';
import { standInExecutable } from './double.js';
import { sharedPluginBuild } from './mcs.js';
import { scienceBirdsProject } from './standin-project.js';

/**
 * An editor whose graphics device renders nothing (the stand-in with `-doubleBroken blank-capture`:
 * SystemInfo.graphicsDeviceType OpenGLCore, cameras that clear and draw no sprite): the plugin refuses
 * the blank capture instead of sending it, and `sbeval unity calibrate` and `sbeval run --engine unity`
 * fail the level with the message naming the graphics device and how to pick another.
 */
const BLANK =
  /the capture is blank: every pixel of the 824 × 824 render is \(255, 255, 255, 255\) although 5 block\(s\) are in view — this editor's graphics device \(SystemInfo\.graphicsDeviceType OpenGLCore\) rendered nothing \(start the editor with another graphics API \(-force-metal or -force-glcore/;
const LEVEL = join('v1', 'levels', 'L', 'V1_L_10.xml');
let dir: string;
let project: string;
let unity: string;

beforeAll(async () => {
  const exe = (await sharedPluginBuild()).standIn;
  dir = mkdtempSync(join(tmpdir(), 'sbeval-unity-blank-'));
  project = await scienceBirdsProject(join(dir, 'modified-science-birds'));
  unity = standInExecutable(dir, exe, 'Unity', ['-doubleBroken', 'blank-capture']);
}, 900_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a blank capture is refused with the graphics-API message', () => {
  it('by sbeval unity calibrate: the level has no Unity result, the reason names the graphics device, exit 1', async () => {
    const reference = join(dir, 'reference');
    for (const path of [LEVEL, join('v1', 'images', 'L', 'V1_L_10.png'), join('v1', 'stability', 'L.json')]) {
      mkdirSync(join(reference, path, '..'), { recursive: true });
      cpSync(join(REFERENCE_LEVELS, path), join(reference, path));
    }
    const result = await runSbeval(['unity', 'calibrate', '--unity', unity, '--project', project, '--reference', reference]);
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stdout).toMatch(/\| levels without a result \| 1 \| 0 \| 0 \| BELOW \|/);
    const row = result.stdout.split('\n').find((l) => l.startsWith('| V1_L_10 |')) ?? '';
    expect(row).toMatch(BLANK);
  }, 300_000);

  it('by sbeval run --engine unity: the level is left unsimulated with the reason, no stability file, exit 1', async () => {
    const root = join(dir, 'competition');
    mkdirSync(join(root, 'team', 'levels', 'L'), { recursive: true });
    cpSync(join(REFERENCE_LEVELS, LEVEL), join(root, 'team', 'levels', 'L', 'team_L_1.xml'));
    const result = await runSbeval(['run', root, '--engine', 'unity', '--workers', '1'], {
      env: { SBEVAL_UNITY_EDITOR: unity, SBEVAL_UNITY_PROJECT: project },
    });
    expect(result.exitCode, result.stderr).toBe(1);
    const unfinished = result.stdout.split('\n').find((l) => l.startsWith('  1 × simulate: ')) ?? '';
    expect(unfinished).toMatch(BLANK);
    expect(existsSync(join(root, 'team', 'stability', 'L.json'))).toBe(false);
  }, 300_000);
});
