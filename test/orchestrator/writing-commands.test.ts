import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRandomVit } from '../../scripts/make-random-vit.js';
import { copyExampleSources } from '../helpers/cli.js';
import { FakeOllama } from '../helpers/fake-ollama.js';
import { SBEVAL_BIN, sbevalArgv } from '../helpers/sbeval-bin.js';
import { PROJECT_ROOT, snapshot } from './helpers/competition.js';

/**
 * Every command that writes into a competition root, against a hostile folder and a failing disk
 * (core/write-guard.ts).
 *
 * Case 4, ONE write guard (core/write-guard.ts): every command that writes into a root is
 * run once on a real competition with the recorder preloaded (test/helpers/write-recorder.mjs: it
 * listens on the guard's diagnostics channel), so the folders each command writes come from the
 * command's own writes, not from a list. Then, for every one of those folders, the same command runs
 * again from the same starting state with that folder replaced by a symbolic link to a folder outside
 * the root (holding what the folder held): it must stop with exit 2 and a line naming the link, and
 * write nothing outside the root.
 *
 * The recording runs are real child processes. The attacks — about a hundred command lines — run in
 * one child process through `runCli`, the function the `sbeval` binary calls with its argv
 * (test/helpers/cli-batch.mjs), sharing only the process start; `survey serve`, a server, runs as a
 * child per attack.
 *
 * Case 7, storage faults on every command: each command again from its starting state, with the disk
 * full (ENOSPC) or the folder turning read-only (EROFS) once half the bytes it writes are written
 * (the seam test/helpers/fs-faults.mjs, armed per command line in the batch process): one `[storage]`
 * line naming a path in the root, exit 2, and the same command run again finishes. Then the red
 * team's cases exactly: the judges' journal on a full disk, `survey build` into a read-only
 * `result/` (a real read-only mount), and `survey serve` sweeping the temporaries of killed servers.
 */
