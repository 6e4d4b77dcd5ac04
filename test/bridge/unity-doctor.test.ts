import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadReference } from '../../orchestrator/stages/agreement.js';
import { loadRuler } from '../../orchestrator/stages/ruler.js';
import { runSbeval } from '../helpers/cli.js';
import { headlessPasses, standInExecutable, writeScripts } from './double.js';
import { sharedPluginBuild } from './mcs.js';
import { scienceBirdsProject } from './standin-project.js';

/**
 * `sbeval unity doctor` through the command line, with the stand-in editor (the mono-run plugin on the
 * test double) as `--unity`: it passes against the stand-in, and against each of the double's broken
 * editors (TestDouble/StandIn `-doubleBroken`) it exits 1 with the failing check and its fix. The
 * double replays the headless engine's trials of the two levels the doctor runs, so its capture is
 * the headless image.
 */
let dir: string;
let project: string;
let scripts: string;
let exe: string;
let noPlayMode: ReturnType<typeof doctor>;

interface Report {
  ok: boolean;
  stage: string | null;
  checks: Array<{ check: string; verdict: string; detail: string; fix?: string }>;
}

beforeAll(async () => {
  exe = (await sharedPluginBuild()).standIn;
  dir = mkdtempSync(join(tmpdir(), 'sbeval-unity-doctor-'));
  project = await scienceBirdsProject(join(dir, 'modified-science-birds'));
  scripts = join(dir, 'scripts');
  const levels = [loadRuler().levels[0]!.xml, loadReference().find((l) => l.level === 'V1_L_10')!.xml];
  writeScripts(scripts, headlessPasses(levels));
  // An editor that never enters play mode makes the doctor wait out its deadline: that wait runs
  // beside the other cases instead of after them (its test awaits it).
  noPlayMode = doctor(standInExecutable(dir, exe, 'Unity-no-play', ['-doubleBroken', 'no-play-mode']), ['--deadline', '20']);
}, 900_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function doctor(unity: string, more: string[] = []) {
  return runSbeval(['unity', 'doctor', '--unity', unity, '--project', project, ...more], { env: { SBEVAL_DOUBLE_SCRIPTS: scripts } });
}

/** The output line of one check. */
const line = (stdout: string, check: string): string => stdout.split('\n').find((l) => l.slice(8).startsWith(`${check}  `)) ?? `(no line for ${check})`;

describe('sbeval unity doctor (the stand-in editor runs the plugin on the test double)', () => {
  it('passes every check against the stand-in, and says so in the same fields as JSON', async () => {
    const unity = standInExecutable(dir, exe, 'Unity');
    const result = await doctor(unity, ['--json']);
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.ok).toBe(true);
    expect(report.stage).toBe('bridge connected');
    expect(report.checks.map((c) => c.check)).toEqual([
      'editor version',
      'plugin',
      'build scenes',
      'OCR asset',
      'graphics API',
      'editor start',
      'ruler level',
      'reference level',
      'steps per frame',
      'first read step',
      'capture',
      'editor quit',
    ]);
    expect(report.checks.filter((c) => c.verdict !== 'pass')).toEqual([]);
    const detail = (check: string): string => report.checks.find((c) => c.check === check)?.detail ?? '';
    expect(detail('editor version')).toBe('2019.4.40f1 (the editor reports 2019.4.40f1-double)');
    expect(detail('graphics API')).toBe('metalEditorSupport: 0 (OpenGLCore on macOS); the editor reports SystemInfo.graphicsDeviceType OpenGLCore');
    expect(detail('steps per frame')).toMatch(/^1\.00 \(503 physics steps in 503 frames\)$/);
    expect(detail('first read step')).toBe('1');
    expect(detail('capture')).toMatch(/^IoU 1\.0000 against the headless engine's image of V1_L_10$/);
    expect(detail('editor quit')).toBe('exited with code 0 after bye');
  }, 300_000);

  it('names a project without the plugin or the world scenes, with the fixes', async () => {
    const bare = await scienceBirdsProject(join(dir, 'bare'));
    rmSync(join(bare, 'Assets', 'Sbeval'), { recursive: true });
    rmSync(join(bare, 'ProjectSettings', 'EditorBuildSettings.asset'));
    const unity = standInExecutable(dir, exe, 'Unity-bare');
    const result = await runSbeval(['unity', 'doctor', '--unity', unity, '--project', bare, '--deadline', '60']);
    expect(result.exitCode, result.stderr).toBe(1);
    expect(line(result.stdout, 'plugin')).toMatch(
      /^FAIL +plugin +not installed \(no Assets\/Sbeval\/SBEVAL-PLUGIN\.txt\) — fix: sbeval unity install <project>/,
    );
    expect(line(result.stdout, 'build scenes')).toMatch(/^FAIL .*EditorBuildSettings\.asset is missing — fix: .*File > Build Settings/);
    // The stand-in, as Unity, finds no -executeMethod class in a project without the plugin.
    expect(line(result.stdout, 'editor start')).toMatch(/^FAIL .*reached "editor started", not "script compiled"/);
    expect(line(result.stdout, 'capture')).toMatch(/^not run +capture +the editor did not connect/);
  }, 120_000);

  it('an editor that never enters play mode: exit 1 at "play mode entered", within its own deadline', async () => {
    const result = await noPlayMode;
    expect(result.exitCode, result.stderr).toBe(1);
    expect(line(result.stdout, 'editor start')).toMatch(
      /^FAIL +editor start +reached "entry method ran", not "play mode entered" within 20 s \(.*did not connect within 20 s.*\) — fix: the editor did not enter play mode from -executeMethod in batch mode/,
    );
    expect(line(result.stdout, 'plugin')).toMatch(/^ok /);
  }, 180_000);

  it('an editor whose ClientWebSocket.Abort() throws: the plugin still exits 0, and the quit check names the fallback', async () => {
    const unity = standInExecutable(dir, exe, 'Unity-abort', ['-doubleBroken', 'abort-throws']);
    const logDir = join(dir, 'abort-logs');
    const result = await doctor(unity, ['--log-dir', logDir]);
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stdout.split('\n').filter((l) => l.startsWith('FAIL'))).toEqual([
      expect.stringMatching(
        /^FAIL +editor quit +exited with code 0 after bye, but ClientWebSocket\.Abort\(\) threw NotImplementedException; closed the socket with Dispose\(\) instead — fix: this editor's Mono lacks ClientWebSocket\.Abort\(\)/,
      ),
    ]);
    const log = readFileSync(join(logDir, 'unity-0.log'), 'utf8');
    expect(log).toMatch(/\[double\] ClientWebSocket\.Abort\(\): throwing NotImplementedException/);
    expect(log).toMatch(/\[double\] exit 0/);
  }, 300_000);

  it('an editor whose capture is blank: the plugin refuses it naming SystemInfo.graphicsDeviceType, the capture check fails with the graphics-API fix', async () => {
    const unity = standInExecutable(dir, exe, 'Unity-blank', ['-doubleBroken', 'blank-capture']);
    const result = await doctor(unity);
    expect(result.exitCode, result.stderr).toBe(1);
    const fails = result.stdout.split('\n').filter((l) => l.startsWith('FAIL'));
    expect(fails.map((l) => l.split(/ +/)[1])).toEqual(['reference', 'capture']);
    expect(line(result.stdout, 'capture')).toMatch(
      /^FAIL +capture +.*the capture is blank: every pixel of the 824 × 824 render is \(255, 255, 255, 255\) although \d+ block\(s\) are in view — this editor's graphics device \(SystemInfo\.graphicsDeviceType OpenGLCore\) rendered nothing.* — fix: .*-force-metal or -force-glcore/,
    );
  }, 300_000);

  it('an editor that runs 8 physics steps per frame: the steps-per-frame and first-read checks fail with the window fix', async () => {
    const unity = standInExecutable(dir, exe, 'Unity-8', ['-doubleBroken', '8-steps-per-frame']);
    const result = await doctor(unity);
    expect(result.exitCode, result.stderr).toBe(1);
    const fails = result.stdout.split('\n').filter((l) => l.startsWith('FAIL'));
    expect(fails.map((l) => l.slice(8).split('  ')[0])).toEqual(['steps per frame', 'first read step']);
    expect(line(result.stdout, 'steps per frame')).toMatch(
      /^FAIL +steps per frame +7\.\d\d \(503 physics steps in \d+ frames\), not 1 — fix: bridge\/window\.ts assumes one physics step per frame/,
    );
    expect(line(result.stdout, 'first read step')).toMatch(/^FAIL +first read step +8: the first frame's read sees step 8, not 1 — fix: .*sbeval unity ruler/);
  }, 300_000);
});
