import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { listenOnLoopback } from './loopback.js';

/**
 * A stand-in for an Ollama server (Ollama cannot run here) that speaks its real HTTP APIs on loopback:
 * the native one, `POST /api/chat` streamed (NDJSON, one line per few tokens, then a `done` line with
 * `prompt_eval_count`/`eval_count`) or whole (`"stream": false`), and `GET /api/tags`; and the
 * OpenAI-compatible one Ollama serves under `/v1`, `POST /v1/chat/completions` whole or streamed as
 * server-sent events (`data: {chunk}` … `data: [DONE]`, `usage` in a last chunk when
 * `stream_options.include_usage`), and `GET /v1/models`. With `apiKey` set, every request needs
 * `Authorization: Bearer <apiKey>` (a 401 otherwise, echoing what was sent). Answers are a
 * pure function of (model, messages, seed) — so tests can compute the expected file of every trial
 * independently — and honour `num_predict` (truncation, `done_reason: "length"`). Faults on demand:
 * slowness, HTTP errors, connections dropped mid-stream, hosts that never answer, answers held from a
 * chosen point until released (to kill a client midway whatever the load). Every request is
 * recorded.
 */
export interface FakeMessage {
  role: string;
  content: string;
  /** Base64 images of a vision request (Ollama's `images`), as sent. */
  images?: string[];
}

export interface FakeCall {
  index: number;
  /** Which API the call came through. */
  api: 'ollama' | 'openai';
  /** The Authorization header as received. */
  authorization: string | undefined;
  model: string;
  messages: FakeMessage[];
  options: Record<string, unknown>;
  stream: boolean;
  outcome: 'ok' | 'status' | 'dropped' | 'hung' | 'unknown-model';
  status: number;
}

export type Fault =
  | { kind: 'status'; status: number; message?: string }
  | { kind: 'drop'; afterChunks: number }
  | { kind: 'hang' }
  | { kind: 'html'; status: number };

export interface FakeOllamaOptions {
  models: string[];
  /** Milliseconds per answer (spread over its chunks); may depend on the request. */
  delayMs?: number | ((call: FakeCall) => number);
  /** Tokens per streamed line. */
  tokensPerChunk?: number;
  /** A fault for this request, or undefined to answer normally. */
  fault?: (call: FakeCall) => Fault | undefined;
  /** Called when an answer has been sent completely. */
  onAnswered?: (call: FakeCall) => void;
  /** The answer's text (default: `fakeAnswer`, a level generator); a judge double supplies its own. */
  answer?: (call: FakeCall) => string;
  /** Require this Bearer token on every request. */
  apiKey?: string;
  /** OpenAI streams: send `usage` only when asked (`stream_options.include_usage`, as OpenAI) or never (a server that cannot). */
  openAiUsage?: 'when-asked' | 'never';
}

/** The fake's tokenizer: each word with its leading white space is one token (a trailing run of white space is one more). */
export function fakeTokens(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}

/** The fake's prompt size: the tokens of every message plus 4 per message (role markers). */
export function fakePromptTokens(messages: readonly FakeMessage[]): number {
  return messages.reduce((sum, m) => sum + fakeTokens(m.content).length + 4, 0);
}