const RECORDER = fileURLToPath(new URL('../helpers/write-recorder.mjs', import.meta.url));
const BATCH = fileURLToPath(new URL('../helpers/cli-batch.mjs', import.meta.url));
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
  const child = execa(process.execPath, ['--import', RECORDER, ...sbevalArgv(args)], {
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

/** Bytes of the files under `after` that are new or changed since `before`. */
function bytesWritten(before: string, after: string): number {
  const old = snapshot(before, []);
  let bytes = 0;
  for (const [file, hash] of snapshot(after, [])) if (old.get(file) !== hash) bytes += statSync(join(after, file)).size;
  return bytes;
}

/** Runs command lines in one process (test/helpers/cli-batch.mjs); their exit codes and stderr. */
async function batch(
  cases: Array<{ argv: string[]; fault?: { code: string; under: string; afterBytes?: number } }>,
): Promise<Array<{ exitCode: number; stderr: string }>> {
  const casesFile = join(work, `cases-${(counter += 1)}.json`);
  const resultsFile = join(work, `results-${counter}.json`);
  writeFileSync(casesFile, JSON.stringify(cases));
  const run = await execa(process.execPath, [BATCH, casesFile, resultsFile], {
    reject: false,
    cwd: PROJECT_ROOT,
    env: { FORCE_COLOR: '0' },
    timeout: 1_200_000,
  });
  expect(run.exitCode, String(run.stderr).slice(-3000)).toBe(0);
  const outcomes = JSON.parse(readFileSync(resultsFile, 'utf8')) as Array<{ exitCode: number; stderr: string }>;
  expect(outcomes).toHaveLength(cases.length);
  return outcomes;
}

interface Walk {
  command: string;
  /** The competition before the command ran. */
  template: string;
  args: (root: string) => string[];
  /** Folders the command wrote under the root (from the recording). */
  folders: string[];
  /** Bytes of the files the command wrote or changed (from the recording's result). */
  bytes: number;
}

const walks: Walk[] = [];
let surveyWalk: Walk;
/** The one rater's invitation token (`survey invite` prints it once). */
let invitation: string;
/** States of the competition kept for the targeted cases: after `run`, after `survey build`. */
let ran: string;
let built: string;

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

/** A rater's answer through the survey server, with the invitation `survey invite` printed; the HTTP status. */
async function rate(url: string, metric: string, value: number): Promise<number> {
  const response = await fetch(new URL('api/me/item-1', url), {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'x-survey-token': invitation },
    body: JSON.stringify({ values: { [metric]: value } }),
  });
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
  fake = await new FakeOllama({
    models: [JUDGE, MODEL],
    answer: (call) => (call.model === JUDGE ? 'I cannot tell.' : "```python\ndrop_block('b11', 5)\n```"),
  }).start();
  vit = writeRandomVit(join(work, 'vit'), { layers: 1, hidden: 32, heads: 2, intermediate: 64, image: 32, patch: 16, labels: 26, seed: 5 }).onnx;
  const sources = join(work, 'sources');
  // Two teams (judge order compares teams), one letter, two trials each: every kind of folder, little work.
  copyExampleSources(sources, { teams: ['BlockSmith', 'GridThinkers'], letters: ['I'] });
  for (const team of ['BlockSmith', 'GridThinkers']) rmSync(join(sources, team, 'raw', 'I', `${team}_I_3.txt`));
  writeFileSync(join(sources, 'sbeval.config.yaml'), 'trials: 2\n');
  const hosts = ['--hosts', fake.url];

  const record = async (command: string, template: string, args: (root: string) => string[]): Promise<string> => {
    const root = copyOf(template, command.replace(' ', '-'));
    const run = recorded(args(root), root);
    await ok(run);
    walks.push({ command, template, args, folders: run.folders(), bytes: bytesWritten(template, root) });
    return root;
  };

  // Three independent chains, side by side; in each, every command starts from the state the previous one left.
  const prompt = join(work, 'prompt.txt');
  writeFileSync(prompt, 'Build the letter <OBJECT>.\n');
  const generation = async () => {
    await record('generate', tempDir('empty-'), (root) => [
      'generate',
      root,
      '--submission',
      prompt,
      '--team',
      'zero',
      '--models',
      MODEL,
      ...hosts,
      '--trials',
      '1',
      '--chars',
      'I',
    ]);
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
    ran = await record('run', sources, (root) => ['run', root, '--model', vit, '--traces', '--workers', '1']);
    // The fake judge's answers are all refused ('I cannot tell.'): every write a judge makes (journal,
    // refusal records, results) without depending on the parsers; --max-refusal-rate 1 keeps exit 0.
    const judging = [...hosts, '--retries', '0', '--max-refusal-rate', '1'];
    await record('judge rubric', ran, (root) => ['judge', 'rubric', root, '--judge', JUDGE, ...judging]);
    await record('judge order', ran, (root) => ['judge', 'order', root, '--judge', JUDGE, '--view', 'grid', ...judging]);
    built = await record('survey build', ran, (root) => ['survey', 'build', root]);
    // survey invite: its stdout holds the one rater's link, which the served copies accept.
    const invited = copyOf(built, 'survey-invite');
    const inviting = recorded(['survey', 'invite', invited, '1'], invited);
    const invite = await inviting.child;
    expect(invite.exitCode, String(invite.stderr)).toBe(0);
    invitation = /#invite=([A-Za-z0-9_-]+)/.exec(String(invite.stdout))![1]!;
    walks.push({
      command: 'survey invite',
      template: built,
      args: (root) => ['survey', 'invite', root, '1'],
      folders: inviting.folders(),
      bytes: bytesWritten(built, invited),
    });
    // survey serve: a rater's answer is its one write.
    const served = copyOf(invited, 'survey-serve');
    const serve = recorded(['survey', 'serve', served], served);
    const url = await serveUrl(serve.child);
    const metric = surveyMetric(served);
    expect(await rate(url, metric.id, metric.value)).toBe(200);
    serve.child.kill('SIGTERM');
    await serve.child;
    surveyWalk = {
      command: 'survey serve',
      template: invited,
      args: (root) => ['survey', 'serve', root],
      folders: serve.folders(),
      bytes: bytesWritten(invited, served),
    };
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
      [
        'convert',
        'diversity',
        'extract',
        'generate',
        'judge order',
        'judge rubric',
        'run',
        'score',
        'similarity',
        'simulate',
        'survey build',
        'survey collect',
        'survey invite',
        'survey serve',
      ].sort(),
    );
  });
});

