import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_POOL_SETTINGS } from '../../../llm/generate/host-pool.js';
import { type GenerateOptions, runGenerate } from '../../../llm/generate/stage.js';
import { loadSubmission } from '../../../llm/generate/submission.js';
import { type ProgressSink, SILENT_PROGRESS } from '../../../orchestrator/progress/types.js';
import { type FakeMessage, FakeOllama, type FakeOllamaOptions, fakeAnswer, fakePromptTokens, fakeTokens } from '../../helpers/fake-ollama.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const servers: FakeOllama[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function fake(options: Partial<FakeOllamaOptions> = {}): Promise<FakeOllama> {
  const server = await new FakeOllama({ models: ['m1', 'm2', 'm3'], ...options }).start();
  servers.push(server);
  return server;
}

function tempRoot(): string {
  return mkdtempSync(join(tmpdir(), 'sbeval-gen-'));
}

/** seed = 6280 + 26·(trial − 1) + letter index, written out here independently of the code. */
function seedOf(character: string, trial: number, master = 6280): number {
  return master + 26 * (trial - 1) + (character.charCodeAt(0) - 65);
}

function options(root: string, hosts: string[], overrides: Partial<GenerateOptions>): GenerateOptions {
  return {
    root,
    submission: loadSubmission('builtin:zero-shot'),
    team: 'team1',
    models: ['m1'],
    hosts,
    trials: 2,
    characters: ['A', 'B'],
    masterSeed: 6280,
    limits: { timeLimitS: 500, tokenLimit: 25_000 },
    sampling: { temperature: 1, topP: 1 },
    concurrency: 2,
    layout: 'auto',
    retryFailed: false,
    pool: {
      ...DEFAULT_POOL_SETTINGS,
      backoffMs: 5,
      backoffMaxMs: 50,
      cooldownMs: 150,
      call: { ...DEFAULT_POOL_SETTINGS.call, stream: true, stallTimeoutMs: 5000 },
    },
    ...overrides,
  };
}

