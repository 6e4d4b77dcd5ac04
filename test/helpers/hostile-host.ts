import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { listenOnLoopback } from './loopback.js';

/**
 * A model host that misbehaves on purpose, over a real HTTP socket on loopback (the red team's
 * hosts). It lists its models like a healthy Ollama or OpenAI-style host (so a client's start-up
 * check passes) and answers every chat call in one of these ways:
 * - `drip`: a valid stream, one byte every `dripMs` (2 s by default), forever;
 * - `endless`: valid stream lines of 64 KiB of answer text, as fast as the socket takes them, forever;
 * - `endless-line`: one line that never ends (no newline), as fast as the socket takes it;
 * - `endless-event`: (OpenAI) `data:` lines that never close their event with a blank line;
 * - `redirect`: `307 Temporary Redirect` to `redirectTo` (a healthy host: a client that follows
 *   redirects gets a good answer from a host nobody named).
 * Every request is recorded (method, path, Authorization header).
 */
export type HostileMode = 'drip' | 'endless' | 'endless-line' | 'endless-event' | 'redirect';

export interface HostileOptions {
  mode: HostileMode;
  api: 'ollama' | 'openai';
  models: string[];
  redirectTo?: string;
  dripMs?: number;
}

const BLOCK = 'x'.repeat(64 * 1024);

export class HostileHost {
  readonly requests: Array<{ method: string; path: string; authorization: string | undefined }> = [];
  /** Bytes of chat answers written so far (what a client was offered). */
  bytesSent = 0;
  url = '';
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(readonly options: HostileOptions) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res).catch(() => res.destroy()));
    this.url = await listenOnLoopback(this.server, this.sockets);
    return this;
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Chat calls received. */
  chatCalls(): number {
    return this.requests.filter((r) => r.method === 'POST').length;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    this.requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization });
    for await (const _ of req as AsyncIterable<Buffer>) {
      // the request body is not needed
    }
    const { models, api } = this.options;
    if (req.method === 'GET' && path === '/api/tags') return json(res, { models: models.map((name) => ({ name, model: name, digest: 'hostile' })) });
    if (req.method === 'GET' && path === '/v1/models') return json(res, { object: 'list', data: models.map((id) => ({ id, object: 'model' })) });
    if (this.options.mode === 'redirect') {
      res.writeHead(307, { location: `${this.options.redirectTo}${path}` });
      return void res.end();
    }
    res.writeHead(200, { 'content-type': api === 'ollama' ? 'application/x-ndjson' : 'text/event-stream' });
    if (this.options.mode === 'drip') return this.drip(res);
    await this.flood(res);
  }

  private line(text: string): string {
    if (this.options.api === 'ollama')
      return `${JSON.stringify({ model: this.options.models[0], message: { role: 'assistant', content: text }, done: false })}\n`;
    return `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`;
  }

  private drip(res: ServerResponse): void {
    const text = this.line('Here is the level you asked for. ').repeat(1000);
    let at = 0;
    const timer = setInterval(() => {
      if (res.destroyed) {
        clearInterval(timer);
        this.timers.delete(timer);
        return;
      }
      res.write(text[at % text.length]!);
      this.bytesSent += 1;
      at += 1;
    }, this.options.dripMs ?? 2000);
    this.timers.add(timer);
  }

  /** Writes as fast as the client reads, until it hangs up. */
  private async flood(res: ServerResponse): Promise<void> {
    const { mode } = this.options;
    const piece = mode === 'endless' ? this.line(BLOCK) : mode === 'endless-event' ? `data: ${BLOCK}\n` : BLOCK;
    if (mode === 'endless-line') res.write(this.options.api === 'ollama' ? '{"message":{"content":"' : 'data: {"choices":[{"delta":{"content":"');
    while (!res.destroyed) {
      this.bytesSent += piece.length;
      if (!res.write(piece)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
    }
  }
}

function json(res: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