/** The fake model's answer: deterministic in (model, messages, seed), a short text with a code block of drop_block calls. */
export function fakeAnswer(model: string, messages: readonly FakeMessage[], seed: number | undefined): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([model, messages.map((m) => [m.role, m.content]), seed ?? null]))
    .digest();
  const count = 2 + (digest[0]! % 5);
  const types = ['b11', 'b13', 'b31'];
  const calls: string[] = [];
  for (let i = 0; i < count; i += 1) calls.push(`drop_block('${types[digest[1 + i]! % 3]}', ${1 + (digest[8 + i]! % 18)})`);
  const turn = messages.filter((m) => m.role === 'user').length;
  return `Answer ${digest.subarray(16, 20).toString('hex')} (turn ${turn}) from ${model}.\n\n\`\`\`python\n${calls.join('\n')}\n\`\`\`\n`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class FakeOllama {
  readonly calls: FakeCall[] = [];
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private handling = 0;
  private holdIn: number | undefined;
  private gate: { promise: Promise<void>; open: () => void } | undefined;
  url = '';
  options: FakeOllamaOptions;

  constructor(options: FakeOllamaOptions) {
    this.options = options;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.handling += 1;
      this.handle(req, res)
        .catch(() => res.destroy())
        .finally(() => {
          this.handling -= 1;
        });
    });
    this.url = await listenOnLoopback(this.server, this.sockets);
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.release();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /**
   * No client connected and no request being handled. After a client process is killed, a request it
   * sent just before dying may still be in the socket buffer and be recorded later: a test counting the
   * calls of the next run waits for this first.
   */
  idle(): boolean {
    return this.sockets.size === 0 && this.handling === 0;
  }

  /**
   * After `answers` more answers have been sent completely, later requests are recorded but not
   * answered until `release()`: a client can be stopped at a known point whatever the machine's load
   * (no race between the test's kill and the client finishing).
   */
  holdAfter(answers: number): void {
    this.holdIn = answers;
    if (answers <= 0) this.closeGate();
  }

  /** Answers are being held (see `holdAfter`). */
  holding(): boolean {
    return this.gate !== undefined;
  }

  /** Answers every held request and stops holding. */
  release(): void {
    this.holdIn = undefined;
    const gate = this.gate;
    this.gate = undefined;
    gate?.open();
  }

  private closeGate(): void {
    if (this.gate) return;
    let open!: () => void;
    const promise = new Promise<void>((resolve) => {
      open = resolve;
    });
    this.gate = { promise, open };
  }

  private sent(call: FakeCall): void {
    this.options.onAnswered?.(call);
    if (this.holdIn === undefined) return;
    this.holdIn -= 1;
    if (this.holdIn <= 0) this.closeGate();
  }

  /** Successful chat answers so far. */
  answered(): FakeCall[] {
    return this.calls.filter((c) => c.outcome === 'ok');
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const authorization = req.headers.authorization;
    if (this.options.apiKey !== undefined && authorization !== `Bearer ${this.options.apiKey}`) {
      // Echoes what it got, as careless servers do: the client must keep it out of its messages.
      return json(res, 401, { error: { message: `Incorrect API key provided: ${authorization ?? 'none'}`, type: 'invalid_request_error' } });
    }
    if (req.method === 'GET' && path === '/api/tags') {
      return json(res, 200, {
        models: this.options.models.map((name) => ({
          name,
          model: name,
          modified_at: '2025-06-01T00:00:00Z',
          size: 1,
          digest: 'fake',
          details: { format: 'gguf' },
        })),
      });
    }
    if (req.method === 'GET' && path === '/v1/models') {
      return json(res, 200, { object: 'list', data: this.options.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'library' })) });
    }
    const api = req.method === 'POST' && path === '/api/chat' ? 'ollama' : req.method === 'POST' && path === '/v1/chat/completions' ? 'openai' : undefined;
    if (!api) return json(res, 404, { error: `${req.method} ${path} not found` });
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    const call: FakeCall = {
      index: this.calls.length,
      api,
      authorization,
      ...(api === 'ollama' ? ollamaRequest(body) : openAiRequest(body)),
      outcome: 'ok',
      status: 200,
    };
    this.calls.push(call);
    if (!this.options.models.includes(call.model)) {
      call.outcome = 'unknown-model';
      call.status = 404;
      return json(res, 404, { error: `model "${call.model}" not found, try pulling it first` });
    }
    const fault = this.options.fault?.(call);
    if (fault?.kind === 'status') {
      call.outcome = 'status';
      call.status = fault.status;
      return json(res, fault.status, { error: fault.message ?? `fake failure ${fault.status}` });
    }
    if (fault?.kind === 'html') {
      call.outcome = 'status';
      call.status = fault.status;
      res.writeHead(fault.status, { 'content-type': 'text/html' });
      return void res.end('<html><body>Bad Gateway</body></html>');
    }
    if (fault?.kind === 'hang') {
      call.outcome = 'hung';
      return; // never answers; stop() closes the socket
    }
    if (this.gate) await this.gate.promise;
    await this.answer(res, call, fault, (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true);
  }

  private async answer(res: ServerResponse, call: FakeCall, fault: Fault | undefined, includeUsage: boolean): Promise<void> {
    const seed = typeof call.options.seed === 'number' ? call.options.seed : undefined;
    let tokens = fakeTokens(this.options.answer ? this.options.answer(call) : fakeAnswer(call.model, call.messages, seed));
    const limit = call.options.num_predict;
    let doneReason = 'stop';
    if (typeof limit === 'number' && limit >= 0 && tokens.length > limit) {
      tokens = tokens.slice(0, limit);
      doneReason = 'length';
    }
    const delay = typeof this.options.delayMs === 'function' ? this.options.delayMs(call) : (this.options.delayMs ?? 0);
    const answer: FakeAnswer = { content: tokens.join(''), doneReason, promptTokens: fakePromptTokens(call.messages), completionTokens: tokens.length, delay };
    const format = call.api === 'ollama' ? ollamaFormat(call, answer) : openAiFormat(call, answer, includeUsage && this.options.openAiUsage !== 'never');
    if (!call.stream) {
      if (delay > 0) await sleep(delay);
      if (fault?.kind === 'drop') {
        call.outcome = 'dropped';
        return void res.socket?.destroy();
      }
      json(res, 200, format.whole());
      this.sent(call);
      return;
    }
    res.writeHead(200, { 'content-type': format.contentType });
    const per = Math.max(1, this.options.tokensPerChunk ?? 8);
    const lines: string[] = [];
    for (let i = 0; i < tokens.length; i += per) lines.push(tokens.slice(i, i + per).join(''));
    for (let i = 0; i < lines.length; i += 1) {
      if (fault?.kind === 'drop' && i >= fault.afterChunks) {
        call.outcome = 'dropped';
        return void res.socket?.destroy();
      }
      if (delay > 0) await sleep(delay / lines.length);
      res.write(format.part(lines[i]!));
    }
    if (fault?.kind === 'drop') {
      call.outcome = 'dropped';
      return void res.socket?.destroy();
    }
    res.end(format.end());
    this.sent(call);
  }
}

