import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ConversationSubmission, fillObject, loadSubmission } from '../../../llm/generate/submission.js';
import { spawnSbeval } from '../../helpers/cli.js';
import { FakeOllama, fakeAnswer } from '../../helpers/fake-ollama.js';
import { HostileHost, type HostileMode } from '../../helpers/hostile-host.js';
import { watchPeakRss } from '../../helpers/process-memory.js';

/**
 * Hostile model hosts, replayed through the real CLI as a child process: model hosts that drip a byte
 * every 2 s, stream without end, redirect, or echo the credentials they were sent. Each run must end
 * on its own within its bounds, with the reason recorded, in bounded memory (the child's peak RSS), and
 * no credential may reach the run log, the stage log, stdout or stderr.
 */
const made: string[] = [];
const stoppers: Array<() => Promise<void>> = [];

afterAll(async () => {
  await Promise.all(stoppers.map((stop) => stop()));
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function tempRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sbeval-hostile-'));
  made.push(dir);
  return dir;
}

function generateArgs(root: string, hosts: string, extra: string[] = []): string[] {
  return [
    'generate',
    root,
    '--submission',
    'builtin:zero-shot',
    '--team',
    'team1',
    '--models',
    'm1',
    '--hosts',
    hosts,
    '--chars',
    'A',
    '--trials',
    '1',
    ...extra,
  ];
}

function runLog(root: string): Array<Record<string, unknown>> {
  const dir = join(root, 'logs');
  return readdirSync(dir)
    .filter((n) => n.startsWith('generate_') && n.endsWith('.jsonl'))
    .flatMap((n) =>
      readFileSync(join(dir, n), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    );
}

/** Every file sbeval wrote under the root, as one text. */
function everythingWritten(root: string): string {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
    .join('\n');
}

function zeroShot(letter: string): string {
  const sub = loadSubmission('builtin:zero-shot') as ConversationSubmission;
  return fillObject(sub.turns[0]!, letter, sub.objectStyle);
}

async function hostile(mode: HostileMode, redirectTo?: string): Promise<HostileHost> {
  const host = await new HostileHost({ mode, api: 'ollama', models: ['m1'], ...(redirectTo ? { redirectTo } : {}) }).start();
  stoppers.push(() => host.stop());
  return host;
}

async function fake(options: ConstructorParameters<typeof FakeOllama>[0]): Promise<FakeOllama> {
  const server = await new FakeOllama(options).start();
  stoppers.push(() => server.stop());
  return server;
}

/** Runs the command, watching the child's peak RSS. */
async function run(args: string[], env: Record<string, string> = {}) {
  const child = spawnSbeval(args, { env });
  const memory = watchPeakRss(child.pid);
  const result = await child;
  memory.stop();
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr), peakMb: memory.peakMb() };
}

