import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { describeError, SbevalError } from '../core/errors.js';
import { checkCompatibility, DEFAULT_MAX_MESSAGE_BYTES, PROTOCOL_VERSION, ProtocolError, type HelloMessage, type Message } from './protocol.js';
import { RemoteEngine } from './remote-engine.js';
import { MessageSocket, type SocketClose } from './remote-socket.js';

/**
 * The orchestrator's door for engines: a WebSocket server (127.0.0.1 and an OS-assigned port by
 * default) that engines dial into. Every connection must open with `hello` carrying the token and a
 * compatible protocol version; the endpoint answers `welcome` and hands out the connection as a
 * `RemoteEngine` (an `Engine` like any other). More engines on more machines = more throughput, with
 * no change on this side.
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
  /** Time a new connection has to send `hello` (default 10 s). */
  helloTimeoutMs?: number;
  maxMessageBytes?: number;
  /** How long a cancelled level may take to end on the engine (default 30 s). */
  settleMs?: number;
  /** One line per connection event (accepted, rejected, lost), for the run log. */
  log?: (line: string) => void;
}

export interface RejectedConnection {
  remote: string;
  reason: string;
  code: number;
}

type EngineListener = (engine: RemoteEngine) => void;

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

export class EngineEndpoint {
  readonly token: string;
  readonly host: string;
  readonly port: number;
  private readonly server: WebSocketServer;
  private readonly options: Required<Omit<EndpointOptions, 'token' | 'log' | 'host' | 'port'>>;
  private readonly log: (line: string) => void;
  private readonly connected = new Set<RemoteEngine>();
  private readonly handshaking = new Set<WebSocket>();
  private readonly listeners = new Set<EngineListener>();
  private readonly rejectListeners = new Set<(r: RejectedConnection) => void>();
  private counter = 0;
  private closing = false;
  private readonly tokenDigest: Buffer;

  private constructor(server: WebSocketServer, options: EndpointOptions, token: string) {
    this.server = server;
    this.token = token;
    this.tokenDigest = digest(token);
    const address = server.address() as AddressInfo;
    this.host = options.host ?? '127.0.0.1';
    this.port = address.port;
    this.options = {
      heartbeatMs: options.heartbeatMs ?? 5_000,
      heartbeatTimeoutMs: options.heartbeatTimeoutMs ?? 60_000,
      helloTimeoutMs: options.helloTimeoutMs ?? 10_000,
      maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      settleMs: options.settleMs ?? 30_000,
    };
    this.log = options.log ?? (() => {});
    server.on('connection', (ws, request) => this.accept(ws, request));
  }

  /** Starts listening; resolves once the port is known. */
  static async listen(options: EndpointOptions = {}): Promise<EngineEndpoint> {
    const token = options.token ?? randomBytes(32).toString('hex');
    if (token.length === 0) throw new SbevalError('config', 'the endpoint token must not be empty');
    const server = new WebSocketServer({
      host: options.host ?? '127.0.0.1',
      port: options.port ?? 0,
      maxPayload: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    });
    await new Promise<void>((resolve, reject) => {
      server.once('listening', () => resolve());
      server.once('error', (error) =>
        reject(new SbevalError('launch', `cannot listen on ${options.host ?? '127.0.0.1'}:${options.port ?? 0}: ${error.message}`, 'pick another --port or leave it at 0', { cause: error })),
      );
    });
    return new EngineEndpoint(server, options, token);
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
    for (const ws of this.handshaking) ws.terminate();
    await Promise.all([...this.connected].map((e) => e.close('orchestrator finished')));
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(ws: WebSocket, request: IncomingMessage): void {
    const remote = `${request.socket.remoteAddress ?? '?'}:${request.socket.remotePort ?? '?'}`;
    if (this.closing) {
      ws.close(1001, 'orchestrator is shutting down');
      return;
    }
    this.handshaking.add(ws);
    let engine: RemoteEngine | undefined;
    const socket: MessageSocket = new MessageSocket(ws, {
      peer: 'engine',
      maxMessageBytes: this.options.maxMessageBytes,
      onMessage: (message) => {
        if (engine) engine.handle(message);
        else engine = this.handshake(socket, message, remote);
      },
      onClose: (close) => {
        clearTimeout(helloTimer);
        this.handshaking.delete(ws);
        if (engine) {
          this.connected.delete(engine);
          this.log(`engine ${engine.id} disconnected (${describeClose(close)})`);
          engine.handleClose(close);
        } else {
          this.reject({ remote, reason: close.error ? describeError(close.error) : describeClose(close), code: close.code });
        }
      },
    });
    const helloTimer = setTimeout(() => {
      if (!engine) socket.fail(new ProtocolError('timeout', `no "hello" within ${this.options.helloTimeoutMs} ms`), 'handshake');
    }, this.options.helloTimeoutMs);
    helloTimer.unref();
  }

  /** Checks the first message; returns the new engine, or throws a ProtocolError (the socket closes with its code). */
  private handshake(socket: MessageSocket, message: Message, remote: string): RemoteEngine {
    if (message.type !== 'hello') throw new ProtocolError('unexpected', `the first message must be "hello", got "${message.type}"`);
    if (!this.tokenMatches(message.token)) {
      throw new ProtocolError('bad-token', 'wrong token', 'pass the token the orchestrator printed (--token or SBEVAL_TOKEN)');
    }
    const compatibility = checkCompatibility(PROTOCOL_VERSION, message.protocol);
    if (!compatibility.ok) throw new ProtocolError('incompatible', compatibility.reason, 'use an engine and an orchestrator from compatible sbeval releases');
    const engine = new RemoteEngine({ id: this.nameFor(message), hello: message, socket, settleMs: this.options.settleMs });
    this.handshaking.delete(socket.ws);
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
    for (const listener of [...this.listeners]) listener(engine);
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

  private reject(rejected: RejectedConnection): void {
    this.log(`connection from ${rejected.remote} refused: ${rejected.reason}`);
    for (const listener of [...this.rejectListeners]) listener(rejected);
  }
}

export function describeClose(close: SocketClose): string {
  if (close.error) return describeError(close.error);
  return `code ${close.code}${close.reason ? `: ${close.reason}` : ''}`;
}
