import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { SbevalError } from '../../core/errors.js';
import { nodeArgsFor, siblingModule } from '../../core/node-entry.js';
import type { Engine, EngineIdentity, LevelJob, LevelSink } from '../engine.js';
import { type HeadlessEngineOptions, headlessIdentity } from './engine.js';
import { batchBuffers } from './frame-memory.js';
import { LevelLoadError } from './load-level.js';
import type { FromWorker, RunMessage, ToWorker } from './worker-protocol.js';

/**
 * The headless engine in a worker thread, so levels run in parallel over cores (one WorkerEngine per
 * core, handed jobs by the engine pool). Works from the TypeScript sources (the worker gets tsx's
 * loader) and from dist/. A worker that dies fails every run it holds with an engine error and
 * reports `alive === false`, so the pool retires it and requeues the jobs.
 *
 * Pipelined: it accepts up to `capacity` runs at once (default 2). The worker thread runs them one
 * after the other in the order they were handed over, so it starts the next trial the moment one
 * ends instead of waiting for the main thread to take in the result and send the next job (with
 * strict one-at-a-time hand-over the worker sat idle ~17 % of the time, `npm run bench --
 * simulate-scaling`). Messages carry the run's id, so each stream reaches its own sink.
 */
interface Running {
  runId: number;
  sink: LevelSink;
  resolve: () => void;
  reject: (error: Error) => void;
}

let nextEngine = 0;

/** Runs held at once: one running, one waiting in the worker (more buys nothing, the thread runs one at a time). */
const WORKER_CAPACITY = 2;

interface WorkerEngineOptions {
  /** Runs the engine accepts at once (≥ 1, default WORKER_CAPACITY). */
  capacity?: number;
}

/**
 * From dist/ the worker runs worker-main.js directly. From the sources, Node 20 does not apply
 * `--import tsx` from a worker's execArgv before loading the worker's main module, so a tiny eval'd
 * bootstrap registers tsx's loader in the worker first and then imports worker-main.ts.
 */