describe('generate against hostile model hosts (real CLI)', () => {
  it('ends each call to a host that drips 1 byte every 2 s at the deadline the time limit sets, and stops the run with the reason', async () => {
    const host = await hostile('drip');
    const root = tempRoot();
    // The drip never stalls (a byte every 2 s < --stall-timeout 5 s); only the 3 s call deadline ends it.
    const result = await run(generateArgs(root, host.url, ['--time-limit', '3', '--stall-timeout', '5']));
    expect(result.exitCode, result.stderr).toBe(1);
    const reason = `no complete answer from ${host.url} within the call deadline of 3 s (--call-timeout)`;
    const calls = runLog(root).filter((l) => l.type === 'call');
    // --host-failures 3 (default): three attempts, then the only host is set aside and the call gives up.
    expect(calls.map((c) => [c.ok, c.error])).toEqual([
      [false, reason],
      [false, reason],
      [false, reason],
    ]);
    const trial = runLog(root).find((l) => l.type === 'trial')!;
    expect(trial).toMatchObject({ outcome: 'failed', kind: 'unavailable', final: false });
    expect(String(trial.reason)).toBe(`Ollama unavailable: every host that has m1 is set aside after repeated failures (last error: ${reason})`);
    expect(result.stdout).toContain('stopped early: every Ollama host is set aside');
    expect(host.chatCalls()).toBe(3);
    expect(result.peakMb).toBeGreaterThan(0);
    expect(result.peakMb).toBeLessThan(300);
  }, 180_000);

  it('ends each call to an endless fast stream at the 1 MiB answer cap, in bounded memory', async () => {
    const host = await hostile('endless');
    const root = tempRoot();
    const result = await run(generateArgs(root, host.url, ['--time-limit', '5', '--stall-timeout', '5']));
    expect(result.exitCode, result.stderr).toBe(1);
    const calls = runLog(root).filter((l) => l.type === 'call');
    expect(calls).toHaveLength(3);
    for (const call of calls) expect(call.error).toBe(`the answer from ${host.url} exceeds 1048576 bytes (--max-answer-bytes)`);
    expect(runLog(root).find((l) => l.type === 'trial')).toMatchObject({ outcome: 'failed', kind: 'unavailable', final: false });
    expect(existsSync(join(root, 'team1', 'raw', 'A', 'team1_A_1.txt'))).toBe(false);
    // The host offered far more than the cap (it writes until the socket closes); the client kept none of it.
    expect(host.bytesSent).toBeGreaterThan(3 * 1024 * 1024);
    expect(result.peakMb).toBeGreaterThan(0);
    expect(result.peakMb).toBeLessThan(300);
  }, 180_000);

  it('refuses a 307 redirect, naming the host and where it pointed, and never asks the host it points to', async () => {
    const good = await fake({ models: ['m1'] });
    const redirector = await hostile('redirect', good.url);
    const root = tempRoot();
    const result = await run(generateArgs(root, redirector.url));
    expect(result.exitCode, result.stderr).toBe(1);
    const calls = runLog(root).filter((l) => l.type === 'call');
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls)
      expect(call).toMatchObject({
        ok: false,
        host: redirector.url,
        error: `redirect refused: ${redirector.url} answered 307 Temporary Redirect to ${good.url}/api/chat`,
      });
    expect(good.calls).toHaveLength(0);
    expect(existsSync(join(root, 'team1', 'raw', 'A', 'team1_A_1.txt'))).toBe(false);
  }, 180_000);

  it('uses credentials written in a --hosts URL without showing them anywhere, even when the host echoes them', async () => {
    let first = true;
    const server = await fake({
      models: ['m1'],
      fault: (call) => {
        if (!first) return undefined;
        first = false;
        return { kind: 'status', status: 502, message: `proxy refused ${call.authorization}` };
      },
    });
    const password = 'hunter2-Very-Secret';
    const url = server.url.replace('http://', `http://organizer:${password}@`);
    const root = tempRoot();
    const result = await run(generateArgs(root, url));
    expect(result.exitCode, result.stderr).toBe(0);
    const basic = Buffer.from(`organizer:${password}`).toString('base64');
    expect(server.calls.map((c) => c.authorization)).toEqual([`Basic ${basic}`, `Basic ${basic}`]);
    const label = server.url.replace('http://', 'http://***@');
    const log = runLog(root);
    expect(log.find((l) => l.type === 'start')).toMatchObject({ hosts: [label] });
    expect(log.filter((l) => l.type === 'call').map((c) => [c.host, c.ok, c.error])).toEqual([
      [label, false, 'HTTP 502: proxy refused Basic ***'],
      [label, true, undefined],
    ]);
    expect(readFileSync(join(root, 'team1', 'raw', 'A', 'team1_A_1.txt'), 'utf8')).toBe(fakeAnswer('m1', [{ role: 'user', content: zeroShot('A') }], 6280));
    for (const text of [result.stdout, result.stderr, everythingWritten(root)]) {
      expect(text).not.toContain(password);
      expect(text).not.toContain(basic);
      expect(text).not.toContain('organizer');
    }
  }, 180_000);
});

describe('generate --api openai (real CLI against a local OpenAI-style server)', () => {
  const KEY = 'sk-sbeval-test-5f3a9c1e7b2d4086';

  it.each([[[] as string[]], [['--no-stream']]])(
    'writes the same files as through Ollama, with the key from the environment and nowhere else (%j)',
    async (extra) => {
      let first = true;
      const server = await fake({
        models: ['m1'],
        apiKey: KEY,
        // The first answer is an error page that echoes the key it was sent.
        fault: (call) => {
          if (!first) return undefined;
          first = false;
          return { kind: 'status', status: 500, message: `upstream failed for ${call.authorization}` };
        },
      });
      const root = tempRoot();
      const result = await run([...generateArgs(root, server.url, ['--chars', 'A-C', '--trials', '2', ...extra]), '--api', 'openai'], {
        SBEVAL_OPENAI_API_KEY: KEY,
      });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toContain('m1: 6 written, 0 failed (limits), 0 unfinished');
      expect(server.calls.every((c) => c.api === 'openai' && c.stream === (extra.length === 0) && c.authorization === `Bearer ${KEY}`)).toBe(true);
      for (const [i, letter] of ['A', 'B', 'C'].entries()) {
        for (const trial of [1, 2]) {
          const seed = 6280 + 26 * (trial - 1) + i;
          expect(readFileSync(join(root, 'team1', 'raw', letter, `team1_${letter}_${trial}.txt`), 'utf8')).toBe(
            fakeAnswer('m1', [{ role: 'user', content: zeroShot(letter) }], seed),
          );
        }
      }
      const log = runLog(root);
      expect(log.find((l) => l.type === 'start')).toMatchObject({ api: 'openai', hosts: [`${server.url}/v1`] });
      expect(log.filter((l) => l.type === 'call' && l.ok === false).map((c) => c.error)).toEqual(['HTTP 500: upstream failed for Bearer ***']);
      // Token counts come from `usage` (in the stream's last chunk when streaming).
      const trials = log.filter((l) => l.type === 'trial');
      expect(trials).toHaveLength(6);
      for (const t of trials) expect(Number(t.completionTokens)).toBeGreaterThan(0);
      for (const text of [result.stdout, result.stderr, everythingWritten(root)]) expect(text).not.toContain(KEY);
    },
    180_000,
  );
});
