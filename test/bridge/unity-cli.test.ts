import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTrace } from '../../bridge/trace.js';
import { runSbeval } from '../helpers/cli.js';
import { goldenLevel } from './levels.js';

/**
 * `sbeval unity install` and `sbeval unity launch`, end to end through the real CLI. Unity cannot run
 * here, so `--unity` points at a stand-in (fixtures/fake-unity.mjs) that checks the editor command
 * line, writes its -logFile, speaks the real protocol over a real socket, and crashes on request.
 */
const FAKE_UNITY = fileURLToPath(new URL('./fixtures/fake-unity.mjs', import.meta.url));
let dir: string;

/** A folder that looks like a Science Birds project to the installer. */
function fakeProject(name: string): string {
  const project = join(dir, name);
  mkdirSync(join(project, 'ProjectSettings'), { recursive: true });
  mkdirSync(join(project, 'Packages'), { recursive: true });
  mkdirSync(join(project, 'Assets', 'Scripts', 'GameWorld'), { recursive: true });
  writeFileSync(join(project, 'Assets', 'Scripts', 'GameWorld', 'ABGameWorld.cs'), '// stand-in\n');
  writeFileSync(join(project, 'ProjectSettings', 'ProjectVersion.txt'), 'm_EditorVersion: 2019.4.40f1\n');
  return project;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sbeval-unity-cli-'));
  chmodSync(FAKE_UNITY, 0o755);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sbeval unity install', () => {
  it('copies the runtime and editor sources (not the test double or tests) into Assets/Sbeval', async () => {
    const project = fakeProject('install');
    const result = await runSbeval(['unity', 'install', project]);
    expect(result.exitCode, result.stderr).toBe(0);
    const target = join(project, 'Assets', 'Sbeval');
    for (const file of [
      'Runtime/Protocol.cs',
      'Runtime/MsgPack.cs',
      'Runtime/Unity/LevelRun.cs',
      'Editor/SbevalBatchEntry.cs',
      'README.md',
      'SBEVAL-PLUGIN.txt',
    ]) {
      expect(existsSync(join(target, file)), file).toBe(true);
    }
    expect(readdirSync(target).sort()).toEqual(['Editor', 'README.md', 'Runtime', 'SBEVAL-PLUGIN.txt']);
    expect(readFileSync(join(target, 'Runtime', 'Protocol.cs'), 'utf8')).toBe(
      readFileSync(new URL('../../unity-plugin/Runtime/Protocol.cs', import.meta.url), 'utf8'),
    );
    expect(result.stdout).toMatch(/sbeval unity launch --unity <editor binary>/);

    const again = await runSbeval(['unity', 'install', project]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toMatch(/already exists \(pass --force to replace the installed plugin\)/);
    writeFileSync(join(target, 'Runtime', 'Stale.cs'), '// from an older plugin\n');
    const forced = await runSbeval(['unity', 'install', project, '--force']);
    expect(forced.exitCode).toBe(0);
    expect(existsSync(join(target, 'Runtime', 'Stale.cs'))).toBe(false);
  }, 60_000);

  it('refuses a folder that is not a Science Birds project', async () => {
    const result = await runSbeval(['unity', 'install', join(dir, 'nothing-here')]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/is not a Science Birds Unity project/);
  }, 30_000);
});

