import WebSocket from 'ws';
import { describeError, SbevalError } from '../core/errors.js';
import { DAMAGE_FORMULAS, type Engine, type LevelSink } from './engine.js';
import {
  type Capabilities,
  CLOSE,
  checkCompatibility,
  DEFAULT_MAX_MESSAGE_BYTES,
  type ErrorPhase,
  type LoadMessage,
  type Message,
  PROTOCOL_VERSION,
  ProtocolError,
  type WelcomeMessage,
} from './protocol.js';
import { MessageSocket, type SocketClose } from './remote-socket.js';

/**
 * An engine behind the protocol: dials the orchestrator's endpoint, says hello, and runs every level it
 * is handed on a local `Engine` (the headless engine for `sbeval engine`), streaming the results back.
 * Reconnects with backoff when the connection drops; stops for good on `bye`, on a refused handshake
 * (wrong token, incompatible protocol: retrying cannot help), or when the signal aborts.
 */
export interface WorkerOptions {
  url: string;
  token: string;
  engine: Engine;
  capabilities: Capabilities;
  /** The launcher's name for this process (sent in `hello`). */
  instance?: string;
  maxMessageBytes?: number;
  /** Reconnect delays: `initialDelayMs` doubling up to `maxDelayMs`; give up after `maxAttempts` failures in a row. */
  reconnect?: { initialDelayMs?: number; maxDelayMs?: number; maxAttempts?: number };
  /** Time allowed for the `welcome` after `hello` (default 10 s). */
  welcomeTimeoutMs?: number;
  signal?: AbortSignal;
  log?: (line: string) => void;
}

export interface WorkerResult {
  /** Why the worker stopped. */
  reason: 'bye' | 'aborted';
  levelsRun: number;
  connections: number;
}

/** Close codes after which reconnecting is pointless. */
const FATAL_CLOSES = new Set<number>([CLOSE.badToken, CLOSE.incompatible]);

