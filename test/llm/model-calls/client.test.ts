import { afterEach, describe, expect, it } from 'vitest';
import {
  CallError,
  type CallSettings,
  type ChatRequestSpec,
  chatOnce,
  describeModel,
  listModels,
  MODEL_APIS,
  type ModelApi,
  ModelEndpoint,
} from '../../../llm/model-calls/index.js';
import { FakeOllama, fakeAnswer, fakePromptTokens, fakeTokens } from '../../helpers/fake-ollama.js';
import { HostileHost, type HostileMode } from '../../helpers/hostile-host.js';

/**
 * The model-call client against hosts on real loopback sockets: a fake Ollama that speaks both its
 * native API and its OpenAI-compatible `/v1`, and hostile hosts (a byte every 2 s, endless streams,
 * redirects, servers that echo credentials). Each bound is shown for both APIs.
 */
/** The APIs the fake hosts speak (test/helpers/fake-ollama.ts, test/helpers/hostile-host.ts): every one of llm/model-calls/apis.ts. */
const APIS = ['ollama', 'openai'] as const satisfies readonly ModelApi[];

it('covers every model API the registry lists (a new one needs its fake host and its cases here)', () => {
  expect([...MODEL_APIS].sort()).toEqual([...APIS].sort());
});
const BOUNDS: CallSettings = { stream: true, stallTimeoutMs: 30_000, deadlineMs: 60_000, maxAnswerBytes: 1024 * 1024 };
const stoppers: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(stoppers.splice(0).map((stop) => stop()));
});

async function fake(options: ConstructorParameters<typeof FakeOllama>[0]): Promise<FakeOllama> {
  const server = await new FakeOllama(options).start();
  stoppers.push(() => server.stop());
  return server;
}

async function hostile(options: ConstructorParameters<typeof HostileHost>[0]): Promise<HostileHost> {
  const host = await new HostileHost(options).start();
  stoppers.push(() => host.stop());
  return host;
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]).toString('base64');

function request(images?: string[]): ChatRequestSpec {
  return {
    model: 'm1',
    messages: [
      { role: 'system', content: 'You judge levels.' },
      { role: 'user', content: 'Rate this level of the letter K.', ...(images ? { images } : {}) },
    ],
    options: { temperature: 0, top_p: 1, seed: 42, num_predict: 500 },
  };
}

async function failure(promise: Promise<unknown>): Promise<CallError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CallError);
  return error as CallError;
}

