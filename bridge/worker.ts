import WebSocket from 'ws';
import { describeError, SbevalError } from '../core/errors.js';
import type { Engine, LevelSink } from './engine.js';
import {
  checkCompatibility,
  CLOSE,
  DEFAULT_MAX_MESSAGE_BYTES,
  PROTOCOL_VERSION,
  ProtocolError,
  type Capabilities,
  type ErrorPhase,
  type LoadMessage,
  type Message,
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
  return { frames: true, events: true, capture: true, captureRaw: true, cancel: true, damageFormulas: ['body', 'contact-point'] };
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

type SessionEnd =
  | { kind: 'bye' }
  | { kind: 'aborted' }
  | { kind: 'lost'; welcomed: boolean; close: SocketClose }
  | { kind: 'refused'; error: SbevalError };

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
function session(options: WorkerOptions, stats: { levelsRun: number; connections: number }, log: (line: string) => void): Promise<SessionEnd> {
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  return new Promise<SessionEnd>((resolve) => {
    let welcomed = false;
    let settled = false;
    let byeReceived = false;
    let refused: SbevalError | undefined;
    let running: { runId: string; abort: AbortController } | undefined;
    const ws = new WebSocket(options.url, { maxPayload: maxMessageBytes, handshakeTimeout: 10_000 });
    let connectError: Error | undefined;
    ws.on('error', (error) => {
      connectError ??= error;
    });
    const onAbort = (): void => {
      socket.send({ type: 'bye', reason: 'engine stopping' });
      socket.close(CLOSE.normal, 'engine stopping');
    };
    const end = (value: SessionEnd): void => {
      if (settled) return;
      settled = true;
      clearTimeout(welcomeTimer);
      options.signal?.removeEventListener('abort', onAbort);
      running?.abort.abort();
      resolve(value);
    };

    const socket = new MessageSocket(ws, {
      peer: 'orchestrator',
      maxMessageBytes,
      onMessage: (message) => handle(message),
      onClose: (close) => {
        if (options.signal?.aborted) return end({ kind: 'aborted' });
        if (byeReceived) return end({ kind: 'bye' });
        if (refused) return end({ kind: 'refused', error: refused });
        if (!close.local && FATAL_CLOSES.has(close.code)) {
          return end({ kind: 'refused', error: new SbevalError('handshake', `the orchestrator refused this engine: ${close.reason || `code ${close.code}`}`) });
        }
        const withError = close.error || !connectError ? close : { ...close, error: connectError };
        end({ kind: 'lost', welcomed, close: withError });
      },
    });

    const welcomeTimeoutMs = options.welcomeTimeoutMs ?? 10_000;
    let welcomeTimer: NodeJS.Timeout | undefined;
    options.signal?.addEventListener('abort', onAbort, { once: true });

    ws.on('open', () => {
      stats.connections += 1;
      welcomeTimer = setTimeout(() => {
        if (!welcomed) socket.terminate(new ProtocolError('timeout', `no "welcome" within ${welcomeTimeoutMs} ms`));
      }, welcomeTimeoutMs);
      welcomeTimer.unref();
      socket.send({
        type: 'hello',
        protocol: PROTOCOL_VERSION,
        token: options.token,
        ...(options.instance !== undefined ? { instance: options.instance } : {}),
        engine: options.engine.identity,
        capabilities: options.capabilities,
        maxMessageBytes,
      });
    });

    function handle(message: Message): void {
      if (!welcomed) {
        if (message.type === 'error') {
          refused = new SbevalError('handshake', `the orchestrator refused this engine: ${message.message}`, message.hint);
          return;
        }
        if (message.type !== 'welcome') throw new ProtocolError('unexpected', `expected "welcome", got "${message.type}"`);
        onWelcome(message);
        return;
      }
      switch (message.type) {
        case 'load':
          onLoad(message);
          return;
        case 'cancel':
          if (running?.runId === message.runId) running.abort.abort();
          return;
        case 'bye':
          byeReceived = true;
          log(`orchestrator said bye: ${message.reason}`);
          socket.close(CLOSE.normal, 'bye');
          return;
        case 'error':
          log(`orchestrator reported: ${message.message}`);
          return;
        case 'welcome':
          throw new ProtocolError('unexpected', 'a second "welcome"');
        default:
          throw new ProtocolError('unexpected', `"${message.type}" is never sent by the orchestrator`);
      }
    }

    function onWelcome(message: WelcomeMessage): void {
      const compatibility = checkCompatibility(PROTOCOL_VERSION, message.protocol);
      if (!compatibility.ok) {
        refused = new SbevalError('handshake', compatibility.reason, 'use an engine and an orchestrator from compatible sbeval releases');
        throw new ProtocolError('incompatible', compatibility.reason);
      }
      welcomed = true;
      clearTimeout(welcomeTimer);
      // Both sides ping; a silent orchestrator (crashed machine, cut network) is noticed here too.
      socket.startHeartbeat(message.heartbeatMs, Math.max(message.heartbeatMs * 6, 30_000));
      log(`connected to ${options.url} as ${message.engineId}${compatibility.warning ? ` (${compatibility.warning})` : ''}`);
    }

    function onLoad(message: LoadMessage): void {
      if (running) throw new ProtocolError('unexpected', `"load" for ${message.levelId} while run ${running.runId} is still running`);
      const abort = new AbortController();
      const current = { runId: message.runId, abort };
      running = current;
      const runId = message.runId;
      let steps = 0;
      let bodies = 0;
      let events = 0;
      const sink: LevelSink = {
        loaded: (b, dt) => {
          bodies = b.length;
          socket.send({ type: 'loaded', runId, dt, bodies: b });
        },
        frames: (batch) => {
          steps = batch.firstStep + batch.stepCount - 1;
          socket.send({ type: 'frames', runId, batch });
        },
        events: (list) => {
          events += list.length;
          socket.send({ type: 'events', runId, events: list });
        },
        capture: (result) => socket.send(result.raw ? { type: 'capture', runId, png: result.png, raw: result.raw } : { type: 'capture', runId, png: result.png }),
      };
      const started = Date.now();
      const job = { levelId: message.levelId, xml: message.xml, settings: message.settings };
      options.engine.run(job, sink, abort.signal).then(
        () => {
          if (running === current) running = undefined;
          stats.levelsRun += 1;
          if (abort.signal.aborted) {
            socket.send({ type: 'error', runId, levelId: job.levelId, phase: 'cancelled', fault: 'engine', message: 'cancelled' });
            return;
          }
          socket.send({ type: 'done', runId, summary: { steps, bodies, events, elapsedMs: Date.now() - started } });
        },
        (error: unknown) => {
          if (running === current) running = undefined;
          const levelFault = (error as { levelError?: unknown } | null)?.levelError === true;
          const sbPhase = error instanceof SbevalError ? error.phase : undefined;
          // A level error is `load` unless the engine found it while simulating (the simulation budget).
          const phase: ErrorPhase = abort.signal.aborted ? 'cancelled' : levelFault ? (sbPhase === 'simulate' ? 'simulate' : 'load') : sbPhase === 'capture' ? 'capture' : 'simulate';
          socket.send({
            type: 'error',
            runId,
            levelId: job.levelId,
            phase,
            fault: levelFault ? 'level' : 'engine',
            // A level error's text is the level's recorded reason: the engine's message as is.
            message: levelFault && error instanceof Error ? error.message : describeError(error),
            ...(error instanceof SbevalError && error.hint ? { hint: error.hint } : {}),
          });
        },
      );
    }
  });
}