function startWorker(moduleUrl: URL, workerData: HeadlessEngineOptions): Worker {
  const { execArgv, file } = nodeArgsFor(moduleUrl);
  if (execArgv.length === 0) return new Worker(file, { workerData });
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(pathToFileURL(file).href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}

export class WorkerEngine implements Engine {
  readonly id: string;
  readonly identity: EngineIdentity;
  readonly capacity: number;
  /** The headless engine in a thread of this process: its level faults are verdicts (bridge/engine.ts `ownRules`). */
  readonly ownRules = true;
  alive = true;
  private readonly worker: Worker;
  private readonly ready: Promise<void>;
  /** Runs handed to the worker and not yet settled, by run id (in hand-over order). */
  private readonly runs = new Map<number, Running>();
  private nextRun = 1;
  private closing = false;
  /** Frame buffers whose batches went to a sink that keeps none (`LevelSink.borrowsFrames`), to hand back. */
  private borrowed: ArrayBuffer[] = [];

  /** `options`: the in-thread engine's options (engine.ts), applied in the worker. */
  constructor(id?: string, options: HeadlessEngineOptions = {}, pipeline: WorkerEngineOptions = {}) {
    this.id = id ?? `headless-worker-${process.pid}-${nextEngine++}`;
    const capacity = pipeline.capacity ?? WORKER_CAPACITY;
    if (!(Number.isInteger(capacity) && capacity >= 1))
      throw new SbevalError('config', `a worker engine's capacity must be a whole number ≥ 1, got ${capacity}`);
    this.capacity = capacity;
    this.identity = headlessIdentity(' in a worker thread');
    this.worker = startWorker(siblingModule(import.meta.url, './worker-main.js'), options);
    this.ready = new Promise((resolve, reject) => {
      const onMessage = (message: FromWorker) => {
        if (message.type !== 'ready') return;
        this.worker.off('message', onMessage);
        resolve();
      };
      this.worker.on('message', onMessage);
      this.worker.once('error', reject);
      this.worker.once('exit', (code) => reject(new SbevalError('launch', `headless worker ${this.id} exited with code ${code} before it was ready`)));
    });
    this.ready.catch(() => undefined);
    this.worker.on('message', (message: FromWorker) => this.onMessage(message));
    this.worker.on('error', (error) => this.onDeath(`crashed: ${error.message}`));
    this.worker.on('exit', (code) => this.onDeath(`exited with code ${code}`));
  }

  /** Resolves once the worker has loaded the engine (rejects if it cannot start). */
  started(): Promise<void> {
    return this.ready;
  }

  /** Runs held now (running or waiting in the worker). */
  get inFlight(): number {
    return this.runs.size;
  }

  async run(job: LevelJob, sink: LevelSink, signal?: AbortSignal): Promise<void> {
    if (!this.alive) throw new SbevalError('simulate', `headless worker ${this.id} is not running`);
    await this.ready;
    if (!this.alive) throw new SbevalError('simulate', `headless worker ${this.id} is not running`);
    if (this.runs.size >= this.capacity) throw new SbevalError('simulate', `headless worker ${this.id} already holds ${this.runs.size} level(s), its capacity`);
    if (signal?.aborted) throw new SbevalError('simulate', `level ${job.levelId} cancelled`);
    const runId = this.nextRun++;
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        if (!this.runs.delete(runId)) return;
        // Still queued in the worker: it is dropped there. Already running: it finishes and its late
        // messages are ignored (no entry any more).
        this.worker.postMessage({ type: 'cancel', runId } satisfies ToWorker);
        reject(new SbevalError('simulate', `level ${job.levelId} cancelled`));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => signal?.removeEventListener('abort', onAbort);
      this.runs.set(runId, {
        runId,
        sink,
        resolve: () => {
          done();
          resolve();
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      this.worker.postMessage({ type: 'run', runId, job } satisfies ToWorker);
    });
  }

  private onMessage(message: FromWorker): void {
    if (message.type === 'ready') return;
    if (message.type === 'batch') {
      for (const inner of message.messages) this.onRunMessage(inner);
    } else {
      this.onRunMessage(message);
    }
    this.recycleFrames();
  }

  /**
   * Hands the borrowed batches' buffers back to the worker, which reuses them for later batches
   * (frame-memory.ts: a fresh transferred buffer per batch costs this thread full garbage collections).
   * Transferring detaches them here, so a batch kept against the contract would read as empty, not as
   * another trial's frames.
   */
  private recycleFrames(): void {
    if (this.borrowed.length === 0) return;
    const buffers = this.borrowed;
    this.borrowed = [];
    if (this.alive && !this.closing) this.worker.postMessage({ type: 'recycle', buffers } satisfies ToWorker, buffers);
  }

  private onRunMessage(message: RunMessage): void {
    const running = this.runs.get(message.runId);
    if (!running) return; // a cancelled run's late messages
    try {
      switch (message.type) {
        case 'loaded':
          running.sink.loaded(message.bodies, message.dt);
          break;
        case 'frames':
          running.sink.frames(message.batch);
          if (running.sink.borrowsFrames === true) this.borrowed.push(...batchBuffers(message.batch));
          break;
        case 'events':
          running.sink.events(message.events);
          break;
        case 'capture':
          running.sink.capture(message.raw ? { png: message.png, raw: message.raw } : { png: message.png });
          break;
        case 'done':
          this.runs.delete(running.runId);
          running.resolve();
          break;
        case 'error':
          this.runs.delete(running.runId);
          running.reject(message.levelError ? new LevelLoadError(message.message) : new SbevalError(message.phase as SbevalError['phase'], message.message));
          break;
      }
    } catch (error) {
      // The sink threw: the run fails, the worker stays usable.
      this.runs.delete(running.runId);
      running.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** A dead worker fails every run it held, the running one and those waiting behind it. */
  private onDeath(reason: string): void {
    if (!this.alive) return;
    this.alive = false;
    const held = [...this.runs.values()];
    this.runs.clear();
    for (const running of held) {
      if (!this.closing) running.reject(new SbevalError('simulate', `headless worker ${this.id} ${reason}`));
      else running.reject(new SbevalError('shutdown', `headless worker ${this.id} closed`));
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    if (!this.alive) return;
    await this.worker.terminate();
    this.onDeath('closed');
  }
}

/** `count` engines in worker threads, once every one has loaded the engine; none is left running when one cannot start. */
export async function startWorkerEngines(count: number): Promise<WorkerEngine[]> {
  const engines = Array.from({ length: count }, () => new WorkerEngine());
  try {
    await Promise.all(engines.map((e) => e.started()));
  } catch (error) {
    await Promise.all(engines.map((e) => e.close()));
    throw new SbevalError('launch', `headless worker failed to start: ${(error as Error).message}`, undefined, { cause: error });
  }
  return engines;
}
