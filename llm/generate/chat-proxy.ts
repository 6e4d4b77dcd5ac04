import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpError } from '../../core/http-guard.js';
import { invariant } from '../../core/invariant.js';
import { CallError, type ChatMessage } from '../model-calls/index.js';
import { HostsUnavailable } from './host-pool.js';
import { LimitExceeded } from './limits.js';
import type { TrialSession } from './session.js';

/**
 * The chat endpoint external programs call. One loopback HTTP server per run; each trial gets its own
 * base URL `http://127.0.0.1:<port>/t/<token>` (the token names the trial, so calls are charged to
 * the right trial's limits). Under that base it speaks:
 * - the Ollama API: `POST /api/chat` (streamed NDJSON unless `"stream": false`, as Ollama), `GET /api/tags`;
 * - the OpenAI chat API that llms4pcg's `chat_with_llm` uses through the `openai` client:
 *   `POST /v1/chat/completions` (non-streamed, `n` = 1), `GET /v1/models`.
 * Every call goes through the trial's `TrialSession`: the run's model, seed, temperature and top_p
 * replace whatever the program sent, `num_predict`/`max_tokens` can only lower the token cap, and the
 * official limits apply (an exceeded limit answers HTTP 400 with the official message, and the trial
 * fails whatever the program does next). Host failures answer 503.
 */
const MAX_BODY = 32 * 1024 * 1024;

export class ChatProxy {
  private server: Server | undefined;
  private readonly sessions = new Map<string, TrialSession>();
  private port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error) => {
        if (!res.headersSent) send(res, 500, { error: error instanceof Error ? error.message : String(error) });
        else res.destroy();
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Registers a trial; returns its base URL and a function that closes it. */
  open(session: TrialSession): { url: string; close: () => void } {
    invariant(this.server, 'chat proxy not started');
    const token = randomUUID();
    this.sessions.set(token, session);
    return { url: `http://127.0.0.1:${this.port}/t/${token}`, close: () => this.sessions.delete(token) };
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const match = /^\/t\/([0-9a-f-]{36})(\/.*)$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
    const session = match ? this.sessions.get(match[1]!) : undefined;
    if (!match || !session) return send(res, 404, { error: 'unknown trial endpoint (it is valid only while its trial runs)' });
    const route = `${req.method} ${match[2]!.replace(/\/+$/, '')}`;
    const model = session.identity.model;
    switch (route) {
      case 'GET /api/tags':
        return send(res, 200, { models: [{ name: model, model, modified_at: new Date(0).toISOString(), size: 0, digest: '', details: {} }] });
      case 'GET /api/version':
        return send(res, 200, { version: '0.0.0-sbeval-proxy' });
      case 'GET /v1/models':
        return send(res, 200, { object: 'list', data: [{ id: model, object: 'model', created: 0, owned_by: 'sbeval' }] });
      case 'POST /api/chat':
        return this.ollamaChat(req, res, session);
      case 'POST /v1/chat/completions':
        return this.openAiChat(req, res, session);
      default:
        return send(res, 404, { error: `${route} is not served by the sbeval chat proxy` });
    }
  }

  private async ollamaChat(req: IncomingMessage, res: ServerResponse, session: TrialSession): Promise<void> {
    let body: Record<string, unknown>;
    let messages: ChatMessage[];
    try {
      body = await readJson(req);
      messages = parseMessages(body.messages);
    } catch (error) {
      return send(res, 400, { error: (error as Error).message });
    }
    const options = (body.options ?? {}) as Record<string, unknown>;
    const requested = typeof options.num_predict === 'number' && options.num_predict > 0 ? options.num_predict : undefined;
    const stream = body.stream !== false;
    try {
      const answer = await session.chat(messages, requested);
      const created_at = new Date().toISOString();
      const model = session.identity.model;
      const final = {
        model,
        created_at,
        message: { role: 'assistant', content: stream ? '' : answer.content },
        done: true,
        done_reason: answer.doneReason ?? 'stop',
        total_duration: 0,
        load_duration: 0,
        prompt_eval_count: answer.promptTokens,
        prompt_eval_duration: 0,
        eval_count: answer.completionTokens,
        eval_duration: 0,
      };
      if (!stream) return send(res, 200, final);
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write(`${JSON.stringify({ model, created_at, message: { role: 'assistant', content: answer.content }, done: false })}\n`);
      res.end(`${JSON.stringify(final)}\n`);
    } catch (error) {
      const [status, message] = failure(error);
      send(res, status, { error: message });
    }
  }

  private async openAiChat(req: IncomingMessage, res: ServerResponse, session: TrialSession): Promise<void> {
    let body: Record<string, unknown>;
    let messages: ChatMessage[];
    try {
      body = await readJson(req);
      messages = parseMessages(body.messages);
      if (body.n !== undefined && body.n !== null && body.n !== 1) throw new HttpError(400, 'n > 1 is not supported (Ollama returns one choice)');
      if (body.stream === true) throw new HttpError(400, 'streaming is not supported on /v1/chat/completions by the sbeval chat proxy; use "stream": false');
    } catch (error) {
      return send(res, 400, openAiError((error as Error).message, 'invalid_request_error'));
    }
    const maxTokens = typeof body.max_tokens === 'number' && body.max_tokens > 0 ? body.max_tokens : undefined;
    try {
      const answer = await session.chat(messages, maxTokens);
      send(res, 200, {
        id: `chatcmpl-${randomUUID()}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: session.identity.model,
        system_fingerprint: 'fp_ollama',
        choices: [{ index: 0, message: { role: 'assistant', content: answer.content }, finish_reason: answer.doneReason ?? 'stop' }],
        usage: { prompt_tokens: answer.promptTokens, completion_tokens: answer.completionTokens, total_tokens: answer.promptTokens + answer.completionTokens },
      });
    } catch (error) {
      const [status, message] = failure(error);
      send(res, status, openAiError(message, status === 400 ? 'invalid_request_error' : 'api_error'));
    }
  }
}

function failure(error: unknown): [number, string] {
  if (error instanceof LimitExceeded) return [400, error.message];
  if (error instanceof HostsUnavailable) return [503, error.message];
  if (error instanceof CallError) return [error.status && error.status < 500 ? error.status : 502, error.message];
  throw error;
}

function openAiError(message: string, type: string) {
  return { error: { message, type, param: null, code: null } };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new HttpError(400, 'request body too large');
    chunks.push(chunk);
  }
  let data: unknown;
  try {
    data = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'request body is not JSON');
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new HttpError(400, 'request body is not a JSON object');
  return data as Record<string, unknown>;
}

function parseMessages(value: unknown): ChatMessage[] {
  if (!Array.isArray(value) || value.length === 0) throw new HttpError(400, '"messages" must be a non-empty list');
  return value.map((m, i) => {
    const role = (m as { role?: unknown })?.role;
    const content = (m as { content?: unknown })?.content;
    if (role !== 'system' && role !== 'user' && role !== 'assistant') throw new HttpError(400, `messages[${i}].role must be system, user or assistant`);
    if (typeof content !== 'string') throw new HttpError(400, `messages[${i}].content must be a string`);
    return { role, content };
  });
}
