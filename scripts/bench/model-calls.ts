import { CallError, type CallSettings, type ChatRequestSpec, chatOnce, type ModelApi, ModelEndpoint } from '../../llm/model-calls/index.js';
import { FakeOllama } from '../../test/helpers/fake-ollama.js';
import { HostileHost, type HostileMode } from '../../test/helpers/hostile-host.js';
import type { BenchSuite } from './suite.js';

/**
 * The model-call client (llm/model-calls/) on real loopback sockets: what one call costs
 * against an instant fake host, per API and answer mode; and what a hostile host costs before the
 * bounds end the call — time to the end, bytes the host managed to send, and the growth of this
 * process's RSS (the client holds at most the answer cap plus one line).
 */
const REQUEST: ChatRequestSpec = {
  model: 'm',
  messages: [{ role: 'user', content: 'Build the letter A.' }],
  options: { temperature: 1, top_p: 1, seed: 6280 },
};
const BOUNDS: CallSettings = { stream: true, stallTimeoutMs: 5000, deadlineMs: 5000, maxAnswerBytes: 1024 * 1024 };

/** The APIs the fake hosts speak (test/helpers/fake-ollama.ts, test/helpers/hostile-host.ts). */
const FAKED_APIS = ['ollama', 'openai'] as const satisfies readonly ModelApi[];
type FakedApi = (typeof FAKED_APIS)[number];

async function normal(api: FakedApi, stream: boolean, calls: number) {
  const server = await new FakeOllama({ models: ['m'] }).start();
  try {
    const endpoint = ModelEndpoint.parse(server.url, api, {});
    const started = performance.now();
    for (let i = 0; i < calls; i += 1) await chatOnce(endpoint, { ...REQUEST, options: { ...REQUEST.options, seed: i } }, { ...BOUNDS, stream });
    const ms = performance.now() - started;
    return {
      case: `answer (${stream ? 'streamed' : 'whole'})`,
      api,
      calls,
      'ms/call': Number((ms / calls).toFixed(3)),
      ended: 'ok',
      'host sent MB': '',
      'rss growth MB': '',
    };
  } finally {
    await server.stop();
  }
}

async function hostile(api: FakedApi, mode: HostileMode) {
  const target = mode === 'redirect' ? await new FakeOllama({ models: ['m'] }).start() : undefined;
  const host = await new HostileHost({ mode, api, models: ['m'], ...(target ? { redirectTo: target.url } : {}) }).start();
  try {
    global.gc?.();
    const before = process.memoryUsage().rss;
    const started = performance.now();
    const reason = await chatOnce(ModelEndpoint.parse(host.url, api, {}), REQUEST, BOUNDS).then(
      () => 'answered',
      (error: unknown) => (error instanceof CallError ? error.message.replace(host.url, '<host>').replace(target?.url ?? '\0', '<other>') : String(error)),
    );
    const ms = performance.now() - started;
    const growth = (process.memoryUsage().rss - before) / 2 ** 20;
    return {
      case: mode,
      api,
      calls: 1,
      'ms/call': Math.round(ms),
      ended: reason,
      'host sent MB': Number((host.bytesSent / 2 ** 20).toFixed(2)),
      'rss growth MB': Number(growth.toFixed(1)),
    };
  } finally {
    await host.stop();
    await target?.stop();
  }
}

export const modelCallsSuite: BenchSuite = {
  name: 'model-calls',
  description: 'one model call per API against an instant fake host, and against hostile hosts until the bounds end it (deadline 5 s, answer cap 1 MiB)',
  async run() {
    const rows = [];
    for (const api of FAKED_APIS) {
      rows.push(await normal(api, true, 500));
      rows.push(await normal(api, false, 500));
      for (const mode of ['drip', 'endless', 'endless-line', 'redirect'] as const) rows.push(await hostile(api, mode));
    }
    return rows;
  },
};
