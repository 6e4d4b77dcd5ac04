import type { Worker } from 'node:worker_threads';
import { SbevalError } from '../../core/errors.js';
import { siblingModule, startModuleWorker } from '../../core/node-entry.js';
import { pngToModelInput } from '../../scoring/similarity/prepare.js';
import type { PreprocessorConfig } from '../../scoring/similarity/preprocess.js';
import type { FromPrepareWorker, ToPrepareWorker } from './prepare-protocol.js';

/**
 * PNG decode + resize + normalisation off the main thread, so images are prepared while the ONNX session
 * runs (onnxruntime's own threads do the inference; the main thread only hands buffers around).
 *
 * Jobs go to the worker with the fewest in flight. A worker that dies is replaced and its jobs are
 * given to the others once more; a job that meets a second death fails with the reason (it may be the
 * image that kills the decoder). `workers: 0` prepares in this thread (tests, a handful of images).
 */
export class PreprocessError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PreprocessError';
  }
}

interface Job {
  id: number;
  png: Uint8Array;
  config: PreprocessorConfig;
  attempts: number;
  resolve: (tensor: Float32Array) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  jobs: Map<number, Job>;
  dead: boolean;
}

const WORKER_MODULE = siblingModule(import.meta.url, './prepare-worker.js');

export class PreparePool {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closed = false;
  /** Images prepared (successfully or not) since the pool started. */
  prepared = 0;

  private constructor(readonly workers: number) {}

  static async start(workers: number): Promise<PreparePool> {
    if (!Number.isInteger(workers) || workers < 0) throw new SbevalError('config', `preprocessing workers must be a non-negative integer, got ${workers}`);
    const pool = new PreparePool(workers);
    for (let i = 0; i < workers; i++) pool.slots.push(pool.spawn());
    try {
      await Promise.all(pool.slots.map((s) => s.ready));
    } catch (error) {
      await pool.close();
      throw new SbevalError('launch', `preprocessing worker failed to start: ${(error as Error).message}`);
    }
    return pool;
  }

  private spawn(): Slot {
    const worker = startModuleWorker(WORKER_MODULE);
    const slot: Slot = { worker, jobs: new Map(), dead: false, ready: Promise.resolve() };
    slot.ready = new Promise<void>((resolve, reject) => {
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`exited with code ${code} before it was ready`)));
      const onReady = (message: FromPrepareWorker) => {
        if (message.type !== 'ready') return;
        worker.off('message', onReady);
        // An idle pool must not keep the process alive; a busy one must (dispatch refs it).
        if (slot.jobs.size === 0) worker.unref();
        resolve();
      };
      worker.on('message', onReady);
    });
    slot.ready.catch(() => undefined);
    worker.on('message', (message: FromPrepareWorker) => {
      if (message.type === 'ready') return;
      const job = slot.jobs.get(message.id);
      if (!job) return;
      slot.jobs.delete(message.id);
      if (slot.jobs.size === 0) worker.unref();
      this.prepared += 1;
      if (message.type === 'done') job.resolve(message.tensor);
      else job.reject(new PreprocessError(message.message));
    });
    worker.on('error', (error) => this.onDeath(slot, `crashed: ${error.message}`));
    worker.on('exit', (code) => this.onDeath(slot, `exited with code ${code}`));
    return slot;
  }

  private onDeath(slot: Slot, reason: string): void {
    if (slot.dead) return;
    slot.dead = true;
    const orphans = [...slot.jobs.values()];
    slot.jobs.clear();
    const index = this.slots.indexOf(slot);
    if (this.closed) {
      for (const job of orphans) job.reject(new PreprocessError('the preprocessing pool closed'));
      return;
    }
    if (index >= 0) this.slots[index] = this.spawn();
    for (const job of orphans) {
      if (job.attempts >= 2) job.reject(new PreprocessError(`the preprocessing worker ${reason} while decoding this image (twice)`));
      else this.dispatch(job);
    }
  }

  /** The worker threads now running (diagnostics and tests). */
  threads(): Worker[] {
    return this.slots.filter((s) => !s.dead).map((s) => s.worker);
  }

  /** The model input of one PNG; rejects with the decoder's reason for an unreadable image. */
  prepare(png: Uint8Array, config: PreprocessorConfig): Promise<Float32Array> {
    if (this.closed) return Promise.reject(new PreprocessError('the preprocessing pool is closed'));
    if (this.workers === 0) {
      const done = pngToModelInput(png, config);
      done.then(
        () => (this.prepared += 1),
        () => (this.prepared += 1),
      );
      return done;
    }
    return new Promise<Float32Array>((resolve, reject) => {
      this.dispatch({ id: this.nextId++, png, config, attempts: 0, resolve, reject });
    });
  }

  private dispatch(job: Job): void {
    let best: Slot | undefined;
    for (const slot of this.slots) if (!slot.dead && (!best || slot.jobs.size < best.jobs.size)) best = slot;
    if (!best) {
      job.reject(new PreprocessError('no preprocessing worker is running'));
      return;
    }
    job.attempts += 1;
    best.jobs.set(job.id, job);
    best.worker.ref();
    // A copy is transferred: the caller's buffer may be shared (Node's pooled Buffers) and a retry needs the bytes.
    // (`new Uint8Array(x)` copies; a Buffer's `slice` would be a view of the same memory.)
    const png = new Uint8Array(job.png);
    best.worker.postMessage({ id: job.id, png, config: job.config } satisfies ToPrepareWorker, [png.buffer as ArrayBuffer]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(
      this.slots.map(async (slot) => {
        for (const job of slot.jobs.values()) job.reject(new PreprocessError('the preprocessing pool closed'));
        slot.jobs.clear();
        slot.dead = true;
        await slot.worker.terminate();
      }),
    );
  }
}
