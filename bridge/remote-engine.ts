import { describeError, SbevalError } from '../core/errors.js';
import type { Engine, EngineIdentity, LevelJob, LevelSink } from './engine.js';
import {
  type Capabilities,
  type CaptureMessage,
  CLOSE,
  captureResult,
  type DoneMessage,
  type ErrorMessage,
  type EventsMessage,
  type FramesMessage,
  type HelloMessage,
  type LoadedMessage,
  type Message,
  ProtocolError,
  type RunSummary,
} from './protocol.js';
import type { MessageSocket, SocketClose } from './remote-socket.js';

/**
 * An engine on the other end of a bridge connection (a `sbeval engine` worker, a Unity instance), seen
 * through the same `Engine` interface as the in-process headless engine. One run at a time; the
 * stream the engine sends is checked against the level lifecycle (PROTOCOL.md, "Session") before it
 * reaches the sink.
 */

/** The engine went away in the middle of a level: the level itself is fine, run it elsewhere. */
export class EngineLostError extends SbevalError {
  readonly retryable = true;
  readonly engineId: string;
  constructor(engineId: string, message: string, options?: { cause?: unknown }) {
    super('simulate', message, 'the level was not at fault; it can run again on another engine', options);
    this.name = 'EngineLostError';
    this.engineId = engineId;
  }
}

/**
 * The engine reported an error for a level (`levelError` when it blames the level itself). A level
 * error's message is the engine's own text, as the in-process engine would give it: it becomes the
 * level's recorded reason, which must not depend on which engine ran the level (a resumed or re-routed
 * run writes the same files). Engine errors name the engine and the phase.
 */
export class RemoteRunError extends SbevalError {
  readonly levelError: boolean;
  readonly remotePhase: string;
  readonly engineId: string;
  constructor(engineId: string, levelId: string, message: ErrorMessage) {
    super(
      message.phase === 'capture' ? 'capture' : message.fault === 'level' ? (message.phase === 'simulate' ? 'simulate' : 'input') : 'simulate',
      message.fault === 'level'
        ? message.message
        : `engine ${engineId} failed level ${levelId} while ${PHASE_WORDS[message.phase] ?? message.phase}: ${message.message}`,
      message.hint,
    );
    this.engineId = engineId;
    this.name = 'RemoteRunError';
    this.levelError = message.fault === 'level';
    this.remotePhase = message.phase;
  }
}

const PHASE_WORDS: Record<string, string> = {
  load: 'loading it',
  simulate: 'simulating it',
  capture: 'rendering its capture',
  cancelled: 'cancelling it',
  internal: 'running it',
  protocol: 'talking to the orchestrator',
  handshake: 'connecting',
};

interface ActiveRun {
  runId: string;
  job: LevelJob;
  sink: LevelSink;
  resolve: () => void;
  reject: (error: unknown) => void;
  bodyCount: number | undefined;
  nextStep: number;
  events: number;
  captured: boolean;
  /** The caller gave up on this run (cancelled, sink failed): its messages are dropped until it ends. */
  abandoned: boolean;
  detach: () => void;
}

interface RemoteEngineInit {
  id: string;
  hello: HelloMessage;
  socket: MessageSocket;
  /** How long an abandoned run may take to end on the engine before the connection is dropped. */
  settleMs?: number;
}

let runCounter = 0;

export class RemoteEngine implements Engine {
  readonly id: string;
  readonly identity: EngineIdentity;
  readonly capabilities: Capabilities;
  /** The name the launcher gave the process, when it said. */
  readonly instance: string | undefined;
  /** The engine's protocol version. */
  readonly protocol: string;
  private readonly socket: MessageSocket;
  private readonly settleMs: number;
  private current: ActiveRun | undefined;
  private idleWaiters: Array<() => void> = [];
  private closeInfo: SocketClose | undefined;
  private readonly closedPromise: Promise<SocketClose>;
  private resolveClosed!: (close: SocketClose) => void;
  private closeRequested = false;
  runs = 0;

