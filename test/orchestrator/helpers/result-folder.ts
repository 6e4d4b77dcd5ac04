import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { TINY_VIT, writeRandomVit } from '../../../scripts/make-random-vit.js';
import { copyExampleSources } from '../../helpers/cli.js';
import { runShared } from '../../helpers/run-cache.js';
import { sbevalInProcess } from './in-process-cli.js';

/**
 * Shared set-up of the result-folder suites: a tiny random ViT (its numbers mean nothing; the
 * files only have to agree), an empty model cache (so `sbeval run` without `--model` really has no model),
 * and readers of `result/`.
 */
export interface Workspace {
  dir: string;
  model: string;
  restore(): void;
}

/** The tiny random ViT: every workspace's model has the same bytes (so the shared scored copy's similarity files hold). */
const VIT = TINY_VIT;

export function workspace(prefix: string): Workspace {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const model = writeRandomVit(join(dir, 'vit'), VIT).onnx;
  const saved = process.env.SBEVAL_CACHE;
  process.env.SBEVAL_CACHE = join(dir, 'empty-cache');
  mkdirSync(process.env.SBEVAL_CACHE);
  return {
    dir,
    model,
    restore() {
      if (saved === undefined) delete process.env.SBEVAL_CACHE;
      else process.env.SBEVAL_CACHE = saved;
    },
  };
}

/**
 * `<ws>/scored`: a copy of the example competition (T 3) after a plain `sbeval run` with the random ViT.
 * The run is made once per test run (test/helpers/run-cache.ts) and copied here: a full run of the
 * example is the costliest set-up of these suites, and copies of a scored folder are what they test.
 */
export async function scoredExample(ws: Workspace): Promise<string> {
  const shared = await runShared('scored-example', async (dir) => {
    const scored = join(dir, 'scored');
    copyExampleSources(scored);
    writeFileSync(join(scored, 'sbeval.config.yaml'), 'trials: 3\n');
    await ok(['run', scored, '--model', writeRandomVit(join(dir, 'vit'), VIT).onnx]);
  });
  return copyOf(join(shared, 'scored'), join(ws.dir, 'scored'));
}

/** A copy of a prepared folder (with its `.sbeval/` state and `result/`). */
export function copyOf(source: string, dest: string): string {
  cpSync(source, dest, { recursive: true });
  return dest;
}

/** `result/` as name → text (the manifest included). */
export function resultFiles(root: string, folder = 'result'): Map<string, string> {
  const dir = join(root, folder);
  if (!existsSync(dir)) return new Map();
  return new Map(
    readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && !e.name.startsWith('.'))
      .map((e) => [e.name, readFileSync(join(dir, e.name), 'utf8')] as const)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}

/** Rows of `result/trials.csv` without the header (no field of the example holds a comma). */
export function trialRows(root: string): string[][] {
  return readFileSync(join(root, 'result', 'trials.csv'), 'utf8')
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((l) => l.split(','));
}

/** `sbeval <args>` expected to succeed. */
export async function ok(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const result = await sbevalInProcess(args);
  expect(result.code, `sbeval ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result;
}

/** The files of `result/` that describe a ranking. */
/** The ranking's files on the example (T 3, 2025 rules): the official ones, the report, and the uncertainty beside them. */
export const RANKING_FILES = [
  'constants.json',
  'trial_scores.csv',
  'character_scores.csv',
  'prompt_scores_ranks.csv',
  'report.md',
  'report.html',
  'score_intervals.csv',
  'rank_probabilities.csv',
];

/** `sbeval run --json`'s summary: what the run redid, per stage (`N ok, M failed, K already done`). */
export interface RunCounts {
  simulated: number;
  stages: Record<string, { status: string; ok: number; skipped: number; detail: string }>;
}

export function runCounts(stdout: string): RunCounts {
  const summary = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string })
    .find((r) => r.type === 'summary') as unknown as {
    levels: { simulated: number };
    stages: Array<{ stage: string; status: string; detail: string }>;
  };
  const stages: RunCounts['stages'] = {};
  for (const s of summary.stages) {
    const counts = /(\d+) ok, \d+ failed, (\d+) already done/.exec(s.detail);
    stages[s.stage] = { status: s.status, ok: counts ? Number(counts[1]) : 0, skipped: counts ? Number(counts[2]) : 0, detail: s.detail };
  }
  return { simulated: summary.levels.simulated, stages };
}
