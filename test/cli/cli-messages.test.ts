import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyExampleSources, PROJECT_ROOT, REFERENCE_LEVELS, runSbeval } from '../helpers/cli.js';
import { snapshot, spawnSbeval } from '../orchestrator/helpers/competition.js';

/**
 * What a user sees when something is off, through real child processes: a wrong folder is refused
 * with the likely root and nothing written (exit 2); a usage error is one line; old option names work
 * with a note; a missing file and Ctrl-C are one line each; `level` says which trial its table shows;
 * `npx sbeval` prints no npm warning caused by the project's files.
 */
let base: string;
let comp: string;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'sbeval-messages-'));
  comp = join(base, 'comp');
  copyExampleSources(comp, { teams: ['BlockSmith', 'GridThinkers'], letters: ['I', 'L'] });
  writeFileSync(join(comp, 'sbeval.config.yaml'), 'trials: 3\n');
  mkdirSync(join(base, 'empty'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('a folder that is not a competition root', () => {
  it('is refused by run (exit 2) with the likely root, and nothing is written: team folder, stage folder, empty folder, file', async () => {
    const before = snapshot(base, []);
    const targets = {
      team: join(comp, 'BlockSmith'),
      stage: join(comp, 'BlockSmith', 'raw'),
      empty: join(base, 'empty'),
      file: join(comp, 'BlockSmith', 'raw', 'I', 'BlockSmith_I_1.txt'),
    };
    const results = await Promise.all(Object.values(targets).map((target) => runSbeval(['run', target])));
    const said = Object.fromEntries(Object.keys(targets).map((k, i) => [k, results[i]!]));
    for (const [kind, result] of Object.entries(said)) {
      expect(result.exitCode, kind).toBe(2);
      // One line: what was found, and where the root probably is, as a command to paste.
      expect(result.stderr.split('\n'), kind).toHaveLength(1);
      expect(result.stderr, kind).toContain(`the competition root is probably ${comp}: sbeval run ${comp}`);
    }
    expect(said.team!.stderr).toMatch(/looks like a team folder \(it holds raw\/\), not a competition root/);
    expect(said.stage!.stderr).toMatch(/looks like a stage folder inside a team folder/);
    expect(said.empty!.stderr).toMatch(/holds no team folders/);
    expect(said.file!.stderr).toMatch(/is a file, not a competition folder/);
    // The stage commands check the same way.
    const score = await runSbeval(['score', targets.team]);
    expect(score.exitCode).toBe(2);
    expect(score.stderr).toContain(`sbeval score ${comp}`);
    const after = snapshot(base, []);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [file, hash] of before) expect(after.get(file), file).toBe(hash);
  }, 120_000);
});

describe('usage messages', () => {
  it('a misspelt option is one line and a pointer to --help, not the whole help', async () => {
    const result = await runSbeval(['run', comp, '--cahrs', 'A']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.split('\n')).toEqual(["error: unknown option '--cahrs'", '(Did you mean --chars?)', '(see: sbeval run --help)']);
    expect(result.stdout).toBe('');
  });

  it('the old --char still works, with a note, and every command prints its settings in one line', async () => {
    const result = await runSbeval(['extract', comp, '--char', 'I', '--json']);
    expect(result.exitCode).toBe(0);
    const lines = result.stderr.split('\n');
    expect(lines[0]).toBe('sbeval: --char is now --chars (accepted)');
    // extract uses the rules' function name, not T and not the similarity model: its line names neither.
    expect(lines[1]).toBe('sbeval extract: rules 2025 (default), calls drop_block() (by the rules), characters I (flag)');
    const summary = JSON.parse(result.stdout) as { succeeded: number; failed: number };
    expect(summary.succeeded + summary.failed).toBe(2 * 3); // two teams × letter I × 3 responses
    expect(readdirSync(join(comp, 'BlockSmith', 'intermediate'))).toEqual(['I']);
  });

  it('a missing input file is one line', async () => {
    const result = await runSbeval(['level', 'nope.xml']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('sbeval: [input] level file nope.xml does not exist');
  });

  it('make-random-vit --help prints its usage', async () => {
    const result = await execa(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'scripts', 'make-random-vit.ts'), '--help'], {
      cwd: PROJECT_ROOT,
      reject: false,
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^Usage: npx tsx scripts\/make-random-vit\.ts /);
    expect(result.stdout).toContain('--small');
  });
});

describe('sbeval level', () => {
  it('says which trial its table shows: the last, or trial 1 when --trace records trial 1', async () => {
    const level = join(REFERENCE_LEVELS, 'v1', 'levels', 'L', 'V1_L_1.xml');
    const trace = join(base, 'l1.sbtrace');
    const [plain, traced, text] = await Promise.all([
      runSbeval(['level', level, '--json']),
      runSbeval(['level', level, '--json', '--trace', trace]),
      runSbeval(['level', level, '--trace', join(base, 'l1b.sbtrace')]),
    ]);
    const a = JSON.parse(plain.stdout);
    const b = JSON.parse(traced.stdout);
    // V1_L_1 collapses: several trials, and the table's moving blocks are those of the trial it names.
    expect(a.trials.length).toBeGreaterThan(1);
    expect(a.objectsOfTrial).toBe(a.trials.length);
    expect(b.objectsOfTrial).toBe(1);
    const moving = (r: { objects: Array<{ id: number; moving: boolean }> }) => r.objects.filter((o) => o.moving).map((o) => o.id);
    expect(moving(a)).toEqual(a.trials.at(-1).moving);
    expect(moving(b)).toEqual(b.trials[0].moving);
    expect(text.stdout.split('\n')[0]).toMatch(/ — objects of trial 1, the trial the trace records$/);
  }, 120_000);
});

describe('Ctrl-C in a stand-alone simulate', () => {
  it('stops after the levels in flight, says so in one line, keeps what is done, exits 130', async () => {
    const root = join(base, 'interrupt');
    copyExampleSources(root);
    await runSbeval(['extract', root]);
    await runSbeval(['convert', root]);
    const child = spawnSbeval(['simulate', root, '--workers', '1']);
    // Wait until the first level is finished (its cache entry exists), then interrupt.
    const cache = join(root, '.sbeval', 'simulate');
    const deadline = Date.now() + 120_000;
    const done = () => existsSync(cache) && readdirSync(cache, { recursive: true }).some((f) => String(f).endsWith('.json'));
    while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(done()).toBe(true);
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode).toBe(130);
    expect(String(result.stderr)).toMatch(/sbeval simulate: stopped by SIGINT; finished work is kept — run the same command to continue\n?$/);
    // What was finished is kept (the cache the next run skips by); the levels not started are not there.
    const kept = readdirSync(cache, { recursive: true }).filter((f) => String(f).endsWith('.json')).length;
    const levels = readdirSync(root, { recursive: true }).filter((f) => /\/levels\/.+\.xml$/.test(String(f))).length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(levels);
    // The summary accounts for every level: those it did not start are counted as not run, not left out.
    const counts =
      /^stability: (\d+) succeeded, (\d+) failed, (\d+) already done\n(?:.*\n)*? {2}(\d+) not run: interrupted before they started \(run the same command to do them\)$/m.exec(
        String(result.stdout),
      );
    expect(counts, String(result.stdout)).not.toBeNull();
    expect(
      counts!
        .slice(1, 5)
        .map(Number)
        .reduce((a, b) => a + b, 0),
    ).toBe(levels);
  }, 240_000);
});

