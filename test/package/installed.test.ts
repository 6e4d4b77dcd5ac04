import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackedInstall, packedInstall } from '../helpers/packed.js';

/**
 * The package is the product: `npm pack` of this checkout, installed into an empty folder without
 * network (test/helpers/packed.ts, made once per test run and shared with the other tests of the
 * installed package), then what a user of it types there — `sbeval --help`; the README's first command
 * on a copy of the example the package ships; `sbeval level --trace` and `sbeval view` on that trace
 * (page, scripts and frames served over HTTP); the data it reads at run time from its own files (built-in
 * prompts, default rubric, survey metrics); and the fidelity check an installed package can run.
 * `npm run fidelity` is a script of the checkout (tsx, scripts/ is not shipped): its installed
 * counterpart is `sbeval simulate` on the reference levels the package ships
 * (calibration/reference-levels), compared with the evaluator's own stability files beside them.
 */
let packed: PackedInstall;
let installed: string;
let work: string;

beforeAll(async () => {
  packed = await packedInstall();
  installed = join(packed.dir, 'node_modules', 'sbeval');
  // Inside the install folder, so that `npx sbeval` finds the installed package as it does for a user's project.
  work = mkdtempSync(join(packed.dir, 'work-'));
}, 900_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const LEVEL = join('examples', 'competition', 'BlockSmith', 'levels', 'T', 'BlockSmith_T_1.xml');

describe('the installed package', { timeout: 300_000 }, () => {
  it('ships no tests and answers --help', async () => {
    expect(existsSync(join(installed, 'test'))).toBe(false);
    const help = await packed.sbeval(['--help'], {}, work);
    expect(help.exitCode, help.stderr).toBe(0);
    for (const command of ['run', 'simulate', 'view', 'score', 'unity']) expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
  });

  it('runs the README command on a copy of the shipped example: every level simulated, every trial accounted for, exit 0', async () => {
    cpSync(join(installed, 'examples'), join(work, 'examples'), { recursive: true });
    const result = await packed.sbeval(['run', 'examples/competition'], {}, work);
    expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
    // No similarity model in the test's cache: the run says how to get one and scores nothing.
    expect(result.stdout).toContain('sbeval model fetch');
    const root = join(work, 'examples', 'competition');
    const trials = readFileSync(join(root, 'result', 'trials.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1);
    expect(trials).toHaveLength(45);
    expect(trials.filter((t) => t.includes(',image,'))).toHaveLength(37);
    expect(readFileSync(join(root, 'result', 'failures.md'), 'utf8')).toContain('Code not found.');
    for (const team of ['BlockSmith', 'GridThinkers', 'PromptPilots']) {
      expect(readdirSync(join(root, team, 'stability')).sort()).toEqual(['I.json', 'L.json', 'O.json', 'T.json', 'U.json']);
    }
    expect(existsSync(join(root, 'BlockSmith', 'images', 'T', 'BlockSmith_T_1.png'))).toBe(true);
  });

  it('finds its own data in the installed package: the built-in prompts, the default rubric, the survey metrics', async () => {
    // The library, as a user's script imports it from the install folder.
    const script = [
      "import { loadSubmission, loadRubric } from 'sbeval';",
      "const prompt = loadSubmission('builtin:zero-shot-multi-turn');",
      'const rubric = loadRubric(undefined);',
      'console.log(JSON.stringify({ turns: prompt.turns.length, rubric: rubric.source, levels: Object.keys(rubric.template.levels) }));',
    ].join('\n');
    const library = await execa(process.execPath, ['--input-type=module', '-e', script], { cwd: work, reject: false });
    expect(library.exitCode, String(library.stderr)).toBe(0);
    expect(JSON.parse(String(library.stdout))).toEqual({ turns: expect.any(Number), rubric: 'default', levels: ['25', '50', '100'] });
    // The survey reads the default metrics; it runs on the example the run above left.
    const survey = await packed.sbeval(['survey', 'build', 'examples/competition'], {}, work);
    expect(survey.exitCode, survey.stderr).toBe(0);
    const built = JSON.parse(readFileSync(join(work, 'examples', 'competition', 'result', 'survey', 'survey.json'), 'utf8')) as {
      metrics: Array<{ id: string }>;
      items: unknown[];
    };
    expect(built.metrics.map((m) => m.id)).toContain('looks-like');
    expect(built.items).toHaveLength(37);
  });

  it('records a trace of one of its levels and serves it in the viewer: page, scripts, session, meta and frames', async () => {
    const trace = join(work, 'T_1.sbtrace.gz');
    const level = await packed.sbeval(['level', join(work, LEVEL), '--trace', trace], {}, work);
    expect(level.exitCode, level.stderr).toBe(0);
    const view = packed.spawn(['view', trace, '--port', '0'], work);
    try {
      const url = await printedUrl(view);
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<canvas id="scene"');
      expect((await fetch(new URL('static/app.js', url))).status).toBe(200);
      expect(await (await fetch(new URL('api/session', url))).json()).toMatchObject({ mode: 'trial' });
      const meta = (await (await fetch(new URL('api/trial/main/meta', url))).json()) as { bodyCount: number; stepCount: number };
      expect(meta.bodyCount).toBe(6);
      const frames = await fetch(new URL('api/trial/main/frames', url));
      expect(frames.status).toBe(200);
      // Per step and body: 6 float32 fields (x, y, angle, vx, vy, ω), one alive byte and the float32
      // displacement from the start position the verdict measures (viewer/trial.ts viewerFrames).
      expect((await frames.arrayBuffer()).byteLength).toBe(meta.stepCount * meta.bodyCount * (6 * 4 + 1 + 4));
    } finally {
      view.kill('SIGTERM');
      await view;
    }
  });

  it('checks its fidelity on the reference levels it ships: verdicts 90/90, moving counts ≥ 89/90, scores 90/90', async () => {
    const reference = join(installed, 'calibration', 'reference-levels');
    const root = join(work, 'reference');
    for (const team of ['v1', 'v2', 'v3']) cpSync(join(reference, team, 'levels'), join(root, team, 'levels'), { recursive: true });
    const result = await packed.sbeval(['simulate', 'reference'], {}, work);
    expect(result.exitCode, result.stderr).toBe(0);
    const pairs = ['v1', 'v2', 'v3'].flatMap((team) =>
      ['I', 'L', 'U'].flatMap((letter) => {
        const file = join(team, 'stability', `${letter}.json`);
        const evaluator = levelResults(join(reference, file));
        return [...levelResults(join(root, file))].map(([name, engine]) => ({ name, engine, evaluator: evaluator.get(name) }));
      }),
    );
    expect(pairs).toHaveLength(90);
    expect(pairs.filter((p) => p.evaluator === undefined)).toEqual([]);
    const agree = (f: (p: (typeof pairs)[number]) => boolean) => pairs.filter(f).length;
    expect(agree((p) => (p.engine.score === 1) === (p.evaluator!.score === 1))).toBe(90);
    expect(agree((p) => p.engine.score === p.evaluator!.score)).toBe(90);
    expect(agree((p) => p.engine.movingObjects === p.evaluator!.movingObjects)).toBeGreaterThanOrEqual(89);
  });
});

interface LevelResult {
  score: number;
  movingObjects: number;
}

/** A stability file's levels by name (the evaluator's tags use `\`, sbeval's the same layout). */
function levelResults(path: string): Map<string, LevelResult> {
  const file = JSON.parse(readFileSync(path, 'utf8')) as { raws: Array<LevelResult & { tag: string }> };
  return new Map(file.raws.map((r) => [r.tag.split(/[\\/]/).at(-1)!, { score: r.score, movingObjects: r.movingObjects }]));
}

/** The URL `sbeval view` prints once its server listens (no deadline of its own: the test's timeout bounds it). */
function printedUrl(child: ReturnType<PackedInstall['spawn']>): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /sbeval viewer: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out)?.[1];
      if (url) resolve(url);
    });
    void child.then((r) => reject(new Error(`sbeval view ended (exit ${r.exitCode}) before printing its URL: ${String(r.stderr)}`)));
  });
}