  constructor(init: RemoteEngineInit) {
    this.id = init.id;
    this.identity = { ...init.hello.engine };
    this.capabilities = { ...init.hello.capabilities, damageFormulas: [...init.hello.capabilities.damageFormulas] };
    this.instance = init.hello.instance;
    this.protocol = init.hello.protocol;
    this.socket = init.socket;
    this.settleMs = init.settleMs ?? 30_000;
    this.closedPromise = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  /** False once the connection is gone (the engine pool retires dead engines). */
  get alive(): boolean {
    return this.closeInfo === undefined && !this.closeRequested;
  }

  get busy(): boolean {
    return this.current !== undefined;
  }

  /** Resolves when the connection has closed, with the code and reason. */
  get closed(): Promise<SocketClose> {
    return this.closedPromise;
  }

  /** Called by the endpoint for every message after the handshake. */
  handle(message: Message): void {
    switch (message.type) {
      case 'loaded':
      case 'frames':
      case 'events':
      case 'capture':
      case 'done':
        this.onRunMessage(message);
        return;
      case 'error':
        this.onError(message);
        return;
      case 'bye':
        this.socket.close(CLOSE.normal, `engine said bye: ${message.reason}`);
        return;
      case 'hello':
        throw new ProtocolError('unexpected', 'a second "hello" on an established session');
      default:
        throw new ProtocolError('unexpected', `"${message.type}" is never sent by an engine`);
    }
  }

  /** Called by the endpoint when the connection closed. */
  handleClose(close: SocketClose): void {
    this.closeInfo = close;
    const run = this.current;
    if (run) {
      this.current = undefined;
      run.detach();
      const why = close.error ? describeError(close.error) : `connection closed (code ${close.code}${close.reason ? `: ${close.reason}` : ''})`;
      if (!run.abandoned) {
        run.reject(new EngineLostError(this.id, `engine ${this.id} was lost during level ${run.job.levelId}: ${why}`, { cause: close.error }));
      }
    }
    this.wakeIdle();
    this.resolveClosed(close);
  }

  async run(job: LevelJob, sink: LevelSink, signal?: AbortSignal): Promise<void> {
    await this.waitIdle();
    if (!this.alive) {
      const why = this.closeInfo ? `code ${this.closeInfo.code}${this.closeInfo.reason ? `: ${this.closeInfo.reason}` : ''}` : 'closed';
      throw new EngineLostError(this.id, `engine ${this.id} is not connected (${why})`);
    }
    if (signal?.aborted) throw new SbevalError('simulate', `level ${job.levelId} cancelled`);
    this.checkCapabilities(job);
    const runId = `${this.id}:${++runCounter}`;
    this.runs += 1;
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => this.abandon(new SbevalError('simulate', `level ${job.levelId} cancelled`));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.current = {
        runId,
        job,
        sink,
        resolve,
        reject,
        bodyCount: undefined,
        nextStep: 0,
        events: 0,
        captured: false,
        abandoned: false,
        detach: () => signal?.removeEventListener('abort', onAbort),
      };
      this.socket.send({ type: 'load', runId, levelId: job.levelId, xml: job.xml, settings: job.settings });
    });
  }

  /** Says bye and closes the connection (the engine process decides whether to exit or reconnect). */
  async close(reason = 'orchestrator closing'): Promise<void> {
    if (this.closeInfo) return;
    this.closeRequested = true;
    if (this.current && !this.current.abandoned)
      this.abandon(new EngineLostError(this.id, `engine ${this.id} was closed during level ${this.current.job.levelId}`));
    this.socket.send({ type: 'bye', reason });
    this.socket.close(CLOSE.normal, reason);
    await this.closedPromise;
  }

  private checkCapabilities(job: LevelJob): void {
    const caps = this.capabilities;
    const missing: string[] = [];
    if (!caps.frames) missing.push('frames');
    if (job.settings.capture && !caps.capture) missing.push('capture');
    if (job.settings.captureRaw && !caps.captureRaw) missing.push('captureRaw');
    if (caps.damageFormulas.length > 0 && !caps.damageFormulas.includes(job.settings.damage)) missing.push(`damage formula "${job.settings.damage}"`);
    if (missing.length > 0) {
      throw new SbevalError('simulate', `engine ${this.id} (${this.identity.kind}) cannot run level ${job.levelId}: it lacks ${missing.join(', ')}`);
    }
  }

  /** The caller no longer wants the current run: reject now, tell the engine, drop what it still sends. */
  private abandon(error: unknown): void {
    const run = this.current;
    if (!run || run.abandoned) return;
    run.abandoned = true;
    run.detach();
    run.reject(error);
    if (this.capabilities.cancel) this.socket.send({ type: 'cancel', runId: run.runId });
    const timer = setTimeout(() => {
      if (this.current === run) {
        this.socket.terminate(new ProtocolError('timeout', `engine ${this.id} did not end cancelled level ${run.job.levelId} within ${this.settleMs} ms`));
      }
    }, this.settleMs);
    timer.unref();
  }

  private finish(run: ActiveRun, outcome: { error?: unknown }): void {
    if (this.current !== run) return;
    this.current = undefined;
    run.detach();
    if (!run.abandoned) {
      if (outcome.error !== undefined) run.reject(outcome.error);
      else run.resolve();
    }
    this.wakeIdle();
  }

  private onRunMessage(message: LoadedMessage | FramesMessage | EventsMessage | CaptureMessage | DoneMessage): void {
    const run = this.current;
    if (!run || message.runId !== run.runId) {
      throw new ProtocolError('unexpected', `"${message.type}" for run "${message.runId}", which is not running`);
    }
    if (run.abandoned) {
      if (message.type === 'done') this.finish(run, {});
      return;
    }
    const level = run.job.levelId;
    try {
      switch (message.type) {
        case 'loaded':
          if (run.bodyCount !== undefined) throw new ProtocolError('unexpected', `second "loaded" for level ${level}`);
          run.bodyCount = message.bodies.length;
          run.sink.loaded(message.bodies, message.dt);
          return;
        case 'frames': {
          if (run.bodyCount === undefined) throw new ProtocolError('unexpected', `"frames" before "loaded" for level ${level}`);
          const b = message.batch;
          if (b.bodyCount !== run.bodyCount) throw new ProtocolError('malformed', `"frames" for ${b.bodyCount} bodies, "loaded" announced ${run.bodyCount}`);
          if (b.firstStep !== run.nextStep) throw new ProtocolError('malformed', `"frames" start at step ${b.firstStep}, expected ${run.nextStep}`);
          run.nextStep += b.stepCount;
          run.sink.frames(b);
          return;
        }
        case 'events':
          if (run.bodyCount === undefined) throw new ProtocolError('unexpected', `"events" before "loaded" for level ${level}`);
          run.events += message.events.length;
          run.sink.events(message.events);
          return;
        case 'capture':
          if (run.bodyCount === undefined) throw new ProtocolError('unexpected', `"capture" before "loaded" for level ${level}`);
          if (!run.job.settings.capture) throw new ProtocolError('unexpected', `"capture" for level ${level}, which did not ask for one`);
          if (run.captured) throw new ProtocolError('unexpected', `second "capture" for level ${level}`);
          run.captured = true;
          run.sink.capture(captureResult(message));
          return;
        case 'done':
          this.onDone(run, message.summary);
          return;
      }
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      // The sink refused the stream (a consumer's check): this run is over, the engine is fine.
      this.abandon(error);
    }
  }

  private onDone(run: ActiveRun, summary: RunSummary): void {
    if (run.bodyCount === undefined) throw new ProtocolError('unexpected', `"done" before "loaded" for level ${run.job.levelId}`);
    if (run.job.settings.capture && !run.captured) {
      throw new ProtocolError('unexpected', `"done" without the capture level ${run.job.levelId} asked for`);
    }
    // The summary must tell what was streamed: an engine that lies about its own run is not trusted.
    const streamed = { steps: run.nextStep - 1, bodies: run.bodyCount, events: run.events };
    if (summary.steps !== streamed.steps || summary.bodies !== streamed.bodies || summary.events !== streamed.events) {
      throw new ProtocolError(
        'malformed',
        `"done" summary says ${summary.steps} steps, ${summary.bodies} bodies, ${summary.events} events; the run streamed ${streamed.steps}, ${streamed.bodies}, ${streamed.events}`,
      );
    }
    this.finish(run, {});
  }

  private onError(message: ErrorMessage): void {
    const run = this.current;
    if (message.runId === undefined) {
      // An error about the session, not a level: the engine is about to close the connection.
      if (run && !run.abandoned) {
        this.current = undefined;
        run.detach();
        run.reject(new EngineLostError(this.id, `engine ${this.id} failed during level ${run.job.levelId} (${message.phase}): ${message.message}`));
        this.wakeIdle();
      }
      return;
    }
    if (!run || message.runId !== run.runId) {
      throw new ProtocolError('unexpected', `"error" for run "${message.runId}", which is not running`);
    }
    if (message.levelId !== undefined && message.levelId !== run.job.levelId) {
      throw new ProtocolError(
        'unexpected',
        `"error" of run "${message.runId}" names level "${message.levelId.slice(0, 100)}", the run is level "${run.job.levelId}"`,
      );
    }
    this.finish(run, { error: new RemoteRunError(this.id, run.job.levelId, message) });
  }

  private waitIdle(): Promise<void> {
    if (!this.current) return Promise.resolve();
    if (!this.current.abandoned) {
      return Promise.reject(new SbevalError('simulate', `engine ${this.id} is busy with level ${this.current.job.levelId}`));
    }
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }
}