describe('npx sbeval', () => {
  /**
   * `npx …` with only the project's npm configuration: a user config that only turns off npm's own
   * update check (a registry request), an empty global config, a fresh HOME (so a fresh npx cache, as
   * a new user has), no npm_config_* variables from whoever runs the tests. In CI the project folder is
   * a fresh clone after `npm ci`.
   */
  function isolatedNpx(cwd: string, args: string[], home: string) {
    const [user, global] = [join(home, 'user-npmrc'), join(home, 'global-npmrc')];
    writeFileSync(user, 'update-notifier=false\n');
    writeFileSync(global, '');
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: home,
      NPM_CONFIG_USERCONFIG: user,
      NPM_CONFIG_GLOBALCONFIG: global,
      NO_UPDATE_NOTIFIER: '1',
    };
    return execa('npx', args, { cwd, env, extendEnv: false, reject: false });
  }

  it('prints no npm warning caused by the project files (and the check would catch the old .npmrc key)', async () => {
    expect(existsSync(join(PROJECT_ROOT, 'dist', 'cli', 'main.js')), 'dist/ is built by `npm test` (or npm run build)').toBe(true);
    const home = mkdtempSync(join(tmpdir(), 'sbeval-npx-home-'));
    // The control: a project whose .npmrc holds the key this project's .npmrc used to hold.
    const control = join(home, 'control');
    mkdirSync(control);
    writeFileSync(join(control, 'package.json'), '{"name":"control","version":"1.0.0","private":true}\n');
    writeFileSync(join(control, '.npmrc'), 'onnxruntime-node-install=skip\n');
    try {
      const result = await isolatedNpx(PROJECT_ROOT, ['sbeval', '--help'], home);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^Usage: sbeval /);
      expect(result.stderr).not.toMatch(/npm warn/i);
      const old = await isolatedNpx(control, ['-c', 'true'], home);
      expect(old.exitCode).toBe(0);
      expect(old.stderr).toMatch(/npm warn Unknown project config "onnxruntime-node-install"/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 300_000);
});
