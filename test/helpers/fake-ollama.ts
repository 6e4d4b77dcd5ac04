import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A stand-in for an Ollama server (Ollama cannot run here) that speaks its real HTTP API on loopback:
 * `POST /api/chat` streamed (NDJSON, one line per few tokens, then a `done` line with
 * `prompt_eval_count`/`eval_count`) or whole (`"stream": false`), and `GET /api/tags`. Answers are a
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
  const digest = createHash('sha256').update(JSON.stringify([model, messages.map((m) => [m.role, m.content]), seed ?? null])).digest();
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
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
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
    if (req.method === 'GET' && path === '/api/tags') {
      return json(res, 200, {
        models: this.options.models.map((name) => ({ name, model: name, modified_at: '2025-06-01T00:00:00Z', size: 1, digest: 'fake', details: { format: 'gguf' } })),
      });
    }
    if (req.method !== 'POST' || path !== '/api/chat') return json(res, 404, { error: `${req.method} ${path} not found` });
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; messages: FakeMessage[]; options?: Record<string, unknown>; stream?: boolean };
    const call: FakeCall = {
      index: this.calls.length,
      model: body.model,
      messages: body.messages,
      options: body.options ?? {},
      stream: body.stream !== false,
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
    const seed = typeof call.options.seed === 'number' ? call.options.seed : undefined;
    let tokens = fakeTokens(this.options.answer ? this.options.answer(call) : fakeAnswer(call.model, call.messages, seed));
    const limit = call.options.num_predict;
    let doneReason = 'stop';
    if (typeof limit === 'number' && limit >= 0 && tokens.length > limit) {
      tokens = tokens.slice(0, limit);
      doneReason = 'length';
    }
    const content = tokens.join('');
    const delay = typeof this.options.delayMs === 'function' ? this.options.delayMs(call) : (this.options.delayMs ?? 0);
    const final = {
      model: call.model,
      created_at: new Date().toISOString(),
      done: true,
      done_reason: doneReason,
      total_duration: delay * 1e6,
      load_duration: 0,
      prompt_eval_count: fakePromptTokens(call.messages),
      prompt_eval_duration: 0,
      eval_count: tokens.length,
      eval_duration: delay * 1e6,
    };
    if (!call.stream) {
      if (delay > 0) await sleep(delay);
      if (fault?.kind === 'drop') {
        call.outcome = 'dropped';
        return void res.socket?.destroy();
      }
      json(res, 200, { ...final, message: { role: 'assistant', content } });
      this.sent(call);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const per = Math.max(1, this.options.tokensPerChunk ?? 8);
    const lines: string[] = [];
    for (let i = 0; i < tokens.length; i += per) lines.push(tokens.slice(i, i + per).join(''));
    for (let i = 0; i < lines.length; i += 1) {
      if (fault?.kind === 'drop' && i >= fault.afterChunks) {
        call.outcome = 'dropped';
        return void res.socket?.destroy();
      }
      if (delay > 0) await sleep(delay / lines.length);
      res.write(`${JSON.stringify({ model: call.model, created_at: new Date().toISOString(), message: { role: 'assistant', content: lines[i] }, done: false })}\n`);
    }
    if (fault?.kind === 'drop') {
      call.outcome = 'dropped';
      return void res.socket?.destroy();
    }
    res.end(`${JSON.stringify({ ...final, message: { role: 'assistant', content: '' } })}\n`);
    this.sent(call);
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
