import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedModelPath } from '../../orchestrator/stages/model.js';
import { writeRandomVit } from '../../scripts/make-random-vit.js';
import { copyExampleSources } from '../helpers/cli.js';
import { FakeOllama } from '../helpers/fake-ollama.js';
import { generatedCompetition, snapshot } from './helpers/competition.js';
import { sbevalInProcess } from './helpers/in-process-cli.js';

/**
 * One truth per folder: the stage commands one by one (extract, convert, simulate, similarity,
 * diversity, score) and `sbeval run` on copies of the same folder write the same bytes in every file
 * both write, and the same official logs (`logs/<stage>_log_<time>.txt`, names equal but for the time,
 * lines equal but for their times) — on the example and on a generated 10-team folder, under the default settings (no config
 * file, no --model: the model `sbeval model fetch` cached) and under a config file. The commands go
 * through the real CLI code (`runCli`: argument parsing, the settings resolution, the stages), in this
 * process to keep the suite short. The model is a tiny random ViT (the real weights are not available
 * here); its numbers mean nothing, the files only have to agree.
 */
let work: string;
let model: string;
let savedCache: string | undefined;

const sbeval = sbevalInProcess;

const STAGES = ['extract', 'convert', 'simulate', 'similarity', 'diversity', 'score'];

/**
 * The one file that differs: the manifest records which command wrote the results and its settings.
 * Everything else — the trial accounting and the report that carries it included — is written by the
 * one results writer (orchestrator/result/step.ts), so `score` after the stages writes what `run` does.
 */
const RUN_ONLY = new Set(['result/manifest.json']);

/** Runs the stage commands on one copy and `run` on another; returns both snapshots and the settings lines. */
async function compare(source: string, extra: string[] = [], stages: readonly string[] = STAGES) {
  const staged = join(work, `${source.split('/').pop()}-${extra.length}-stages`);
  const whole = join(work, `${source.split('/').pop()}-${extra.length}-run`);
  cpSync(source, staged, { recursive: true });
  cpSync(source, whole, { recursive: true });
  const lines: string[] = [];
  for (const stage of stages) {
    const result = await sbeval([stage, staged, ...extra]);
    expect(result.code, `${stage}: ${result.stderr}`).toBe(0);
    lines.push(result.stderr.split('\n')[0]!);
  }
  const run = await sbeval(['run', whole, ...extra]);
  expect(run.code, run.stderr).toBe(0);
  lines.push(run.stderr.split('\n')[0]!);
  const a = snapshot(staged);
  const b = snapshot(whole);
  expectSameLogs(staged, whole);
  return { staged: a, run: b, lines, stagedRoot: staged, runRoot: whole };
}

/**
 * The official logs by kind (`<stage>_log_<time>.txt` → `<stage>`), each kind's lines without their times,
 * sorted (engines finish levels in any order); `run_<time>.jsonl` is run's own.
 */
function officialLogs(root: string): Map<string, string[]> {
  const logs = new Map<string, string[]>();
  for (const file of readdirSync(join(root, 'logs')).sort()) {
    const kind = /^(.+)_log_.+\.txt$/.exec(file)?.[1];
    if (kind === undefined) continue;
    const lines = readFileSync(join(root, 'logs', file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.replace(/^\[[^\]]+\] /, ''));
    logs.set(kind, [...(logs.get(kind) ?? []), ...lines]);
  }
  for (const lines of logs.values()) lines.sort();
  return logs;
}

/** run writes every official log its stage commands write, with the same lines, the stability log included. */
function expectSameLogs(stagedRoot: string, runRoot: string): void {
  const staged = officialLogs(stagedRoot);
  const run = officialLogs(runRoot);
  expect([...run.keys()].sort()).toEqual([...staged.keys()].sort());
  for (const [kind, lines] of staged) expect(run.get(kind), `logs/${kind}_log_*.txt`).toEqual(lines);
  expect(staged.get('stability')?.length ?? 0).toBeGreaterThan(0);
}