function jsonl(root: string): Record<string, unknown>[] {
  const dir = join(root, 'logs');
  return readdirSync(dir)
    .filter((n) => n.endsWith('.jsonl'))
    .sort()
    .flatMap((n) =>
      readFileSync(join(dir, n), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    );
}

function stageLogText(root: string): string {
  const dir = join(root, 'logs');
  return readdirSync(dir)
    .filter((n) => n.startsWith('raw_log_'))
    .map((n) => readFileSync(join(dir, n), 'utf8'))
    .join('');
}

function recordingProgress() {
  const ticks: { stage: string; outcome: string; detail: string | undefined }[] = [];
  const sink: ProgressSink = { ...SILENT_PROGRESS, tick: (stage, outcome, _label, detail) => void ticks.push({ stage, outcome, detail }) };
  return { sink, ticks };
}

function writeScript(dir: string, turns: string[]): string {
  const file = join(dir, 'script.json');
  writeFileSync(file, JSON.stringify({ turns }));
  return file;
}

describe('generate stage against a fake Ollama', () => {
  it('sends the turns of a chat script in order with the whole history, the trial seed and the official sampling', async () => {
    const server = await fake();
    const root = tempRoot();
    const script = writeScript(root, ['Make <OBJECT> out of blocks.', 'Now only the code for <OBJECT>.']);
    const summary = await runGenerate(options(root, [server.url], { submission: loadSubmission(script) }), SILENT_PROGRESS);
    expect(summary.models[0]).toMatchObject({ succeeded: 4, failed: 0, unfinished: 0 });
    expect(server.calls).toHaveLength(8);
    for (const c of ['A', 'B']) {
      for (const trial of [1, 2]) {
        const seed = seedOf(c, trial);
        const calls = server.calls.filter((call) => call.options.seed === seed);
        expect(calls).toHaveLength(2);
        const u1: FakeMessage = { role: 'user', content: `Make ${c} out of blocks.` };
        const a1: FakeMessage = { role: 'assistant', content: fakeAnswer('m1', [u1], seed) };
        const u2: FakeMessage = { role: 'user', content: `Now only the code for ${c}.` };
        expect(calls[0]!.messages).toEqual([u1]);
        expect(calls[1]!.messages).toEqual([u1, a1, u2]);
        expect(calls.every((call) => call.options.temperature === 1 && call.options.top_p === 1 && call.model === 'm1')).toBe(true);
        expect(readFileSync(join(root, 'team1', 'raw', c, `team1_${c}_${trial}.txt`), 'utf8')).toBe(fakeAnswer('m1', [u1, a1, u2], seed));
      }
    }
    // Every call is in the JSON-lines log with its tokens, seed, host and duration.
    const calls = jsonl(root).filter((l) => l.type === 'call');
    expect(calls).toHaveLength(8);
    const first = calls.find((l) => l.character === 'A' && l.trial === 1 && l.turn === 1)!;
    expect(first).toMatchObject({
      model: 'm1',
      host: server.url,
      seed: 6280,
      ok: true,
      promptTokens: fakePromptTokens([{ role: 'user', content: 'Make A out of blocks.' }]),
    });
    expect(first.completionTokens).toBe(fakeTokens(fakeAnswer('m1', [{ role: 'user', content: 'Make A out of blocks.' }], 6280)).length);
    expect(typeof first.durationMs).toBe('number');
    expect(stageLogText(root)).toMatch(/Processing - team: team1 - character: A - trial: team1_A_1\.txt - Succeed/);
  });

  it('fails a trial over the time limit with the official message and no file, and does not retry it next run', async () => {
    const server = await fake({ delayMs: 120 });
    const root = tempRoot();
    const script = writeScript(root, ['first <OBJECT>', 'second']);
    const opts = options(root, [server.url], {
      submission: loadSubmission(script),
      characters: ['C'],
      trials: 1,
      limits: { timeLimitS: 0.1, tokenLimit: 25_000 },
    });
    const progress = recordingProgress();
    const summary = await runGenerate(opts, progress.sink);
    expect(summary.models[0]).toMatchObject({ succeeded: 0, failed: 1, unfinished: 0 });
    // The first call ran (the limit is checked before a call), the second was refused.
    expect(server.calls).toHaveLength(1);
    expect(existsSync(join(root, 'team1', 'raw', 'C', 'team1_C_1.txt'))).toBe(false);
    const trial = jsonl(root).find((l) => l.type === 'trial')!;
    expect(trial).toMatchObject({ outcome: 'failed', kind: 'time', final: true });
    const match = /^Time limit exceeded\. (\d+(?:\.\d+)?(?:e-?\d+)?) > 0\.1$/.exec(String(trial.reason));
    expect(match).not.toBeNull();
    expect(Number(match![1])).toBeGreaterThan(0.1);
    expect(stageLogText(root)).toContain(`trial: team1_C_1.txt - Failed - ${trial.reason}`);
    expect(progress.ticks).toEqual([{ stage: 'generate m1', outcome: 'failed', detail: trial.reason }]);

    // A second run does not spend calls on a trial that failed a limit with the same inputs …
    const again = await runGenerate(opts, SILENT_PROGRESS);
    expect(again.models[0]).toMatchObject({ previouslyFailed: 1, succeeded: 0, failed: 0 });
    expect(server.calls).toHaveLength(1);
    // … unless asked to, or the limits changed.
    await runGenerate({ ...opts, retryFailed: true }, SILENT_PROGRESS);
    expect(server.calls).toHaveLength(2);
    const relaxed = await runGenerate({ ...opts, limits: { timeLimitS: 0, tokenLimit: 25_000 } }, SILENT_PROGRESS);
    expect(relaxed.models[0]).toMatchObject({ succeeded: 1 });
    expect(existsSync(join(root, 'team1', 'raw', 'C', 'team1_C_1.txt'))).toBe(true);
  });

  it('reads the failures of a log another run left mid-line, and names a log line that is not JSON', async () => {
    const server = await fake({ delayMs: 120 });
    const root = tempRoot();
    const script = writeScript(root, ['first <OBJECT>', 'second']);
    const opts = options(root, [server.url], {
      submission: loadSubmission(script),
      characters: ['C'],
      trials: 1,
      limits: { timeLimitS: 0.1, tokenLimit: 25_000 },
    });
    expect((await runGenerate(opts, SILENT_PROGRESS)).models[0]).toMatchObject({ failed: 1 });
    expect(server.calls).toHaveLength(1);
    const [log] = readdirSync(join(root, 'logs')).filter((n) => n.startsWith('generate_') && n.endsWith('.jsonl'));
    // A complete line that is not JSON, then a line a killed writer left without its end.
    appendFileSync(join(root, 'logs', log!), '{"type":"trial", oops}\n{"type":"trial","outcome":"fai');
    const notes: string[] = [];
    const again = await runGenerate(opts, SILENT_PROGRESS, { note: (message) => void notes.push(message) });
    expect(again.models[0]).toMatchObject({ previouslyFailed: 1, succeeded: 0, failed: 0 });
    expect(server.calls).toHaveLength(1);
    const lineNumber =
      readFileSync(join(root, 'logs', log!), 'utf8')
        .split('\n')
        .indexOf('{"type":"trial", oops}') + 1;
    expect(notes).toContainEqual(expect.stringContaining(`1 line(s) of earlier generate logs are not JSON and were not read (logs/${log}:${lineNumber})`));
  });

  it('fails a trial over the token limit with the official total, capping num_predict without changing the outcome', async () => {
    const server = await fake();
    const root = tempRoot();
    const submission = loadSubmission('builtin:zero-shot');
    const prompt = (submission as { turns: string[] }).turns[0]!.replaceAll('<OBJECT>', 'D');
    const promptTokens = fakePromptTokens([{ role: 'user', content: prompt }]);
    const limit = promptTokens + 5;
    const summary = await runGenerate(
      options(root, [server.url], { characters: ['D'], trials: 1, limits: { timeLimitS: 500, tokenLimit: limit } }),
      SILENT_PROGRESS,
    );
    expect(summary.models[0]).toMatchObject({ failed: 1, succeeded: 0 });
    expect(server.calls[0]!.options.num_predict).toBe(limit + 1);
    const answerTokens = fakeTokens(fakeAnswer('m1', [{ role: 'user', content: prompt }], seedOf('D', 1))).length;
    expect(answerTokens).toBeGreaterThan(5);
    const total = promptTokens + Math.min(answerTokens, limit + 1);
    const trial = jsonl(root).find((l) => l.type === 'trial')!;
    expect(trial).toMatchObject({ kind: 'tokens', final: true, reason: `Prompt token limit exceeded. ${total} > ${limit}` });
    expect(existsSync(join(root, 'team1', 'raw', 'D', 'team1_D_1.txt'))).toBe(false);
  });

  it('retries dropped streams, 5xx answers, HTML error pages and silent hosts, and still writes the right files', async () => {
    const seen = new Map<number, number>();
    const plan = [{ kind: 'drop', afterChunks: 2 }, { kind: 'status', status: 503 }, { kind: 'html', status: 502 }, { kind: 'hang' }] as const;
    const server = await fake({
      tokensPerChunk: 2,
      // The first attempt of each trial fails, each trial in another way (seeds 6284, 6285, 6310, 6311 → 0, 1, 2, 3 mod 4).
      fault: (call) => {
        const seed = Number(call.options.seed);
        const n = (seen.get(seed) ?? 0) + 1;
        seen.set(seed, n);
        return n === 1 ? plan[seed % 4] : undefined;
      },
    });
    const root = tempRoot();
    // The silent host is caught by the stall timer; 5 s, so that a healthy stream on a loaded machine
    // (its chunks read after the timer's turn when the process was descheduled) is never taken for one.
    const opts = options(root, [server.url], {
      characters: ['E', 'F'],
      trials: 2,
      pool: { ...options(root, [], {}).pool, hostFailures: 100, call: { ...DEFAULT_POOL_SETTINGS.call, stream: true, stallTimeoutMs: 5000 } },
    });
    const summary = await runGenerate(opts, SILENT_PROGRESS);
    expect(summary.models[0]).toMatchObject({ succeeded: 4, unfinished: 0 });
    const sub = loadSubmission('builtin:zero-shot') as { turns: string[] };
    for (const c of ['E', 'F']) {
      for (const trial of [1, 2]) {
        const messages = [{ role: 'user', content: sub.turns[0]!.replaceAll('<OBJECT>', c) }];
        expect(readFileSync(join(root, 'team1', 'raw', c, `team1_${c}_${trial}.txt`), 'utf8')).toBe(fakeAnswer('m1', messages, seedOf(c, trial)));
      }
    }
    const outcomes = new Set(server.calls.map((c) => c.outcome));
    expect(outcomes).toEqual(new Set(['ok', 'dropped', 'status', 'hung']));
    const failedCalls = jsonl(root).filter((l) => l.type === 'call' && l.ok === false);
    expect(failedCalls.length).toBe(server.calls.filter((c) => c.outcome !== 'ok').length);
    expect(failedCalls.some((l) => /stall/.test(String(l.error)))).toBe(true);
    expect(failedCalls.some((l) => /Bad Gateway/.test(String(l.error)))).toBe(true);
  });

  it('works with whole (non-streamed) answers too', async () => {
    const server = await fake();
    const root = tempRoot();
    const summary = await runGenerate(
      options(root, [server.url], {
        characters: ['G'],
        trials: 1,
        pool: { ...options(root, [], {}).pool, call: { ...DEFAULT_POOL_SETTINGS.call, stream: false, stallTimeoutMs: 5000 } },
      }),
      SILENT_PROGRESS,
    );
    expect(summary.models[0]!.succeeded).toBe(1);
    expect(server.calls[0]!.stream).toBe(false);
  });

  it('shares the work between hosts, sets a failing host aside and takes it back after its cool-down', async () => {
    const good = await fake({ delayMs: 15 });
    let badCalls = 0;
    const flaky = await fake({ delayMs: 15, fault: () => (++badCalls <= 2 ? { kind: 'status', status: 500 } : undefined) });
    const root = tempRoot();
    const hostEvents: string[] = [];
    const opts = options(root, [good.url, flaky.url], {
      characters: ['H', 'I', 'J', 'K'],
      trials: 10,
      concurrency: 2,
      pool: { ...options(root, [], {}).pool, hostFailures: 2, cooldownMs: 100 },
    });
    const summary = await runGenerate(opts, SILENT_PROGRESS, { host: (e) => void hostEvents.push(`${e.type} ${e.host}`) });
    expect(summary.models[0]).toMatchObject({ succeeded: 40, unfinished: 0 });
    expect(hostEvents).toContain(`set-aside ${flaky.url}`);
    expect(hostEvents).toContain(`back ${flaky.url}`);
    // Both hosts answered a good share (least busy first), and the flaky one again after its return.
    expect(good.answered().length).toBeGreaterThan(5);
    expect(flaky.answered().length).toBeGreaterThan(5);
    expect(good.answered().length + flaky.answered().length).toBe(40);
    const hostLines = jsonl(root).filter((l) => l.type === 'host');
    expect(hostLines.map((l) => l.state)).toEqual(expect.arrayContaining(['set-aside', 'back']));
  });

  it('routes each model to the hosts that have it and refuses to start when a model is on no host', async () => {
    const a = await fake({ models: ['m1'] });
    const b = await fake({ models: ['m2'] });
    const root = tempRoot();
    const summary = await runGenerate(options(root, [a.url, b.url], { models: ['m1', 'm2'], characters: ['L'], trials: 3 }), SILENT_PROGRESS);
    expect(summary.models.map((m) => m.succeeded)).toEqual([3, 3]);
    expect(a.calls.every((c) => c.model === 'm1')).toBe(true);
    expect(b.calls.every((c) => c.model === 'm2')).toBe(true);
    expect(readdirSync(join(root, 'm2', 'team1', 'raw', 'L')).sort()).toEqual(['team1_L_1.txt', 'team1_L_2.txt', 'team1_L_3.txt']);
    await expect(runGenerate(options(tempRoot(), [a.url], { models: ['m1', 'm9'] }), SILENT_PROGRESS)).rejects.toMatchObject({
      message: 'no host has m9',
      hint: expect.stringContaining('ollama pull m9'),
    });
    const dead = await fake();
    const deadUrl = dead.url;
    await dead.stop();
    await expect(runGenerate(options(tempRoot(), [deadUrl], {}), SILENT_PROGRESS)).rejects.toThrow(/no Ollama host answered/);
  });

  it('stops, leaving the rest for the next run, when every host is set aside', async () => {
    const server = await fake({ fault: () => ({ kind: 'status', status: 500 }) });
    const root = tempRoot();
    const opts = options(root, [server.url], {
      characters: ['M', 'N'],
      trials: 5,
      concurrency: 1,
      pool: { ...options(root, [], {}).pool, hostFailures: 2, maxAttempts: 2, cooldownMs: 60_000 },
    });
    const summary = await runGenerate(opts, SILENT_PROGRESS);
    expect(summary.stopped).toMatch(/set aside/);
    expect(summary.models[0]).toMatchObject({ succeeded: 0, failed: 0, unfinished: 10 });
    const trials = jsonl(root).filter((l) => l.type === 'trial');
    expect(trials).toHaveLength(1);
    expect(trials[0]).toMatchObject({ kind: 'unavailable', final: false });
    expect(String(trials[0]!.reason)).toMatch(/^Ollama unavailable: .*500/);
  });
});

describe('model calls', () => {
  it('gives a call up at once when every host that has its model is set aside, instead of waiting out the cool-down', async () => {
    const server = await fake({ fault: () => ({ kind: 'status', status: 500 }) });
    const root = tempRoot();
    // Ten attempts allowed, a host set aside after three, for ten minutes: waiting would hold the run.
    const opts = options(root, [server.url], {
      characters: ['M'],
      trials: 1,
      concurrency: 1,
      pool: { ...options(root, [], {}).pool, hostFailures: 3, maxAttempts: 10, cooldownMs: 600_000 },
    });
    const summary = await runGenerate(opts, SILENT_PROGRESS);
    expect(server.calls).toHaveLength(3);
    expect(summary.stopped).toMatch(/set aside/);
    const trial = jsonl(root).find((l) => l.type === 'trial')!;
    expect(trial).toMatchObject({ kind: 'unavailable', final: false });
    expect(trial.reason).toBe('Ollama unavailable: every host that has m1 is set aside after repeated failures (last error: HTTP 500: fake failure 500)');
  });

  it('asks an OpenAI-style host for conversations and for programs through the proxy, with the same answers as Ollama', async () => {
    const server = await fake();
    const root = tempRoot();
    const spec = join(root, 'program.json');
    writeFileSync(spec, JSON.stringify({ program: { command: process.execPath, args: [join(FIXTURES, 'chat-program.mjs'), '{char}{trial}'] } }));
    const openai = { ...options(root, [], {}).pool, api: 'openai' as const };
    const chat = await runGenerate(options(root, [server.url], { characters: ['U'], trials: 1, pool: openai }), SILENT_PROGRESS);
    const program = await runGenerate(
      options(root, [server.url], { team: 'team2', submission: loadSubmission(spec), characters: ['U'], trials: 1, pool: openai }),
      SILENT_PROGRESS,
    );
    expect([chat.models[0]!.succeeded, program.models[0]!.succeeded]).toEqual([1, 1]);
    expect(server.calls.map((c) => c.api)).toEqual(['openai', 'openai', 'openai']);
    const sub = loadSubmission('builtin:zero-shot') as { turns: string[] };
    const seed = seedOf('U', 1);
    expect(readFileSync(join(root, 'team1', 'raw', 'U', 'team1_U_1.txt'), 'utf8')).toBe(
      fakeAnswer('m1', [{ role: 'user', content: sub.turns[0]!.replaceAll('<OBJECT>', 'U') }], seed),
    );
    const u1 = { role: 'user', content: 'Build the letter U (trial 1, argument U1).' };
    const u2 = { role: 'user', content: 'Only the code block, please.' };
    expect(readFileSync(join(root, 'team2', 'raw', 'U', 'team2_U_1.txt'), 'utf8')).toBe(
      fakeAnswer('m1', [u1, { role: 'assistant', content: fakeAnswer('m1', [u1], seed) }, u2], seed),
    );
  });

  it('refuses an answer without token counts when a token limit must be checked, and takes it when there is none', async () => {
    const server = await fake({ openAiUsage: 'never' });
    const root = tempRoot();
    const openai = { ...options(root, [], {}).pool, api: 'openai' as const };
    const limited = await runGenerate(options(root, [server.url], { characters: ['V'], trials: 1, pool: openai }), SILENT_PROGRESS);
    expect(limited.models[0]).toMatchObject({ succeeded: 0, unfinished: 1 });
    const trial = jsonl(root).find((l) => l.type === 'trial')!;
    expect(trial).toMatchObject({ kind: 'error', final: false });
    expect(String(trial.reason)).toMatch(/^OpenAI-style API error: http:\/\/127\.0\.0\.1:\d+\/v1 sent no token counts, so the token limit cannot be checked/);
    const free = await runGenerate(
      options(root, [server.url], { characters: ['V'], trials: 1, pool: openai, limits: { timeLimitS: 500, tokenLimit: 0 } }),
      SILENT_PROGRESS,
    );
    expect(free.models[0]).toMatchObject({ succeeded: 1, unfinished: 0 });
  });
});

describe('external programs', () => {
  it('runs a program per trial whose calls go through the proxy with the run model, seed and sampling', async () => {
    const server = await fake();
    const root = tempRoot();
    const spec = join(root, 'program.json');
    writeFileSync(spec, JSON.stringify({ program: { command: process.execPath, args: [join(FIXTURES, 'chat-program.mjs'), '{char}{trial}'] } }));
    const summary = await runGenerate(
      options(root, [server.url], { submission: loadSubmission(spec), models: ['m2'], characters: ['O', 'P'], trials: 1 }),
      SILENT_PROGRESS,
    );
    expect(summary.models[0]).toMatchObject({ succeeded: 2, unfinished: 0 });
    expect(server.calls).toHaveLength(4);
    for (const c of ['O', 'P']) {
      for (const trial of [1]) {
        const seed = seedOf(c, trial);
        const u1 = { role: 'user', content: `Build the letter ${c} (trial ${trial}, argument ${c}${trial}).` };
        const a1 = { role: 'assistant', content: fakeAnswer('m2', [u1], seed) };
        const u2 = { role: 'user', content: 'Only the code block, please.' };
        const calls = server.calls.filter((call) => call.options.seed === seed);
        expect(calls.map((call) => call.messages)).toEqual([[u1], [u1, a1, u2]]);
        // The program asked for temperature 0.2, seed 1 and model "whatever": the run's settings win.
        expect(calls.every((call) => call.model === 'm2' && call.options.temperature === 1 && call.options.top_p === 1)).toBe(true);
        expect(readFileSync(join(root, 'team1', 'raw', c, `team1_${c}_${trial}.txt`), 'utf8')).toBe(fakeAnswer('m2', [u1, a1, u2], seed));
      }
    }
    expect(jsonl(root).filter((l) => l.type === 'call')).toHaveLength(4);
  });

  it('serves the OpenAI-compatible endpoint that llms4pcg programs use (exec: an executable, one final CRLF removed)', async () => {
    const server = await fake();
    const root = tempRoot();
    const wrapper = join(root, 'run.sh');
    writeFileSync(wrapper, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(FIXTURES, 'openai-program.mjs'))}\n`, { mode: 0o755 });
    const summary = await runGenerate(
      options(root, [server.url], { submission: loadSubmission(`exec:${wrapper}`), characters: ['Q'], trials: 1 }),
      SILENT_PROGRESS,
    );
    expect(summary.models[0]).toMatchObject({ succeeded: 1, unfinished: 0 });
    const messages = [{ role: 'user', content: 'Letter Q' }];
    expect(server.calls[0]!.model).toBe('m1');
    expect(server.calls[0]!.options.seed).toBe(seedOf('Q', 1));
    expect(readFileSync(join(root, 'team1', 'raw', 'Q', 'team1_Q_1.txt'), 'utf8')).toBe(fakeAnswer('m1', messages, seedOf('Q', 1)));
  });

  it('fails a program trial that breaks a limit (final) or crashes (retried next run), writing no file', async () => {
    const server = await fake();
    const root = tempRoot();
    const spec = join(root, 'program.json');
    writeFileSync(spec, JSON.stringify({ program: [process.execPath, join(FIXTURES, 'chat-program.mjs'), 'x'] }));
    // The first answer alone is over 20 tokens, so the proxy refuses it with the official message.
    const limited = await runGenerate(
      options(root, [server.url], { submission: loadSubmission(spec), characters: ['R'], trials: 1, limits: { timeLimitS: 500, tokenLimit: 20 } }),
      SILENT_PROGRESS,
    );
    expect(limited.models[0]).toMatchObject({ failed: 1, succeeded: 0 });
    const trial = jsonl(root).find((l) => l.type === 'trial')!;
    expect(trial).toMatchObject({ kind: 'tokens', final: true });
    expect(String(trial.reason)).toMatch(/^Prompt token limit exceeded\. \d+ > 20$/);
    expect(existsSync(join(root, 'team1', 'raw', 'R', 'team1_R_1.txt'))).toBe(false);

    const crashSpec = join(root, 'crash.json');
    writeFileSync(
      crashSpec,
      JSON.stringify({ program: { command: process.execPath, args: [join(FIXTURES, 'chat-program.mjs'), 'x'], env: { PROGRAM_MODE: 'crash' } } }),
    );
    const root2 = tempRoot();
    const crashed = await runGenerate(options(root2, [server.url], { submission: loadSubmission(crashSpec), characters: ['S'], trials: 1 }), SILENT_PROGRESS);
    expect(crashed.models[0]).toMatchObject({ failed: 0, unfinished: 1 });
    expect(jsonl(root2).find((l) => l.type === 'trial')).toMatchObject({
      kind: 'program',
      final: false,
      reason: 'Program exited with code 3: something broke',
    });
    expect(existsSync(join(root2, 'team1', 'raw', 'S', 'team1_S_1.txt'))).toBe(false);
  });

  it('stops a program that keeps running past the time limit without calling, failing the trial on time', async () => {
    const server = await fake();
    const root = tempRoot();
    const spec = join(root, 'stall.json');
    writeFileSync(
      spec,
      JSON.stringify({ program: { command: process.execPath, args: [join(FIXTURES, 'chat-program.mjs'), 'x'], env: { PROGRAM_MODE: 'stall' } } }),
    );
    const summary = await runGenerate(
      options(root, [server.url], {
        submission: loadSubmission(spec),
        characters: ['T'],
        trials: 1,
        limits: { timeLimitS: 8, tokenLimit: 25_000 },
        programGraceS: 0.5,
      }),
      SILENT_PROGRESS,
    );
    expect(summary.models[0]).toMatchObject({ failed: 1, succeeded: 0, unfinished: 0 });
    // Its one call came in time (8 s leaves a loaded 2-core CI machine room to start node); then it went silent.
    expect(server.calls).toHaveLength(1);
    const trial = jsonl(root).find((l) => l.type === 'trial')!;
    expect(trial).toMatchObject({ kind: 'time', final: true });
    const elapsed = Number(/^Time limit exceeded\. (\S+) > 8$/.exec(String(trial.reason))?.[1]);
    expect(elapsed).toBeGreaterThan(8.5);
    expect(existsSync(join(root, 'team1', 'raw', 'T', 'team1_T_1.txt'))).toBe(false);
  });
});
