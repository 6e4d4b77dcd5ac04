import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_POOL_SETTINGS } from '../../llm/generate/host-pool.js';
import { runGenerate } from '../../llm/generate/stage.js';
import { loadSubmission, type Submission } from '../../llm/generate/submission.js';
import { SILENT_PROGRESS } from '../../orchestrator/progress/types.js';
import { FakeOllama } from '../../test/helpers/fake-ollama.js';
import type { BenchSuite } from './suite.js';

/**
 * The generate stage's own overhead, against instant fake Ollama servers on loopback (real HTTP,
 * streamed NDJSON): trials per second for the zero-shot prompt and the multi-turn script, streamed and
 * whole answers, one or two hosts, several concurrencies, and an external program (one process per
 * trial). Against real models the LLM dominates (seconds to minutes per call); these numbers show
 * what sbeval adds per trial.
 */
const PROGRAM = fileURLToPath(new URL('../../test/llm/generate/fixtures/chat-program.mjs', import.meta.url));

async function measure(label: string, submission: Submission, hosts: number, concurrency: number, stream: boolean, characters: string[], trials: number) {
  const servers = await Promise.all(Array.from({ length: hosts }, () => new FakeOllama({ models: ['m'] }).start()));
  const root = mkdtempSync(join(tmpdir(), 'sbeval-bench-gen-'));
  try {
    const started = performance.now();
    const summary = await runGenerate(
      {
        root,
        submission,
        team: 'bench',
        models: ['m'],
        hosts: servers.map((s) => s.url),
        trials,
        characters,
        masterSeed: 6280,
        limits: { timeLimitS: 500, tokenLimit: 25_000 },
        sampling: { temperature: 1, topP: 1 },
        concurrency,
        layout: 'auto',
        retryFailed: false,
        pool: { ...DEFAULT_POOL_SETTINGS, call: { ...DEFAULT_POOL_SETTINGS.call, stream, stallTimeoutMs: 60_000 } },
      },
      SILENT_PROGRESS,
    );
    const seconds = (performance.now() - started) / 1000;
    const done = summary.models[0]!.succeeded;
    const calls = servers.reduce((n, s) => n + s.calls.length, 0);
    return {
      case: label,
      hosts,
      concurrency,
      stream: stream ? 'yes' : 'no',
      trials: done,
      calls,
      seconds: Number(seconds.toFixed(2)),
      'trials/s': Number((done / seconds).toFixed(1)),
      'ms/trial': Number(((seconds * 1000) / done).toFixed(2)),
    };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(root, { recursive: true, force: true });
  }
}

export const generateSuite: BenchSuite = {
  name: 'generate',
  description: 'generate-stage overhead per trial against instant fake Ollama hosts (real HTTP on loopback)',
  async run() {
    const all = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('');
    const zeroShot = loadSubmission('builtin:zero-shot');
    const multi = loadSubmission('builtin:zero-shot-multi-turn');
    const rows = [];
    rows.push(await measure('zero-shot', zeroShot, 1, 1, true, all, 10));
    rows.push(await measure('zero-shot', zeroShot, 1, 4, true, all, 10));
    rows.push(await measure('zero-shot', zeroShot, 2, 8, true, all, 10));
    rows.push(await measure('zero-shot', zeroShot, 1, 4, false, all, 10));
    rows.push(await measure('multi-turn', multi, 1, 4, true, all, 10));
    const dir = mkdtempSync(join(tmpdir(), 'sbeval-bench-prog-'));
    const spec = join(dir, 'program.json');
    writeFileSync(spec, JSON.stringify({ program: [process.execPath, PROGRAM, 'x'] }));
    rows.push(await measure('program (node, 2 calls)', loadSubmission(spec), 1, 2, true, all.slice(0, 10), 1));
    rmSync(dir, { recursive: true, force: true });
    return rows;
  },
};