describe('a symbolic link at any folder a command writes', () => {
  it('stops the command with exit 2 and a line naming the link, and nothing is written outside the root', async () => {
    const attacks = walks.flatMap((walk) =>
      walk.folders.map((folder) => ({ walk, folder, ...linked(walk.template, folder, `${walk.command.replace(' ', '-')}-attack`) })),
    );
    console.log(
      `write-guard walk: ${attacks.length} linked folders over ${walks.length} commands (${walks.map((w) => `${w.command} ${w.folders.length}`).join(', ')})`,
    );
    const outsideBefore = attacks.map((a) => snapshot(a.outside, []));
    const outcomes = await batch(attacks.map((a) => ({ argv: a.walk.args(a.root) })));
    if (process.env.SBEVAL_WRITE_GUARD_DEBUG)
      for (const [i, a] of attacks.entries())
        console.log(
          a.walk.command,
          a.folder,
          outcomes[i]!.exitCode,
          outcomes[i]!.stderr.split('\n')
            .filter((l) => l.startsWith('sbeval: ['))
            .join(' | '),
        );
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
    const attack = async (folder: string) => {
      const { root, link, outside } = linked(surveyWalk.template, folder, 'survey-serve-attack');
      const before = snapshot(outside, []);
      const child = execa(process.execPath, sbevalArgv(surveyWalk.args(root)), { reject: false, cwd: PROJECT_ROOT, env: { FORCE_COLOR: '0' } });
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
    };
    await Promise.all(surveyWalk.folders.map(attack));
  }, 300_000);
});

describe('a storage fault midway through every command', () => {
  const CAUSES: Record<string, string> = { ENOSPC: 'no space left on the device', EROFS: 'the file system is read-only' };

  it.each(['ENOSPC', 'EROFS'])(
    '%s once half its bytes are written: one [storage] line naming a path in the root, exit 2; run again, it finishes',
    async (code) => {
      const roots = walks.map((walk) => copyOf(walk.template, `${walk.command.replace(' ', '-')}-${code}`));
      // Every command with its fault, then every command again without (one process: each root is its own).
      const outcomes = await batch([
        ...walks.map((walk, i) => ({ argv: walk.args(roots[i]!), fault: { code, under: roots[i]!, afterBytes: Math.floor(walk.bytes / 2) } })),
        ...walks.map((walk, i) => ({ argv: walk.args(roots[i]!) })),
      ]);
      const faulted = outcomes.slice(0, walks.length);
      const again = outcomes.slice(walks.length);
      walks.forEach((walk, i) => {
        const root = roots[i]!;
        const { exitCode, stderr } = faulted[i]!;
        const what = `${walk.command} (${code} after ${Math.floor(walk.bytes / 2)} of ${walk.bytes} bytes)`;
        const lines = stderr.split('\n').filter((l) => l.startsWith('sbeval: ['));
        expect(exitCode, `${what}: ${stderr}`).toBe(2);
        expect(lines, `${what}: ${stderr}`).toHaveLength(1);
        const m = /^sbeval: \[storage\] cannot [a-z ]+? (\/\S+): (.+) \(([A-Z]+)\) \(.+\)$/.exec(lines[0]!);
        expect(m, `${what}: ${lines[0]}`).not.toBeNull();
        expect([m![2], m![3]], what).toEqual([CAUSES[code], code]);
        expect(relative(root, m![1]!).startsWith('..'), `${what}: ${m![1]} is outside the root`).toBe(false);
        expect(stderr, `${what}: no stack trace`).not.toMatch(/^\s+at /m);
        // The next run finishes, and trusts no half-written file. (A temporary whose removal the
        // read-only folder refused stays: hidden, ignored by listings, swept at the next start by
        // another process — root-guard.test.ts; the batch's second run shares the first one's pid.)
        expect(again[i]!.exitCode, `${walk.command} run again: ${again[i]!.stderr}`).toBe(0);
        for (const file of snapshot(root, []).keys()) {
          if (file.endsWith('.json')) expect(() => JSON.parse(readFileSync(join(root, file), 'utf8')), `${what}: ${file}`).not.toThrow();
        }
      });
    },
    900_000,
  );
});