/** A settings line's parts by name (`rules`, `T`, `characters`, `model` …), split at the commas between them. */
function settingParts(line: string): { command: string; parts: Map<string, string> } {
  const [, command, rest] = /^sbeval ([a-z ]+?): (.*)$/.exec(line) ?? [];
  expect(command, line).toBeDefined();
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const c of rest!) {
    depth += c === '(' ? 1 : c === ')' ? -1 : 0;
    if (c === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else current += c;
  }
  parts.push(current.trim());
  // The two copies (…-stages, …-run) hold the same files: a path into either reads the same.
  return { command: command!, parts: new Map(parts.map((p) => [p.replace(/^\d+ /, '').split(' ')[0]!, p.replace(/-(stages|run)\//g, '-copy/')])) };
}

/**
 * One truth: every setting two commands both print reads the same in both lines (each names only what
 * it uses), and only the commands that classify images (similarity, run) name the similarity model.
 */
function expectSameSettings(lines: readonly string[]): void {
  const parsed = lines.map(settingParts);
  for (const a of parsed)
    for (const b of parsed)
      for (const [key, value] of a.parts) if (b.parts.has(key)) expect(b.parts.get(key), `${a.command} vs ${b.command}: ${key}`).toBe(value);
  expect(parsed.filter((p) => p.parts.has('model')).map((p) => p.command)).toEqual(['similarity', 'run']);
  expect(parsed.every((p) => p.parts.has('characters'))).toBe(true);
}

function expectSameFiles(
  staged: Map<string, string>,
  run: Map<string, string>,
  stages: readonly string[] = ['intermediate', 'levels', 'images', 'stability', 'similarity', 'diversity'],
): void {
  const common = [...staged.keys()].filter((f) => !RUN_ONLY.has(f));
  expect([...run.keys()].filter((f) => !RUN_ONLY.has(f))).toEqual(common);
  for (const file of common) expect(run.get(file), file).toBe(staged.get(file));
  // Every stage wrote something, and the official result files are among the compared ones.
  for (const file of ['result/constants.json', 'result/prompt_scores_ranks.csv', 'result/trials.csv', 'result/failures.md', 'result/report.md'])
    expect(common).toContain(file);
  for (const stage of stages)
    expect(
      common.some((f) => f.split('/')[1] === stage),
      stage,
    ).toBe(true);
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sbeval-one-truth-'));
  // The model `sbeval model fetch` would have cached, in a cache of this test's own.
  savedCache = process.env.SBEVAL_CACHE;
  process.env.SBEVAL_CACHE = join(work, 'cache');
  const vit = writeRandomVit(join(work, 'vit'), { layers: 1, hidden: 32, heads: 2, intermediate: 64, image: 32, patch: 16, labels: 26, seed: 3 });
  model = cachedModelPath();
  mkdirSync(join(model, '..'), { recursive: true });
  cpSync(vit.onnx, model);
});
afterAll(() => {
  if (savedCache === undefined) delete process.env.SBEVAL_CACHE;
  else process.env.SBEVAL_CACHE = savedCache;
  rmSync(work, { recursive: true, force: true });
});

let exampleCompared: ReturnType<typeof compare> | undefined;

/**
 * The example compared under the default settings: made by the first test that needs it (the first
 * test of the file, or the levels-only test when it runs alone), shared by both.
 */
function compareExample(): ReturnType<typeof compare> {
  exampleCompared ??= (() => {
    const source = join(work, 'example');
    copyExampleSources(source);
    return compare(source);
  })();
  return exampleCompared;
}

describe('stage commands one by one and sbeval run write the same files', () => {
  it('on the example, with the default settings (2025 rules, T 10, the cached model)', async () => {
    const { staged, run, lines } = await compareExample();
    expectSameFiles(staged, run);
    // Every command printed the settings it uses alike, the cached model named where it is used.
    expectSameSettings(lines);
    expect(lines.at(-1)).toMatch(
      /^sbeval run: rules 2025 \(default\), T 10 \(default\), characters I,L,O,T,U \(every letter folder\), model .*model\.onnx \(cached by sbeval model fetch\)$/,
    );
    // 2025 similarity files carry the CLS embedding; the CSVs end lines as this system does.
    expect(readFileSync(join(work, 'example-0-run', 'BlockSmith', 'similarity', 'I.json'), 'utf8')).toContain('cls_embedding');
  }, 300_000);

  it('on the example, under a config file (2024 rules, T 3, three letters, CRLF, a model in the root)', async () => {
    const source = join(work, 'example-config');
    copyExampleSources(source);
    cpSync(model, join(source, 'vit.onnx'));
    writeFileSync(join(source, 'sbeval.config.yaml'), 'rules: 2024\ntrials: 3\ncharacters: [I, L, T]\neol: crlf\nmodel: vit.onnx\n');
    const { staged, run, lines, runRoot } = await compare(source);
    expectSameFiles(staged, run);
    expectSameSettings(lines);
    expect(lines.at(-1)).toMatch(
      /rules 2024 \(sbeval\.config\.yaml\), T 3 \(sbeval\.config\.yaml\), characters I,L,T \(sbeval\.config\.yaml\), model .*vit\.onnx \(sbeval\.config\.yaml\)$/,
    );
    expect(readdirSync(join(runRoot, 'BlockSmith', 'stability')).sort()).toEqual(['I.json', 'L.json', 'T.json']);
    expect(readFileSync(join(runRoot, 'result', 'character_scores.csv'), 'utf8')).toMatch(/\r\n/);
    expect(readFileSync(join(runRoot, 'BlockSmith', 'similarity', 'I.json'), 'utf8')).not.toContain('cls_embedding');
  }, 300_000);

  it('on a generated 10-team folder, with the default settings', async () => {
    const source = generatedCompetition(join(work, 'ten'), { teams: 10, letters: ['I', 'L'], trials: 2, seed: 21 });
    const { staged, run } = await compare(source);
    expectSameFiles(staged, run);
    expect(
      readFileSync(join(work, 'ten-0-run', 'result', 'prompt_scores_ranks.csv'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(11);
  }, 300_000);

  it('on a generated 10-team folder, under a config file (T 2, two stability trials, CRLF) and a --rules flag over it', async () => {
    const source = generatedCompetition(join(work, 'ten-config'), { teams: 10, letters: ['A', 'U'], trials: 2, seed: 22 });
    writeFileSync(join(source, 'sbeval.config.yaml'), 'rules: 2024\ntrials: 2\nsimulationTrials: 2\neol: crlf\n');
    // Flags win over the file, for every command alike.
    const { staged, run, lines, runRoot } = await compare(source, ['--rules', '2025']);
    expectSameFiles(staged, run);
    expectSameSettings(lines);
    expect(lines.at(-1)).toMatch(/rules 2025 \(flag\), T 2 \(sbeval\.config\.yaml\)/);
    expect(existsSync(join(runRoot, 'team00', 'similarity', 'A.json'))).toBe(true);
  }, 300_000);
});

describe('from the submissions: sbeval generate and the stage commands, or sbeval run', () => {
  it('write the same responses and the same files (a fake Ollama that answers by seed)', async () => {
    const server = await new FakeOllama({ models: ['m1'] }).start();
    try {
      const source = join(work, 'submissions');
      mkdirSync(source);
      writeFileSync(
        join(source, 'sbeval.config.yaml'),
        `rules: 2024\ncharacters: [I, L]\ntrials: 2\nmodels: [m1]\nhosts: ["${server.url}"]\nsubmissions:\n  - team: zero_shot\n    file: "builtin:zero-shot"\n`,
      );
      const { staged, run, lines } = await compare(source, [], ['generate', ...STAGES]);
      expectSameFiles(staged, run, ['raw', 'intermediate', 'levels', 'stability', 'similarity', 'diversity']);
      expect([...staged.keys()].filter((f) => f.startsWith('zero_shot/raw/'))).toHaveLength(4);
      // generate prints the settings it shares with the stages and run alike.
      expectSameSettings(lines);
      expect(lines[0]).toMatch(/^sbeval generate: T 2 \(sbeval\.config\.yaml\), characters I,L \(sbeval\.config\.yaml\), models m1 \(sbeval\.config\.yaml\)$/);
      // Each response was asked once per copy: generate's and run's.
      expect(server.calls.filter((c) => c.outcome === 'ok')).toHaveLength(8);
    } finally {
      await server.stop();
    }
  }, 300_000);
});

describe('sbeval run starts from whatever stage the folder has', () => {
  it('simulates a folder that holds only levels/, like sbeval simulate, and counts no trial as never generated', async () => {
    const { stagedRoot: staged } = await compareExample();
    const levelsOnly = join(work, 'levels-only');
    for (const team of ['BlockSmith', 'GridThinkers']) cpSync(join(staged, team, 'levels'), join(levelsOnly, team, 'levels'), { recursive: true });
    writeFileSync(join(levelsOnly, 'sbeval.config.yaml'), 'trials: 3\n');
    const result = await sbeval(['run', levelsOnly]);
    expect(result.code, result.stderr).toBe(0);
    const after = snapshot(levelsOnly);
    const before = snapshot(staged);
    for (const team of ['BlockSmith', 'GridThinkers']) {
      const files = [...after.keys()].filter((f) => f.startsWith(`${team}/stability/`) || f.startsWith(`${team}/images/`));
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) expect(after.get(file), file).toBe(before.get(file));
    }
    const rows = readFileSync(join(levelsOnly, 'result', 'trials.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    const levels = [...after.keys()].filter((f) => /\/levels\/.+\.xml$/.test(f)).length;
    expect(rows.filter((r) => r[4] === 'image')).toHaveLength(levels);
    // The trials without a level are the ones the example never turned into one, not "never generated" levels.
    expect(rows.filter((r) => r[4] === 'none')).toHaveLength(rows.length - levels);
  }, 300_000);
});
