import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOLDEN, runSbeval, spawnSbeval, until } from '../../helpers/cli.js';
import { type FakeCall, FakeOllama, fakeAnswer } from '../../helpers/fake-ollama.js';

/**
 * The real CLI as a child process against fake Ollama servers on loopback: the full 2025 shape
 * (3 models × 26 letters × 10 trials), and the same run killed with SIGKILL midway and resumed.
 */
const MODELS = ['qwen2.5:32b-instruct-fp16', 'gemma2:27b-instruct-fp16', 'phi3:14b-medium-128k-instruct-fp16'];
const FOLDERS = ['qwen2.5_32b-instruct-fp16', 'gemma2_27b-instruct-fp16', 'phi3_14b-medium-128k-instruct-fp16'];
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('');
const TEAM = 'zero_shot';
// The official zero-shot prompt as Python's text mode reads it (CRLF → LF).
const PROMPT = readFileSync(join(GOLDEN, 'prompts', 'zero_shot.2025.crlf.txt'), 'utf8').replace(/\r\n/g, '\n');

function expectedFile(model: string, letter: string, trial: number): string {
  const seed = 6280 + 26 * (trial - 1) + LETTERS.indexOf(letter);
  return fakeAnswer(model, [{ role: 'user', content: PROMPT.replaceAll('<OBJECT>', letter) }], seed);
}

function trialPath(root: string, modelIndex: number, letter: string, trial: number): string {
  return join(root, FOLDERS[modelIndex]!, TEAM, 'raw', letter, `${TEAM}_${letter}_${trial}.txt`);
}

function args(root: string, hosts: string[], extra: string[] = []): string[] {
  return [
    'generate',
    root,
    '--submission',
    'builtin:zero-shot',
    '--team',
    TEAM,
    '--models',
    MODELS.join(','),
    '--hosts',
    hosts.join(','),
    '--seed',
    '6280',
    ...extra,
  ];
}

/** (model, seed) names a trial uniquely: seeds differ across letters and trials. */
function trialKey(call: FakeCall): string {
  return `${call.model}#${String(call.options.seed)}`;
}

function listTree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

let hostA: FakeOllama;
let hostB: FakeOllama;
let fullRoot: string;

beforeAll(async () => {
  hostA = await new FakeOllama({ models: MODELS, delayMs: 1 }).start();
  hostB = await new FakeOllama({ models: MODELS, delayMs: 1 }).start();
});

