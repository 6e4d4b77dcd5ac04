import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRandomVit } from '../../scripts/make-random-vit.js';
import { copyExampleSources } from '../helpers/cli.js';
import { FakeOllama } from '../helpers/fake-ollama.js';
import { PROJECT_ROOT, snapshot } from './helpers/competition.js';

/**
 * Issue 23, case 4: ONE write guard (core/write-guard.ts). Every command that writes into a root is
 * run once on a real competition with the recorder preloaded (test/helpers/write-recorder.mjs: it
 * listens on the guard's diagnostics channel), so the folders each command writes come from the
 * command's own writes, not from a list. Then, for every one of those folders, the same command runs
 * again from the same starting state with that folder replaced by a symbolic link to a folder outside
 * the root (holding what the folder held): it must stop with exit 2 and a line naming the link, and
 * write nothing outside the root.
 *
 * The recording runs are real child processes. The attacks — about a hundred command lines — run in
 * one child process through `runCli`, the function the `sbeval` binary calls with its argv
 * (test/helpers/cli-batch.ts), sharing only the process start; `survey serve`, a server, runs as a
 * child per attack.
 */
const MAIN = fileURLToPath(new URL('../../orchestrator/cli/main.ts', import.meta.url));
const RECORDER = fileURLToPath(new URL('../helpers/write-recorder.mjs', import.meta.url));
const BATCH = fileURLToPath(new URL('../helpers/cli-batch.ts', import.meta.url));
const JUDGE = 'judge-model';
const MODEL = 'gen-model';

let work: string;
let fake: FakeOllama;
let vit: string;
let counter = 0;

const tempDir = (prefix: string) => mkdtempSync(join(work, prefix));

/** `sbeval <args>` as a child with the write recorder; the folders under `root` its guarded writes went through (relative, `/`-separated). */
function recorded(args: string[], root: string): { child: ResultPromise; folders: () => string[] } {
  const record = join(work, `record-${(counter += 1)}.jsonl`);
  const child = execa(process.execPath, ['--import', RECORDER, '--import', 'tsx', MAIN, ...args], {
    reject: false,
    cwd: PROJECT_ROOT,
    env: { FORCE_COLOR: '0', SBEVAL_WRITE_RECORD: record },
  });
  return { child, folders: () => foldersWritten(root, record) };
}

/** Every folder strictly between `root` and a file written (or a folder made) under it. */
function foldersWritten(root: string, record: string): string[] {
  const folders = new Set<string>();
  const lines = existsSync(record) ? readFileSync(record, 'utf8').split('\n').filter(Boolean) : [];
  for (const line of lines) {
    const { path, folder } = JSON.parse(line) as { path: string; folder: boolean };
    const rel = relative(root, path);
    if (rel === '' || rel.startsWith('..')) continue;
    const parts = rel.split(sep);
    const depth = folder ? parts.length : parts.length - 1;
    for (let i = 1; i <= depth; i += 1) folders.add(parts.slice(0, i).join('/'));
  }
  return [...folders].sort();
}

async function ok(run: { child: ResultPromise }): Promise<void> {
  const result = await run.child;
  expect(result.exitCode, `${String(result.stderr)}`).toBe(0);
}

/** A copy of a state of the competition, for one command to change. */
function copyOf(template: string, name: string): string {
  const root = join(tempDir(`${name}-`), 'root');
  cpSync(template, root, { recursive: true });
  return root;
}

interface Walk {
  command: string;
  /** The competition before the command ran. */
  template: string;
  args: (root: string) => string[];
  /** Folders the command wrote under the root (from the recording). */
  folders: string[];
}

const walks: Walk[] = [];
let surveyWalk: Walk;

/** Replaces `folder` of a copy of `template` with a link to a folder outside the root holding what it held. */
function linked(template: string, folder: string, name: string): { root: string; link: string; outside: string } {
  const root = copyOf(template, name);
  const outside = tempDir('outside-');
  const link = join(root, ...folder.split('/'));
  if (existsSync(link)) {
    for (const entry of readdirSync(link)) renameSync(join(link, entry), join(outside, entry));
    rmdirSync(link);
  } else {
    mkdirSync(dirname(link), { recursive: true });
  }
  symlinkSync(outside, link, 'dir');
  return { root, link, outside };
}

