import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import { describeError, SbevalError } from '../core/errors.js';
import { CLOSE, checkCompatibility, DEFAULT_MAX_MESSAGE_BYTES, type HelloMessage, type Message, PROTOCOL_VERSION, ProtocolError } from './protocol.js';
import { REFUSAL_SUMMARY_MS, type RefusalKind, RefusalLog, type RejectedConnection } from './refusal-log.js';
import { RemoteEngine } from './remote-engine.js';
import { MessageSocket, type SocketClose, safeClose } from './remote-socket.js';

/**
 * The orchestrator's door for engines: a WebSocket server (127.0.0.1 and an OS-assigned port by
 * default) that engines dial into. Every connection must open with `hello` carrying the token and a
 * compatible protocol version; the endpoint answers `welcome` and hands out the connection as a
 * `RemoteEngine` (an `Engine` like any other). More engines on more machines = more throughput, with
 * no change on this side.
 *
 * Before `hello` is accepted a connection is a stranger, and strangers get little:
 * at most `preAuthBytes` bytes (HTTP upgrade + hello; a hello is a few hundred bytes), at most
 * `helloTimeoutMs` from the TCP connection to an accepted hello, and at most `maxUnauthenticated` of
 * them at a time — beyond that a new TCP connection is closed at once. No socket event can throw out
 * of this module: close reasons are cut to the WebSocket limit of 123 UTF-8 bytes, and every close
 * that could still throw falls back to dropping the connection.
 */
export interface EndpointOptions {
  /** Interface to listen on (default 127.0.0.1: only this machine; use 0.0.0.0 for other machines). */
  host?: string;
  /** Port (default 0: the OS picks a free one, read it from `url`). */
  port?: number;
  /** Shared secret every engine must present (default: 32 random bytes, hex). */
  token?: string;
  /** Ping interval (default 5 s). */
  heartbeatMs?: number;
  /** An engine silent for this long is dropped and its level fails (default 60 s). */
  heartbeatTimeoutMs?: number;
  /** Time from the TCP connection to an accepted `hello` (default 10 s). */
  helloTimeoutMs?: number;
  maxMessageBytes?: number;
  /** Bytes a connection may send before its `hello` is accepted (default 64 KiB; see PRE_AUTH_BYTES). */
  preAuthBytes?: number;
  /** Connections that have not completed the handshake, at one time (default 64). */
  maxUnauthenticated?: number;
  /** How long a cancelled level may take to end on the engine (default 30 s). */
  settleMs?: number;
  /** Refusals beyond the first few of each kind are logged as one summary per this interval (default 60 s; see RefusalLog). */
  refusalSummaryMs?: number;
  /** One line per connection event (accepted, rejected, lost), for the run log. */
  log?: (line: string) => void;
}

/**
 * The pre-auth allowance: the largest valid `hello` (every string at its schema limit, 3-byte UTF-8:
 * ≈ 30 KiB) plus Node's largest HTTP header block (16 KiB), rounded up.
 */
export const PRE_AUTH_BYTES = 64 * 1024;
/** Unauthenticated connections at one time: far more than engines dial in at once, far less than memory allows. */
export const MAX_UNAUTHENTICATED = 64;

export { DETAILED_REFUSALS_PER_KIND, type RejectedConnection } from './refusal-log.js';

type EngineListener = (engine: RemoteEngine) => void;

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** A TCP connection that has not completed the handshake yet. */
interface Stranger {
  socket: Socket;
  remote: string;
  timer: NodeJS.Timeout;
  messages: MessageSocket | undefined;
  done: boolean;
  /** Already refused (and logged) by the endpoint itself: the close that follows is not news. */
  refused: boolean;
}

export class EngineEndpoint {
  readonly token: string;
  readonly host: string;
  readonly port: number;
  /** Connections refused before or during the handshake, by kind (a fixed set of keys). */
  get refusals(): ReadonlyMap<RefusalKind, number> {
    return this.refusalLog.total;
  }
  private readonly refusalLog: RefusalLog;
  private readonly options: Required<Omit<EndpointOptions, 'token' | 'log' | 'host' | 'port' | 'refusalSummaryMs'>>;
  private readonly log: (line: string) => void;
  private readonly connected = new Set<RemoteEngine>();
  private readonly strangers = new Set<Stranger>();
  private readonly listeners = new Set<EngineListener>();
  private readonly rejectListeners = new Set<(r: RejectedConnection) => void>();
  private counter = 0;
  private closing = false;
  private readonly tokenDigest: Buffer;