export function headlessCapabilities(): Capabilities {
  return { frames: true, events: true, capture: true, captureRaw: true, cancel: true, damageFormulas: [...DAMAGE_FORMULAS] };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

type SessionEnd = { kind: 'bye' } | { kind: 'aborted' } | { kind: 'lost'; welcomed: boolean; close: SocketClose } | { kind: 'refused'; error: SbevalError };

export async function runEngineWorker(options: WorkerOptions): Promise<WorkerResult> {
  const log = options.log ?? (() => {});
  const initialDelay = options.reconnect?.initialDelayMs ?? 250;
  const maxDelay = options.reconnect?.maxDelayMs ?? 5_000;
  const maxAttempts = options.reconnect?.maxAttempts ?? 20;
  const stats = { levelsRun: 0, connections: 0 };
  let failures = 0;
  for (;;) {
    if (options.signal?.aborted) return { reason: 'aborted', ...stats };
    const end = await session(options, stats, log);
    switch (end.kind) {
      case 'bye':
        return { reason: 'bye', ...stats };
      case 'aborted':
        return { reason: 'aborted', ...stats };
      case 'refused':
        throw end.error;
      case 'lost': {
        failures = end.welcomed ? 1 : failures + 1;
        if (failures >= maxAttempts) {
          throw new SbevalError(
            'handshake',
            `cannot reach the orchestrator at ${options.url} (${failures} attempts; last: ${describeSocketEnd(end.close)})`,
            'check that the orchestrator is running and that --connect names its endpoint',
          );
        }
        const delay = Math.min(maxDelay, initialDelay * 2 ** (failures - 1));
        log(`connection to ${options.url} ended (${describeSocketEnd(end.close)}); reconnecting in ${delay} ms`);
        await sleep(delay, options.signal);
      }
    }
  }
}

function describeSocketEnd(close: SocketClose): string {
  if (close.error) return describeError(close.error);
  return `code ${close.code}${close.reason ? `: ${close.reason}` : ''}`;
}

/** One connection, from dial to close. */
function session(options: WorkerOptions, stats: WorkerStats, log: (line: string) => void): Promise<SessionEnd> {
  return new Promise<SessionEnd>((resolve) => new WorkerSession(options, stats, log, resolve));
}

type WorkerStats = { levelsRun: number; connections: number };

/** What a run streamed so far, for its `done` summary. */
type RunCounts = { steps: number; bodies: number; events: number };

/** The `error` message for a run whose engine rejected (or that was cancelled). */
function runErrorMessage(error: unknown, cancelled: boolean, runId: string, levelId: string): Message {
  const levelFault = (error as { levelError?: unknown } | null)?.levelError === true;
  const sbPhase = error instanceof SbevalError ? error.phase : undefined;
  // A level error is `load` unless the engine found it while simulating (the simulation budget).
  const phase: ErrorPhase = cancelled
    ? 'cancelled'
    : levelFault
      ? sbPhase === 'simulate'
        ? 'simulate'
        : 'load'
      : sbPhase === 'capture'
        ? 'capture'
        : 'simulate';
  return {
    type: 'error',
    runId,
    levelId,
    phase,
    fault: levelFault ? 'level' : 'engine',
    // A level error's text is the level's recorded reason: the engine's message as is.
    message: levelFault && error instanceof Error ? error.message : describeError(error),
    ...(error instanceof SbevalError && error.hint ? { hint: error.hint } : {}),
  };
}

/** One connection's state: the handshake, the one run at a time the orchestrator asks for, and how it ended. */
class WorkerSession {
  private readonly maxMessageBytes: number;
  private readonly socket: MessageSocket;
  private welcomed = false;
  private settled = false;
  private byeReceived = false;
  private refused: SbevalError | undefined;
  private running: { runId: string; abort: AbortController } | undefined;
  private connectError: Error | undefined;
  private welcomeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: WorkerOptions,
    private readonly stats: WorkerStats,
    private readonly log: (line: string) => void,
    private readonly resolve: (end: SessionEnd) => void,
  ) {
    const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.maxMessageBytes = maxMessageBytes;
    const ws = new WebSocket(options.url, { maxPayload: maxMessageBytes, handshakeTimeout: 10_000 });
    ws.on('error', (error) => {
      this.connectError ??= error;
    });
    this.socket = new MessageSocket(ws, {
      peer: 'orchestrator',
      maxMessageBytes,
      onMessage: (message) => this.handle(message),
      onClose: (close) => this.onClose(close),
    });
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
    ws.on('open', () => this.onOpen());
  }

  private readonly onAbort = (): void => {
    this.socket.send({ type: 'bye', reason: 'engine stopping' });
    this.socket.close(CLOSE.normal, 'engine stopping');
  };

  private end(value: SessionEnd): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.welcomeTimer);
    this.options.signal?.removeEventListener('abort', this.onAbort);
    this.running?.abort.abort();
    this.resolve(value);
  }

  private onClose(close: SocketClose): void {
    if (this.options.signal?.aborted) {
      this.end({ kind: 'aborted' });
      return;
    }
    if (this.byeReceived) {
      this.end({ kind: 'bye' });
      return;
    }
    if (this.refused) {
      this.end({ kind: 'refused', error: this.refused });
      return;
    }
    if (!close.local && FATAL_CLOSES.has(close.code)) {
      this.end({ kind: 'refused', error: new SbevalError('handshake', `the orchestrator refused this engine: ${close.reason || `code ${close.code}`}`) });
      return;
    }
    const withError = close.error || !this.connectError ? close : { ...close, error: this.connectError };
    this.end({ kind: 'lost', welcomed: this.welcomed, close: withError });
  }

  /** Says hello, and gives the orchestrator `welcomeTimeoutMs` to welcome this engine. */
  private onOpen(): void {
    const { options } = this;
    const welcomeTimeoutMs = options.welcomeTimeoutMs ?? 10_000;
    this.stats.connections += 1;
    this.welcomeTimer = setTimeout(() => {
      if (!this.welcomed) this.socket.terminate(new ProtocolError('timeout', `no "welcome" within ${welcomeTimeoutMs} ms`));
    }, welcomeTimeoutMs);
    this.welcomeTimer.unref();
    this.socket.send({
      type: 'hello',
      protocol: PROTOCOL_VERSION,
      token: options.token,
      ...(options.instance !== undefined ? { instance: options.instance } : {}),
      engine: options.engine.identity,
      capabilities: options.capabilities,
      maxMessageBytes: this.maxMessageBytes,
    });
  }

  private handle(message: Message): void {
    if (!this.welcomed) {
      if (message.type === 'error') {
        this.refused = new SbevalError('handshake', `the orchestrator refused this engine: ${message.message}`, message.hint);
        return;
      }
      if (message.type !== 'welcome') throw new ProtocolError('unexpected', `expected "welcome", got "${message.type}"`);
      this.onWelcome(message);
      return;
    }
    switch (message.type) {
      case 'load':
        this.onLoad(message);
        return;
      case 'cancel':
        if (this.running?.runId === message.runId) this.running.abort.abort();
        return;
      case 'bye':
        this.byeReceived = true;
        this.log(`orchestrator said bye: ${message.reason}`);
        this.socket.close(CLOSE.normal, 'bye');
        return;
      case 'error':
        this.log(`orchestrator reported: ${message.message}`);
        return;
      case 'welcome':
        throw new ProtocolError('unexpected', 'a second "welcome"');
      default:
        throw new ProtocolError('unexpected', `"${message.type}" is never sent by the orchestrator`);
    }
  }

  private onWelcome(message: WelcomeMessage): void {
    const compatibility = checkCompatibility(PROTOCOL_VERSION, message.protocol);
    if (!compatibility.ok) {
      this.refused = new SbevalError('handshake', compatibility.reason, 'use an engine and an orchestrator from compatible sbeval releases');
      throw new ProtocolError('incompatible', compatibility.reason);
    }
    this.welcomed = true;
    clearTimeout(this.welcomeTimer);
    // Both sides ping; a silent orchestrator (crashed machine, cut network) is noticed here too.
    this.socket.startHeartbeat(message.heartbeatMs, Math.max(message.heartbeatMs * 6, 30_000));
    this.log(`connected to ${this.options.url} as ${message.engineId}${compatibility.warning ? ` (${compatibility.warning})` : ''}`);
  }

  /** A sink that streams a run's results to the orchestrator, counting what it sent. */
  private streamTo(runId: string, counts: RunCounts): LevelSink {
    const socket = this.socket;
    return {
      loaded: (b, dt) => {
        counts.bodies = b.length;
        socket.send({ type: 'loaded', runId, dt, bodies: b });
      },
      frames: (batch) => {
        counts.steps = batch.firstStep + batch.stepCount - 1;
        socket.send({ type: 'frames', runId, batch });
      },
      events: (list) => {
        counts.events += list.length;
        socket.send({ type: 'events', runId, events: list });
      },
      capture: (result) => socket.send(result.raw ? { type: 'capture', runId, png: result.png, raw: result.raw } : { type: 'capture', runId, png: result.png }),
    };
  }

  private onLoad(message: LoadMessage): void {
    if (this.running) throw new ProtocolError('unexpected', `"load" for ${message.levelId} while run ${this.running.runId} is still running`);
    const abort = new AbortController();
    const current = { runId: message.runId, abort };
    this.running = current;
    const runId = message.runId;
    const counts: RunCounts = { steps: 0, bodies: 0, events: 0 };
    const sink = this.streamTo(runId, counts);
    const started = Date.now();
    const job = { levelId: message.levelId, xml: message.xml, settings: message.settings };
    this.options.engine.run(job, sink, abort.signal).then(
      () => {
        if (this.running === current) this.running = undefined;
        this.stats.levelsRun += 1;
        if (abort.signal.aborted) {
          this.socket.send({ type: 'error', runId, levelId: job.levelId, phase: 'cancelled', fault: 'engine', message: 'cancelled' });
          return;
        }
        this.socket.send({
          type: 'done',
          runId,
          summary: { steps: counts.steps, bodies: counts.bodies, events: counts.events, elapsedMs: Date.now() - started },
        });
      },
      (error: unknown) => {
        if (this.running === current) this.running = undefined;
        this.socket.send(runErrorMessage(error, abort.signal.aborted, runId, job.levelId));
      },
    );
  }
}