/** A rater's answer through the survey server; the HTTP status. */
async function rate(url: string, metric: string, value: number): Promise<number> {
  const response = await fetch(new URL('api/rater/rater-1/item-1', url), { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ values: { [metric]: value } }) });
  await response.text();
  return response.status;
}

function serveUrl(child: ResultPromise): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const m = /sbeval survey: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(text);
      if (m) resolve(m[1]!);
    });
    void child.then((r) => reject(new Error(`survey serve ended: exit ${r.exitCode} ${String(r.stderr)}`)));
  });
}

const surveyMetric = (root: string) => {
  const survey = JSON.parse(readFileSync(join(root, 'result', 'survey', 'survey.json'), 'utf8')) as { metrics: Array<{ id: string; scale: { min: number } }> };
  return { id: survey.metrics[0]!.id, value: survey.metrics[0]!.scale.min };
};

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sbeval-write-guard-'));
  fake = await new FakeOllama({ models: [JUDGE, MODEL], answer: (call) => (call.model === JUDGE ? 'I cannot tell.' : "```python\ndrop_block('b11', 5)\n```") }).start();
  vit = writeRandomVit(join(work, 'vit'), { layers: 1, hidden: 32, heads: 2, intermediate: 64, image: 32, patch: 16, labels: 26, seed: 5 }).onnx;
  const sources = join(work, 'sources');
  copyExampleSources(sources, { teams: ['BlockSmith', 'GridThinkers'], letters: ['I'] });
  writeFileSync(join(sources, 'sbeval.config.yaml'), 'trials: 3\n');
  const hosts = ['--hosts', fake.url];

  const record = async (command: string, template: string, args: (root: string) => string[]): Promise<string> => {
    const root = copyOf(template, command.replace(' ', '-'));
    const run = recorded(args(root), root);
    await ok(run);
    walks.push({ command, template, args, folders: run.folders() });
    return root;
  };

  // Three independent chains, side by side; in each, every command starts from the state the previous one left.
  const prompt = join(work, 'prompt.txt');
  writeFileSync(prompt, 'Build the letter <OBJECT>.\n');
  const generation = async () => {
    await record('generate', tempDir('empty-'), (root) => ['generate', root, '--submission', prompt, '--team', 'zero', '--models', MODEL, ...hosts, '--trials', '1', '--chars', 'I']);
  };
  const stages = async () => {
    const extracted = await record('extract', sources, (root) => ['extract', root]);
    const converted = await record('convert', extracted, (root) => ['convert', root]);
    const simulated = await record('simulate', converted, (root) => ['simulate', root, '--workers', '1']);
    const similar = await record('similarity', simulated, (root) => ['similarity', root, '--model', vit]);
    const diverse = await record('diversity', similar, (root) => ['diversity', root]);
    await record('score', diverse, (root) => ['score', root]);
  };
  // The whole run, with traces, and what is built on it.
  const onTheRun = async () => {
    const ran = await record('run', sources, (root) => ['run', root, '--model', vit, '--traces', '--workers', '1']);
    await record('judge rubric', ran, (root) => ['judge', 'rubric', root, '--judge', JUDGE, ...hosts, '--retries', '0']);
    await record('judge order', ran, (root) => ['judge', 'order', root, '--judge', JUDGE, ...hosts, '--view', 'grid', '--retries', '0']);
    const built = await record('survey build', ran, (root) => ['survey', 'build', root]);
    // survey serve: a rater's answer is its one write.
    const served = copyOf(built, 'survey-serve');
    const serve = recorded(['survey', 'serve', served], served);
    const url = await serveUrl(serve.child);
    const metric = surveyMetric(served);
    expect(await rate(url, metric.id, metric.value)).toBe(200);
    serve.child.kill('SIGTERM');
    await serve.child;
    surveyWalk = { command: 'survey serve', template: built, args: (root) => ['survey', 'serve', root], folders: serve.folders() };
    await record('survey collect', served, (root) => ['survey', 'collect', root]);
  };
  await Promise.all([generation(), stages(), onTheRun()]);
  walks.sort((a, b) => (a.command < b.command ? -1 : 1));
}, 900_000);