describe('sbeval unity launch (with a stand-in editor)', () => {
  let project: string;
  beforeAll(async () => {
    project = fakeProject('launch');
    const installed = await runSbeval(['unity', 'install', project]);
    expect(installed.exitCode).toBe(0);
  }, 60_000);

  it('starts the instances, feeds every level, restarts the one that crashed mid-level, loses no level', async () => {
    const levels = join(dir, 'levels');
    mkdirSync(levels, { recursive: true });
    // `a` kills its instance mid-level; the others are held until the crashed instance has started
    // again (at most 5 s each), so the run does not end before the restart.
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    for (const n of names) writeFileSync(join(levels, `${n}.xml`), `${goldenLevel('V1_L_1')}<!-- sbeval-test:until-restart -->\n`);
    writeFileSync(join(levels, 'a.xml'), `${goldenLevel('V1_L_5')}<!-- sbeval-test:crash-once -->\n`);
    const out = join(dir, 'out');
    const logDir = join(dir, 'logs');
    const result = await runSbeval([
      'unity',
      'launch',
      '--unity',
      FAKE_UNITY,
      '--project',
      project,
      '--instances',
      '2',
      '--levels',
      levels,
      '--out',
      out,
      '--log-dir',
      logDir,
      '--window-steps',
      '50',
      '--json',
    ]);
    expect(result.exitCode, result.stderr + result.stdout).toBe(0);
    const summary = JSON.parse(result.stdout) as {
      restarts: number;
      succeeded: number;
      failed: number;
      outcomes: Array<{ level: string; ok: boolean; attempts: number }>;
    };
    expect(summary, result.stderr).toMatchObject({ succeeded: 7, failed: 0, restarts: 1 });
    expect(summary.outcomes.find((o) => o.level === 'a')?.attempts).toBe(2);
    expect(summary.outcomes.filter((o) => o.level !== 'a').every((o) => o.attempts === 1)).toBe(true);

    // Every level has its trace and capture.
    for (const n of names) {
      const trace = await readTrace(join(out, `${n}.sbtrace.gz`));
      expect(trace.complete).toBe(true);
      expect(trace.frames.stepCount).toBe(50 + 14 + 1);
      expect(trace.header.engine.version).toBe('2019.4.40f1-stand-in');
      expect(
        readFileSync(join(out, `${n}.png`))
          .subarray(1, 4)
          .toString(),
      ).toBe('PNG');
    }
    // One log per instance; the crashed one started twice.
    const logs = readdirSync(logDir).sort();
    expect(logs).toEqual(['unity-0.log', 'unity-1.log']);
    const texts = logs.map((l) => readFileSync(join(logDir, l), 'utf8'));
    const starts = texts.map((t) => (t.match(/=== sbeval: start/g) ?? []).length).sort();
    expect(starts).toEqual([1, 2]);
    // The restarted instance served levels again after its second start.
    const restarted = texts.find((t) => t.includes('=== sbeval: start 2')) as string;
    expect(restarted.slice(restarted.indexOf('=== sbeval: start 2'))).toMatch(/level [b-g] \(run/);
    const all = texts.join('\n');
    expect(all).toMatch(/crashing in the middle of a/);
    expect(all).toMatch(
      /-batchmode -projectPath .* -executeMethod Sbeval\.Bridge\.EditorTools\.SbevalBatchEntry\.Run -logFile .* -sbevalUrl ws:\/\/127\.0\.0\.1:\d+ -sbevalInstance unity-/,
    );
    expect(all).not.toMatch(/-sbevalToken/);
    expect(all.match(/bye: orchestrator finished/g)).toHaveLength(2);
    expect(result.stderr).toMatch(/unity-\d exited with code 3/);
    expect(result.stderr).toMatch(/restarting unity-\d in \d+ ms \(restart 1 of 3\)/);
    // Instance 1 ran on a linked clone of the project (an editor locks its project).
    const clone = `${project}.sbeval-1`;
    expect(lstatSync(join(clone, 'Assets')).isSymbolicLink()).toBe(true);
    expect(all).toContain(`-projectPath ${clone}`);
  }, 180_000);

  it('says which instance failed to start, with its log', async () => {
    const broken = fakeProject('not-installed');
    const result = await runSbeval([
      'unity',
      'launch',
      '--unity',
      FAKE_UNITY,
      '--project',
      broken,
      '--log-dir',
      join(dir, 'broken-logs'),
      '--max-restarts',
      '0',
    ]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/\[launch\] unity-0 exited with code 1 before connecting to ws:\/\/127\.0\.0\.1:\d+/);
    expect(result.stderr).toMatch(/the sbeval plugin is not installed in/);
    expect(result.stderr).toMatch(/sbeval unity install/);
  }, 60_000);

  it('without levels, starts, checks and quits', async () => {
    const result = await runSbeval(['unity', 'launch', '--unity', FAKE_UNITY, '--project', project, '--log-dir', join(dir, 'check-logs')]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/unity-0 ready: unity 2019\.4\.40f1-stand-in/);
    expect(result.stdout).toMatch(/1 instance\(s\), 0 restart\(s\); 0 level\(s\) done, 0 failed/);
  }, 60_000);
});