describe.each(APIS)('the %s API', (api) => {
  it('answers streamed and whole with the same text and token counts, and passes images through', async () => {
    const server = await fake({ models: ['m1'], tokensPerChunk: 3 });
    const endpoint = ModelEndpoint.parse(server.url, api, {});
    const spec = request([PNG]);
    const expected = fakeAnswer('m1', [spec.messages[0]!, { ...spec.messages[1]!, images: [PNG] }], 42);
    for (const stream of [true, false]) {
      const result = await chatOnce(endpoint, spec, { ...BOUNDS, stream });
      expect(result).toEqual({
        content: expected,
        promptTokens: fakePromptTokens(spec.messages),
        completionTokens: fakeTokens(expected).length,
        tokensReported: true,
        doneReason: 'stop',
      });
    }
    expect(server.calls.map((c) => [c.api, c.stream])).toEqual([
      [api, true],
      [api, false],
    ]);
    // The host saw the image bytes and the run's sampling, whichever API carried them.
    for (const call of server.calls) {
      expect(call.messages[1]!.images).toEqual([PNG]);
      expect(call.options).toMatchObject({ temperature: 0, top_p: 1, seed: 42, num_predict: 500 });
    }
  });

  it('lists models and describes one', async () => {
    const server = await fake({ models: ['m1', 'qwen2.5:32b'] });
    const endpoint = ModelEndpoint.parse(server.url, api, {});
    const names = (await listModels(endpoint, 10_000)).map((m) => m.name);
    expect(names).toEqual(['m1', 'qwen2.5:32b']);
    if (api === 'openai') return;
    // /api/show is not served by the fake: the description fails with the host's 404, named.
    await expect(describeModel(endpoint, 'm1', 10_000)).rejects.toThrow(/HTTP 404/);
  });

  it('ends a call to a host that drips bytes (each well within the stall timer) at the call deadline', async () => {
    const host = await hostile({ mode: 'drip', api, models: ['m1'], dripMs: 200 });
    const endpoint = ModelEndpoint.parse(host.url, api, {});
    const error = await failure(chatOnce(endpoint, request(), { ...BOUNDS, stallTimeoutMs: 5000, deadlineMs: 1500 }));
    expect(error.message).toBe(`no complete answer from ${host.url}${api === 'openai' ? '/v1' : ''} within the call deadline of 1.5 s (--call-timeout)`);
    expect(error.retry).toBe(true);
    expect(host.bytesSent).toBeGreaterThan(0);
  });

  it.each<HostileMode>(['endless', 'endless-line', ...(api === 'openai' ? (['endless-event'] as const) : [])])(
    'ends an %s stream at the answer cap, buffering no more than the cap allows',
    async (mode) => {
      const host = await hostile({ mode, api, models: ['m1'] });
      const endpoint = ModelEndpoint.parse(host.url, api, {});
      const before = process.memoryUsage().rss;
      const error = await failure(chatOnce(endpoint, request(), { ...BOUNDS, maxAnswerBytes: 256 * 1024 }));
      expect(error.message).toMatch(/exceeds \d+ (bytes|characters) \(--max-answer-bytes\)$/);
      expect(error.retry).toBe(true);
      // The host was cut off: it could write far more than the cap before the socket closed, but not endlessly.
      expect(host.bytesSent).toBeGreaterThan(256 * 1024);
      expect(host.bytesSent).toBeLessThan(256 * 1024 * 1024);
      expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
    },
  );

  it('refuses a redirect, naming both hosts, and never asks the host it points to', async () => {
    const good = await fake({ models: ['m1'] });
    const redirector = await hostile({ mode: 'redirect', api, models: ['m1'], redirectTo: good.url });
    const endpoint = ModelEndpoint.parse(redirector.url, api, {});
    const error = await failure(chatOnce(endpoint, request(), BOUNDS));
    const path = api === 'openai' ? '/v1' : '/api';
    expect(error.message).toBe(
      `redirect refused: ${endpoint.label} answered 307 Temporary Redirect to ${good.url}${path}${api === 'openai' ? '/chat/completions' : '/chat'}`,
    );
    expect(error.retry).toBe(true);
    expect(good.calls).toHaveLength(0);
  });

  it('sends userinfo as Basic auth and keeps it out of labels and messages, even when the host echoes it', async () => {
    const server = await fake({ models: ['m1'], fault: (call) => ({ kind: 'status', status: 500, message: `bad gateway for ${call.authorization}` }) });
    const url = server.url.replace('http://', 'http://organizer:pa%24%24word-9@');
    const endpoint = ModelEndpoint.parse(url, api, {});
    expect(endpoint.label).toBe(`${server.url.replace('http://', 'http://***@')}${api === 'openai' ? '/v1' : ''}`);
    expect(JSON.stringify({ endpoint })).not.toContain('word-9');
    const error = await failure(chatOnce(endpoint, request(), BOUNDS));
    const basic = Buffer.from('organizer:pa$$word-9').toString('base64');
    expect(server.calls[0]!.authorization).toBe(`Basic ${basic}`);
    expect(error.message).toBe('HTTP 500: bad gateway for Basic ***');
    expect(error.message).not.toContain('word-9');
  });

  it('reads the API key from the environment only, and scrubs it from a 401 that echoes it', async () => {
    const key = 'sk-test-0123456789abcdef';
    const server = await fake({ models: ['m1'], apiKey: key });
    const variable = api === 'openai' ? 'SBEVAL_OPENAI_API_KEY' : 'SBEVAL_OLLAMA_API_KEY';
    const good = await chatOnce(ModelEndpoint.parse(server.url, api, { [variable]: key }), request(), BOUNDS);
    expect(good.content.length).toBeGreaterThan(0);
    expect(server.calls[0]!.authorization).toBe(`Bearer ${key}`);
    if (api === 'openai') {
      // OPENAI_API_KEY, the OpenAI clients' own variable, is read too.
      await chatOnce(ModelEndpoint.parse(server.url, api, { OPENAI_API_KEY: key }), request(), BOUNDS);
    }
    const wrong = `${key}-revoked`;
    const error = await failure(chatOnce(ModelEndpoint.parse(server.url, api, { [variable]: wrong }), request(), BOUNDS));
    expect(error.message).toBe(
      `HTTP 401: Incorrect API key provided: Bearer *** (the key is read from $${variable}${api === 'openai' ? ' or $OPENAI_API_KEY' : ''})`,
    );
    expect(error.retry).toBe(false);
  });

  it('tells a missing model (404, not retried elsewhere as a host fault) from a host failure (5xx, retried)', async () => {
    const server = await fake({ models: ['m1'], fault: (call) => (call.index === 1 ? { kind: 'status', status: 503 } : undefined) });
    const endpoint = ModelEndpoint.parse(server.url, api, {});
    const missing = await failure(chatOnce(endpoint, { ...request(), model: 'nope' }, BOUNDS));
    expect(missing).toMatchObject({ modelMissing: true, retry: false, status: 404 });
    const down = await failure(chatOnce(endpoint, request(), BOUNDS));
    expect(down).toMatchObject({ modelMissing: false, retry: true, status: 503 });
  });
});

describe('OpenAI-style streams', () => {
  it('reports an answer without usage as having no token counts (so limits are not checked against 0)', async () => {
    const server = await fake({ models: ['m1'], openAiUsage: 'never' });
    const result = await chatOnce(ModelEndpoint.parse(server.url, 'openai', {}), request(), BOUNDS);
    expect(result).toMatchObject({ tokensReported: false, promptTokens: 0, completionTokens: 0, doneReason: 'stop' });
    expect(result.content).toBe(fakeAnswer('m1', request().messages, 42));
  });

  it('takes the base URL as OpenAI clients do: /v1 added to a bare host, kept when given', () => {
    expect(ModelEndpoint.parse('http://h:8000', 'openai', {}).url('/chat/completions')).toBe('http://h:8000/v1/chat/completions');
    expect(ModelEndpoint.parse('https://api.example.com/openai/v1/', 'openai', {}).url('/models')).toBe('https://api.example.com/openai/v1/models');
    expect(ModelEndpoint.parse('http://h:11434/', 'ollama', {}).url('/api/tags')).toBe('http://h:11434/api/tags');
    expect(() => ModelEndpoint.parse('ftp://user:secret@h', 'ollama', {})).toThrow('host ftp://***@h is not an http(s) URL');
  });
});