afterAll(async () => {
  await fake?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the folders each command writes, from its own writes', () => {
  it('are recorded for every command that writes into a root', () => {
    const byCommand = Object.fromEntries([...walks, surveyWalk].map((w) => [w.command, w.folders]));
    // The red team's two misses are among them, found by the recording, not listed here.
    expect(byCommand['judge rubric']).toContain('BlockSmith/judge-rubric');
    expect(byCommand['survey serve']).toContain('result/survey/answers');
    for (const [command, folders] of Object.entries(byCommand)) expect(folders.length, command).toBeGreaterThan(0);
    expect(Object.keys(byCommand).sort()).toEqual(
      ['convert', 'diversity', 'extract', 'generate', 'judge order', 'judge rubric', 'run', 'score', 'similarity', 'simulate', 'survey build', 'survey collect', 'survey serve'].sort(),
    );
  });
});

describe('a symbolic link at any folder a command writes', () => {
  it('stops the command with exit 2 and a line naming the link, and nothing is written outside the root', async () => {
    const attacks = walks.flatMap((walk) => walk.folders.map((folder) => ({ walk, folder, ...linked(walk.template, folder, `${walk.command.replace(' ', '-')}-attack`) })));
    console.log(`write-guard walk: ${attacks.length} linked folders over ${walks.length} commands (${walks.map((w) => `${w.command} ${w.folders.length}`).join(', ')})`);
    const outsideBefore = attacks.map((a) => snapshot(a.outside, []));
    const cases = join(work, 'cases.json');
    const results = join(work, 'results.json');
    writeFileSync(cases, JSON.stringify(attacks.map((a) => ({ argv: a.walk.args(a.root) }))));
    const batch = await execa(process.execPath, ['--import', 'tsx', BATCH, cases, results], { reject: false, cwd: PROJECT_ROOT, env: { FORCE_COLOR: '0' }, timeout: 1_200_000 });
    expect(batch.exitCode, String(batch.stderr).slice(-3000)).toBe(0);
    const outcomes = JSON.parse(readFileSync(results, 'utf8')) as Array<{ exitCode: number; stderr: string }>;
    expect(outcomes).toHaveLength(attacks.length);
    if (process.env.SBEVAL_WRITE_GUARD_DEBUG) for (const [i, a] of attacks.entries()) console.log(a.walk.command, a.folder, outcomes[i]!.exitCode, outcomes[i]!.stderr.split('\n').filter((l) => l.startsWith('sbeval: [')).join(' | '));
    attacks.forEach((attack, i) => {
      const what = `${attack.walk.command} with ${attack.folder} linked`;
      const { exitCode, stderr } = outcomes[i]!;
      const lines = stderr.split('\n').filter((l) => l.startsWith('sbeval: ['));
      expect(exitCode, `${what}: ${stderr}`).toBe(2);
      expect(lines, `${what}: ${stderr}`).toHaveLength(1);
      expect(lines[0], what).toContain(attack.link);
      expect(lines[0], what).toMatch(/symbolic link/);
      expect(snapshot(attack.outside, []), `${what}: written outside the root`).toEqual(outsideBefore[i]);
    });
  }, 1_500_000);

  it('survey serve (no lock, a server for days): refused at start or on the first answer, nothing written outside', async () => {
    for (const folder of surveyWalk.folders) {
      const { root, link, outside } = linked(surveyWalk.template, folder, 'survey-serve-attack');
      const before = snapshot(outside, []);
      const child = execa(process.execPath, ['--import', 'tsx', MAIN, ...surveyWalk.args(root)], { reject: false, cwd: PROJECT_ROOT, env: { FORCE_COLOR: '0' } });
      try {
        const started = await serveUrl(child).catch(() => undefined);
        if (started) {
          const metric = surveyMetric(root);
          expect(await rate(started, metric.id, metric.value), `${folder}: the answer was saved`).toBe(500);
        } else {
          const result = await child;
          expect(result.exitCode, `${folder}: ${String(result.stderr)}`).toBe(2);
          expect(String(result.stderr), folder).toContain(link);
        }
      } finally {
        child.kill('SIGTERM');
        await child;
      }
      expect(snapshot(outside, []), `${folder}: written outside the root`).toEqual(before);
    }
  }, 300_000);
});