  private constructor(
    private readonly http: Server,
    private readonly server: WebSocketServer,
    options: EndpointOptions,
    token: string,
  ) {
    this.token = token;
    this.tokenDigest = digest(token);
    const address = http.address() as AddressInfo;
    this.host = options.host ?? '127.0.0.1';
    this.port = address.port;
    this.options = {
      heartbeatMs: options.heartbeatMs ?? 5_000,
      heartbeatTimeoutMs: options.heartbeatTimeoutMs ?? 60_000,
      helloTimeoutMs: options.helloTimeoutMs ?? 10_000,
      maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      preAuthBytes: options.preAuthBytes ?? PRE_AUTH_BYTES,
      maxUnauthenticated: options.maxUnauthenticated ?? MAX_UNAUTHENTICATED,
      settleMs: options.settleMs ?? 30_000,
    };
    this.log = options.log ?? (() => {});
    this.refusalLog = new RefusalLog(this.log, options.refusalSummaryMs ?? REFUSAL_SUMMARY_MS);
    http.on('connection', (socket: Socket) => this.onTcp(socket));
    http.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => this.onUpgrade(request, socket, head));
    http.on('error', (error) => this.log(`endpoint error: ${describeError(error)}`));
    server.on('error', (error) => this.log(`endpoint error: ${describeError(error)}`));
  }

  /** Starts listening; resolves once the port is known. */
  static async listen(options: EndpointOptions = {}): Promise<EngineEndpoint> {
    const token = options.token ?? randomBytes(32).toString('hex');
    if (token.length === 0) throw new SbevalError('config', 'the endpoint token must not be empty');
    const host = options.host ?? '127.0.0.1';
    // Our own HTTP server (not ws's), so TCP connections are seen — and counted, timed, refused —
    // before any WebSocket exists. Plain HTTP requests get 426, malformed ones are dropped.
    const http = createServer((_request, response) => {
      const body = STATUS_CODES[426] ?? 'Upgrade Required';
      response.writeHead(426, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
      response.end(body);
    });
    http.on('clientError', (_error, socket) => socket.destroy());
    const server = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES });
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Error) =>
        reject(
          new SbevalError(
            'launch',
            `cannot listen on ${host}:${options.port ?? 0}: ${error.message}`,
            'pick another port (--listen host:0 lets the OS choose)',
            { cause: error },
          ),
        );
      http.once('error', onError);
      http.listen(options.port ?? 0, host, () => {
        http.off('error', onError);
        resolve();
      });
    });
    return new EngineEndpoint(http, server, options, token);
  }

  /** `ws://host:port` for engines to dial. */
  get url(): string {
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `ws://${host}:${this.port}`;
  }

  /** Engines connected now. */
  engines(): RemoteEngine[] {
    return [...this.connected];
  }

  /** Connections that have not completed the handshake. */
  get unauthenticated(): number {
    return this.strangers.size;
  }

  /** Calls `listener` for every engine that completes the handshake from now on. Returns an unsubscribe function. */
  onEngine(listener: EngineListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onRejected(listener: (r: RejectedConnection) => void): () => void {
    this.rejectListeners.add(listener);
    return () => this.rejectListeners.delete(listener);
  }

  /** Waits until at least `count` engines are connected. */
  async waitForEngines(count: number, timeoutMs = 60_000): Promise<RemoteEngine[]> {
    if (this.connected.size >= count) return this.engines();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new SbevalError('launch', `${this.connected.size} of ${count} engines connected to ${this.url} within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.onEngine(() => {
        if (this.connected.size >= count) {
          clearTimeout(timer);
          off();
          resolve(this.engines());
        }
      });
    });
  }

  /** Says bye to every engine and stops listening. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    for (const stranger of [...this.strangers]) stranger.socket.destroy();
    await Promise.all([...this.connected].map((e) => e.close('orchestrator finished')));
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await new Promise<void>((resolve) => {
      this.http.close(() => resolve());
      this.http.closeAllConnections();
    });
    this.refusalLog.flush();
  }

  /** A new TCP connection: counted, given its deadline and its byte allowance until `hello` is accepted. */
  private onTcp(socket: Socket): void {
    const remote = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    // Errors on a stranger's socket (resets, half-open peers) end in 'close'; never let them throw.
    socket.on('error', () => {});
    if (this.closing) {
      socket.destroy();
      return;
    }
    if (this.strangers.size >= this.options.maxUnauthenticated) {
      this.reject({ remote, reason: `too many unauthenticated connections (${this.options.maxUnauthenticated})`, code: 0, kind: 'too-many' });
      socket.destroy();
      return;
    }
    const stranger: Stranger = {
      socket,
      remote,
      messages: undefined,
      done: false,
      refused: false,
      timer: setTimeout(() => {
        if (stranger.done) return;
        const error = new ProtocolError('timeout', `no "hello" within ${this.options.helloTimeoutMs} ms`);
        if (stranger.messages?.open) stranger.messages.fail(error, 'handshake');
        else {
          this.reject({ remote, reason: error.message, code: 0, kind: 'timeout' });
          stranger.refused = true;
          this.forget(stranger);
          socket.destroy();
        }
      }, this.options.helloTimeoutMs),
    };
    stranger.timer.unref();
    this.strangers.add(stranger);
    this.strangerOf.set(socket, stranger);
    socket.on('data', () => {
      if (stranger.done || socket.bytesRead <= this.options.preAuthBytes) return;
      // Dropped, not closed politely: a peer that floods before authenticating gets no more reads.
      this.reject({ remote, reason: `more than ${this.options.preAuthBytes} bytes before "hello" was accepted`, code: CLOSE.tooLarge, kind: 'pre-auth-bytes' });
      stranger.refused = true;
      this.forget(stranger);
      socket.destroy();
    });
    socket.once('close', () => this.forget(stranger));
  }

  private readonly strangerOf = new WeakMap<Socket, Stranger>();

  private forget(stranger: Stranger): void {
    clearTimeout(stranger.timer);
    this.strangers.delete(stranger);
  }

  private onUpgrade(request: IncomingMessage, socket: Socket, head: Buffer): void {
    const stranger = this.strangerOf.get(socket);
    if (!stranger || stranger.done || this.closing || socket.destroyed) {
      socket.destroy();
      return;
    }
    try {
      this.server.handleUpgrade(request, socket, head, (ws) => this.accept(ws, request, stranger));
    } catch (error) {
      this.reject({ remote: stranger.remote, reason: `bad upgrade request: ${describeError(error)}`, code: 0, kind: 'bad-upgrade' });
      socket.destroy();
    }
  }

  private accept(ws: WebSocket, request: IncomingMessage, stranger: Stranger): void {
    const remote = stranger.remote;
    void request;
    if (this.closing) {
      safeClose(ws, 1001, 'orchestrator is shutting down');
      return;
    }
    let engine: RemoteEngine | undefined;
    const socket: MessageSocket = new MessageSocket(ws, {
      peer: 'engine',
      // Until hello is accepted, a message may not be bigger than what a stranger may send at all.
      maxMessageBytes: Math.min(this.options.preAuthBytes, this.options.maxMessageBytes),
      pingsBeforeHandshake: false,
      onMessage: (message) => {
        if (engine) engine.handle(message);
        else engine = this.handshake(socket, message, remote, stranger);
      },
      onClose: (close) => {
        this.forget(stranger);
        if (engine) {
          this.connected.delete(engine);
          this.log(`engine ${engine.id} disconnected (${describeClose(close)})`);
          engine.handleClose(close);
        } else if (!stranger.refused) {
          const kind: RefusalKind = close.error instanceof ProtocolError ? close.error.code : 'closed-before-hello';
          this.reject({ remote, reason: close.error ? describeError(close.error) : describeClose(close), code: close.code, kind });
        }
      },
    });
    stranger.messages = socket;
  }

  /** Checks the first message; returns the new engine, or throws a ProtocolError (the socket closes with its code). */
  private handshake(socket: MessageSocket, message: Message, remote: string, stranger: Stranger): RemoteEngine {
    if (message.type !== 'hello') throw new ProtocolError('unexpected', `the first message must be "hello", got "${message.type}"`);
    if (!this.tokenMatches(message.token)) {
      throw new ProtocolError('bad-token', 'wrong token', 'pass the token the orchestrator uses (SBEVAL_TOKEN or --token-file)');
    }
    const compatibility = checkCompatibility(PROTOCOL_VERSION, message.protocol);
    if (!compatibility.ok) throw new ProtocolError('incompatible', compatibility.reason, 'use an engine and an orchestrator from compatible sbeval releases');
    const engine = new RemoteEngine({ id: this.nameFor(message), hello: message, socket, settleMs: this.options.settleMs });
    stranger.done = true;
    this.forget(stranger);
    socket.establish(this.options.maxMessageBytes);
    this.connected.add(engine);
    socket.send({
      type: 'welcome',
      protocol: PROTOCOL_VERSION,
      sessionId: randomBytes(8).toString('hex'),
      engineId: engine.id,
      heartbeatMs: this.options.heartbeatMs,
      maxMessageBytes: this.options.maxMessageBytes,
    });
    socket.startHeartbeat(this.options.heartbeatMs, this.options.heartbeatTimeoutMs);
    this.log(
      `engine ${engine.id} connected from ${remote}: ${message.engine.kind} ${message.engine.version} (${message.engine.description}), protocol ${message.protocol}` +
        (compatibility.warning ? ` — ${compatibility.warning}` : ''),
    );
    for (const listener of [...this.listeners]) {
      try {
        listener(engine);
      } catch (error) {
        this.log(`engine ${engine.id}: a listener failed: ${describeError(error)}`);
      }
    }
    return engine;
  }

  private tokenMatches(token: string): boolean {
    return timingSafeEqual(digest(token), this.tokenDigest);
  }

  private nameFor(hello: HelloMessage): string {
    this.counter += 1;
    const base = hello.instance ?? `${hello.engine.kind}-${this.counter}`;
    const taken = new Set([...this.connected].map((e) => e.id));
    if (!taken.has(base)) return base;
    return `${base}#${this.counter}`;
  }

  /** Records a refused connection (counted and logged by RefusalLog, so a flood of strangers cannot fill the disk through the run log). */
  private reject(rejected: RejectedConnection): void {
    this.refusalLog.add(rejected);
    for (const listener of [...this.rejectListeners]) {
      try {
        listener(rejected);
      } catch {
        // A listener's failure must not reach the socket.
      }
    }
  }
}

function describeClose(close: SocketClose): string {
  if (close.error) return describeError(close.error);
  return `code ${close.code}${close.reason ? `: ${close.reason}` : ''}`;
}