describe("the red team's storage faults outside run", () => {
  it('judge rubric and judge order on a full disk where the journal is: one [storage] line naming it, no torn line; run again, they finish', async () => {
    const judges = walks.filter((w) => w.command.startsWith('judge '));
    const roots = judges.map((walk) => copyOf(walk.template, `${walk.command.replace(' ', '-')}-journal`));
    const calls = fake.calls.length;
    const faulted = await batch(
      judges.map((walk, i) => ({ argv: walk.args(roots[i]!), fault: { code: 'ENOSPC', under: join(roots[i]!, '.sbeval', 'judges') } })),
    );
    const asked = fake.calls.length - calls;
    judges.forEach((_walk, i) => {
      const lines = faulted[i]!.stderr.split('\n').filter((l) => l.startsWith('sbeval: ['));
      expect(faulted[i]!.exitCode, faulted[i]!.stderr).toBe(2);
      expect(lines).toHaveLength(1);
      const journal = new RegExp(
        `^sbeval: \\[storage\\] cannot write (${join(roots[i]!, '.sbeval', 'judges')}/[a-z-]+/[a-z-]+\\.jsonl): no space left on the device \\(ENOSPC\\) \\(free some space, then run the same command again: finished work is kept\\)$`,
      ).exec(lines[0]!)?.[1];
      expect(journal, lines[0]).toBeDefined();
      // The refused line was cut off again: the journal holds whole lines only.
      expect(existsSync(journal!) ? readFileSync(journal!, 'utf8') : '').toBe('');
    });
    // Each stopped at the first answer it could not keep, rather than asking on into a full disk.
    expect(asked).toBe(judges.length);
    const again = await batch(judges.map((walk, i) => ({ argv: walk.args(roots[i]!) })));
    for (const outcome of again) expect(outcome.exitCode, outcome.stderr).toBe(0);
  }, 300_000);

  it('survey build into a read-only result/ (a real read-only mount): one [storage] line naming the folder it must create', async () => {
    const root = copyOf(ran, 'survey-build-readonly');
    let result: { exitCode: number; stderr: string };
    const namespaces = (await execa('unshare', ['-rm', '--propagation', 'private', 'true'], { reject: false })).exitCode === 0;
    if (namespaces) {
      const out = tempDir('readonly-out-');
      const script = `set -e
        mount --bind "$ROOT/result" "$ROOT/result"
        mount -o remount,bind,ro "$ROOT/result"
        set +e
        ${process.execPath} ${SBEVAL_BIN} survey build "$ROOT" >"$OUT/out" 2>"$OUT/err"; echo $? >"$OUT/code"`;
      const ns = await execa('unshare', ['-rm', '--propagation', 'private', 'sh', '-c', script], {
        reject: false,
        cwd: PROJECT_ROOT,
        env: { ROOT: root, OUT: out, FORCE_COLOR: '0' },
      });
      expect(ns.exitCode, String(ns.stderr)).toBe(0);
      result = { exitCode: Number(readFileSync(join(out, 'code'), 'utf8')), stderr: readFileSync(join(out, 'err'), 'utf8') };
    } else {
      [result] = (await batch([{ argv: ['survey', 'build', root], fault: { code: 'EROFS', under: join(root, 'result') } }])) as [
        { exitCode: number; stderr: string },
      ];
    }
    console.log(
      `survey build into a read-only result/: ${namespaces ? 'a read-only bind mount in a private mount namespace' : 'the fault seam (namespaces refused here)'}`,
    );
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stderr.split('\n').filter((l) => l.startsWith('sbeval: ['))).toEqual([
      `sbeval: [storage] cannot create the folder ${join(root, 'result', 'survey')}: the file system is read-only (EROFS) (use a writable copy of the folder, then run the same command again)`,
    ]);
  }, 300_000);

  it('survey serve removes the temporaries of killed processes at start, like run (a live process keeps its own)', async () => {
    const root = copyOf(surveyWalk.template, 'survey-serve-sweep');
    const answers = join(root, 'result', 'survey', 'answers');
    mkdirSync(answers, { recursive: true });
    const dead = execa(process.execPath, ['-e', '0']);
    await dead;
    const stale = join(answers, `.rater-1.json.${dead.pid}.1.tmp`);
    const live = join(answers, `.rater-2.json.${process.pid}.1.tmp`);
    writeFileSync(stale, '{"half":');
    writeFileSync(live, '{"in progress":');
    const child = execa(process.execPath, sbevalArgv(['survey', 'serve', root]), { reject: false, cwd: PROJECT_ROOT, env: { FORCE_COLOR: '0' } });
    try {
      await serveUrl(child);
    } finally {
      child.kill('SIGTERM');
    }
    const result = await child;
    expect(String(result.stderr)).toContain('sbeval: removed 1 temporary file(s) left by an interrupted survey server');
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(live)).toBe(true);
  }, 120_000);
});