const made: string[] = [];
function tempRoot(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

afterAll(async () => {
  await hostA.stop();
  await hostB.stop();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('sbeval generate (real CLI)', () => {
  it('explains itself in --help', async () => {
    const help = await runSbeval(['generate', '--help']);
    expect(help.exitCode).toBe(0);
    for (const flag of [
      '--submission',
      '--models',
      '--hosts',
      '--trials',
      '--chars',
      '--seed',
      '--time-limit',
      '--token-limit',
      '--temperature',
      '--concurrency',
      '--object-style',
    ]) {
      expect(help.stdout).toContain(flag);
    }
  }, 120_000);

  it('runs 3 models × 26 letters × 10 trials over two hosts with every file correct', async () => {
    fullRoot = tempRoot('sbeval-cli-full-');
    const result = await runSbeval(args(fullRoot, [hostA.url, hostB.url], ['--concurrency', '6']));
    expect(result.stderr).not.toMatch(/Error/);
    expect(result.exitCode).toBe(0);
    for (const model of MODELS) expect(result.stdout).toContain(`${model}: 260 written, 0 failed (limits), 0 unfinished`);
    // T from the default is every command's: nothing to tell.
    expect(result.stderr).not.toContain('holds for this command only');
    const calls = [...hostA.calls, ...hostB.calls];
    expect(calls).toHaveLength(780);
    expect(new Set(calls.map(trialKey)).size).toBe(780);
    expect(hostA.calls.length).toBeGreaterThan(100);
    expect(hostB.calls.length).toBeGreaterThan(100);
    for (const [m, model] of MODELS.entries()) {
      for (const letter of LETTERS) {
        for (let trial = 1; trial <= 10; trial += 1)
          expect(readFileSync(trialPath(fullRoot, m, letter, trial), 'utf8')).toBe(expectedFile(model, letter, trial));
      }
    }
    // Nothing else in the team folders; the logs are where the layout says.
    const files = listTree(fullRoot);
    expect(files.filter((f) => f.endsWith('.txt') && f.includes(`${TEAM}/raw/`))).toHaveLength(780);
    expect(readdirSync(join(fullRoot, 'logs')).filter((n) => /^generate_.*\.jsonl$/.test(n))).toHaveLength(1);
    for (const folder of FOLDERS) expect(readdirSync(join(fullRoot, folder, 'logs')).some((n) => /^raw_log_.*\.txt$/.test(n))).toBe(true);

    // Run again: everything is done, nothing is asked.
    const again = await runSbeval(args(fullRoot, [hostA.url]));
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('0 written, 0 failed (limits), 0 unfinished, 260 already done');
    expect(hostA.calls.length + hostB.calls.length).toBe(780);
    // T from --trials is this command's only: the user is told what run and score will use.
    const two = await runSbeval(args(tempRoot('sbeval-cli-trials-'), [hostA.url], ['--trials', '2', '--chars', 'A']));
    expect(two.exitCode, two.stderr).toBe(0);
    expect(two.stderr).toContain(
      'note: --trials 2 holds for this command only: `sbeval run` and `sbeval score` on this folder use T 10 (the default); set trials: 2 in sbeval.config.yaml, or pass --trials 2 to them',
    );
  }, 300_000);

  it('killed with SIGKILL midway and run again, finishes with identical files and no repeated calls for finished trials', async () => {
    const root = tempRoot('sbeval-cli-kill-');
    const host = await new FakeOllama({ models: MODELS, delayMs: 1 }).start();
    try {
      // The fake stops answering once a third of the trials are answered: the run is surely midway
      // when it is killed, however slow the machine.
      host.holdAfter(260);
      const child = spawnSbeval(args(root, [host.url], ['--concurrency', '4']));
      await until(() => host.holding(), '260 answers', child);
      child.kill('SIGKILL');
      const killed = await child;
      expect(killed.signal).toBe('SIGKILL');
      host.release();
      // Requests the killed run sent just before dying are its calls, not the resumed run's.
      await until(() => host.idle(), "the killed run's connections to close");
      const firstRun = host.calls.length;
      expect(firstRun).toBeLessThan(780);

      const done = new Set<string>();
      for (const [m, model] of MODELS.entries()) {
        for (const letter of LETTERS) {
          for (let trial = 1; trial <= 10; trial += 1) {
            const path = trialPath(root, m, letter, trial);
            if (!existsSync(path)) continue;
            // Whatever the kill interrupted, a file that exists is complete.
            expect(readFileSync(path, 'utf8')).toBe(expectedFile(model, letter, trial));
            done.add(`${model}#${6280 + 26 * (trial - 1) + LETTERS.indexOf(letter)}`);
          }
        }
      }
      expect(done.size).toBeGreaterThanOrEqual(200);
      expect(done.size).toBeLessThan(780);

      const resumed = await runSbeval(args(root, [host.url], ['--concurrency', '4']));
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      const secondRun = host.calls.slice(firstRun);
      // No finished trial was asked again; every unfinished one exactly once.
      expect(secondRun.filter((c) => done.has(trialKey(c)))).toEqual([]);
      expect(secondRun).toHaveLength(780 - done.size);
      expect(new Set(secondRun.map(trialKey)).size).toBe(secondRun.length);
      // Identical to the uninterrupted run, file for file, and no temporaries left behind.
      for (const m of MODELS.keys()) {
        for (const letter of LETTERS) {
          for (let trial = 1; trial <= 10; trial += 1) {
            expect(readFileSync(trialPath(root, m, letter, trial), 'utf8')).toBe(readFileSync(trialPath(fullRoot, m, letter, trial), 'utf8'));
          }
        }
      }
      const rawFiles = listTree(root).filter((f) => f.includes(`${TEAM}/raw/`));
      expect(rawFiles).toHaveLength(780);
    } finally {
      await host.stop();
    }
  }, 300_000);
});