interface FakeAnswer {
  content: string;
  doneReason: string;
  promptTokens: number;
  completionTokens: number;
  delay: number;
}

type RequestFields = Pick<FakeCall, 'model' | 'messages' | 'options' | 'stream'>;

function ollamaRequest(body: Record<string, unknown>): RequestFields {
  return {
    model: String(body.model),
    messages: body.messages as FakeMessage[],
    options: (body.options ?? {}) as Record<string, unknown>,
    stream: body.stream !== false,
  };
}

/** An OpenAI request in Ollama's terms (text parts joined, data-URL images as base64), so answers match across the APIs. */
function openAiRequest(body: Record<string, unknown>): RequestFields {
  const messages = (body.messages as Array<{ role: string; content: unknown }>).map((m) => {
    if (typeof m.content === 'string') return { role: m.role, content: m.content };
    const parts = m.content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
    const images = parts.filter((p) => p.type === 'image_url').map((p) => p.image_url!.url.replace(/^data:[^;]+;base64,/, ''));
    return {
      role: m.role,
      content: parts
        .filter((p) => p.type === 'text')
        .map((p) => p.text)
        .join(''),
      ...(images.length > 0 ? { images } : {}),
    };
  });
  const options: Record<string, unknown> = { temperature: body.temperature, top_p: body.top_p, seed: body.seed };
  if (body.max_tokens !== undefined) options.num_predict = body.max_tokens;
  return { model: String(body.model), messages, options, stream: body.stream === true };
}

interface WireFormat {
  contentType: string;
  whole(): unknown;
  part(text: string): string;
  end(): string;
}

function ollamaFormat(call: FakeCall, answer: FakeAnswer): WireFormat {
  const final = {
    model: call.model,
    created_at: new Date().toISOString(),
    done: true,
    done_reason: answer.doneReason,
    total_duration: answer.delay * 1e6,
    load_duration: 0,
    prompt_eval_count: answer.promptTokens,
    prompt_eval_duration: 0,
    eval_count: answer.completionTokens,
    eval_duration: answer.delay * 1e6,
  };
  return {
    contentType: 'application/x-ndjson',
    whole: () => ({ ...final, message: { role: 'assistant', content: answer.content } }),
    part: (text) =>
      `${JSON.stringify({ model: call.model, created_at: new Date().toISOString(), message: { role: 'assistant', content: text }, done: false })}\n`,
    end: () => `${JSON.stringify({ ...final, message: { role: 'assistant', content: '' } })}\n`,
  };
}

function openAiFormat(call: FakeCall, answer: FakeAnswer, sendUsage: boolean): WireFormat {
  const head = { id: `chatcmpl-${call.index}`, created: 1_700_000_000, model: call.model, system_fingerprint: 'fp_ollama' };
  const usage = { prompt_tokens: answer.promptTokens, completion_tokens: answer.completionTokens, total_tokens: answer.promptTokens + answer.completionTokens };
  const event = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
  const chunk = (delta: unknown, finish: string | null) =>
    event({ ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
  return {
    contentType: 'text/event-stream',
    whole: () => ({
      ...head,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: answer.content }, finish_reason: answer.doneReason }],
      usage,
    }),
    part: (text) => chunk({ role: 'assistant', content: text }, null),
    end: () =>
      `${chunk({ role: 'assistant', content: '' }, answer.doneReason)}${sendUsage ? event({ ...head, object: 'chat.completion.chunk', choices: [], usage }) : ''}data: [DONE]\n\n`,
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
