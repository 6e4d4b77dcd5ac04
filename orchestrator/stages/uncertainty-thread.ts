import type { Worker } from 'node:worker_threads';
import { siblingModule, startModuleWorker } from '../../core/node-entry.js';
import type { SampleOptions, Samples } from '../../scoring/uncertainty/bootstrap.js';
import type { UncertaintyModel } from '../../scoring/uncertainty/model.js';

/**
 * The bootstrap's resamples in a worker thread (uncertainty-worker.ts), so that they are drawn and
 * scored while the official scoring and its files are written in this thread (uncertainty.ts). One
 * thread per process, kept between bootstraps: `prestartSampler` starts it while the command still
 * reads the folder (a fresh isolate and the bootstrap's modules cost 50–90 ms), and a second
 * bootstrap in the same process finds its code already compiled. Each job sends the model and the
 * options and gets the samples back once (their buffers transferred, not copied). An idle thread does
 * not keep the process alive.
 */
export interface SamplerStart {
  model: UncertaintyModel;
  options: SampleOptions;
}

export type ToSampler = SamplerStart & { id: number };
export type FromSampler = { id: number; type: 'done'; samples: Samples } | { id: number; type: 'failed'; message: string };

export interface ThreadedSamples {
  samples: Promise<Samples>;
  /** Stops the thread (the caller will not wait for its samples); the next bootstrap starts another. */
  cancel(): void;
}

const WORKER_MODULE = siblingModule(import.meta.url, './uncertainty-worker.js');

/** Every buffer of the samples, to transfer them. */
export function samplesBuffers(samples: Samples): ArrayBuffer[] {
  const rankings = [samples.overall, ...(samples.perCompetition ?? [])];
  const arrays = [...samples.character, ...rankings.flatMap((r) => [...r.prompt, ...r.normalized, r.rankCounts, r.winCounts])];
  return [...new Set(arrays.map((a) => a.buffer as ArrayBuffer))];
}

interface Job {
  resolve(samples: Samples): void;
  reject(error: Error): void;
}

/** The thread and the jobs it owes an answer. */
class Sampler {
  private readonly worker: Worker = startModuleWorker(WORKER_MODULE);
  private readonly jobs = new Map<number, Job>();
  private next = 0;

  constructor() {
    this.worker.on('message', (message: FromSampler) => {
      const job = this.jobs.get(message.id);
      this.jobs.delete(message.id);
      if (this.jobs.size === 0) this.worker.unref();
      if (message.type === 'done') job?.resolve(message.samples);
      else job?.reject(new Error(`the bootstrap's worker thread failed: ${message.message}`));
    });
    this.worker.once('error', (error) => this.end(error));
    this.worker.once('exit', (code) => this.end(new Error(`the bootstrap's worker thread ended (code ${code}) before its samples`)));
    // After the listeners: adding a 'message' listener refs the worker's port again, and a thread started
    // ahead of a bootstrap that then runs in this thread (a small folder) would keep the process alive.
    this.worker.unref();
  }

  run(start: SamplerStart): Promise<Samples> {
    const id = this.next++;
    const samples = new Promise<Samples>((resolve, reject) => this.jobs.set(id, { resolve, reject }));
    // While a job runs, the process waits for it.
    this.worker.ref();
    this.worker.postMessage({ id, ...start } satisfies ToSampler);
    return samples;
  }

  /** Stops the thread; the next bootstrap starts another (at once: this one is forgotten now). */
  stop(): void {
    if (sampler === this) sampler = undefined;
    void this.worker.terminate();
  }

  /** The thread is gone: every job it owed fails (their callers bootstrap in their own thread). */
  private end(error: Error): void {
    if (sampler === this) sampler = undefined;
    for (const job of this.jobs.values()) job.reject(error);
    this.jobs.clear();
  }
}

let sampler: Sampler | undefined;

/** Starts the thread ahead of the first bootstrap (a command that will score a large folder). */
export function prestartSampler(): void {
  sampler ??= new Sampler();
}

/**
 * The model as the resamples read it: the packed arrays without each letter's cells (views into the
 * same arrays, which the resamples never read), so that copying it into the thread costs a fraction
 * (measured: 0.5–0.7 ms to serialise instead of 4–5 ms, on a 10-team × 26-letter × 10-trial folder).
 */
function packedOnly(model: UncertaintyModel): UncertaintyModel {
  return { ...model, competitions: model.competitions.map((c) => ({ ...c, letters: [] })) };
}

export function sampleInThread(start: SamplerStart): ThreadedSamples {
  const thread = (sampler ??= new Sampler());
  const samples = thread.run({ ...start, model: packedOnly(start.model) });
  // Awaited by whoever finishes the bootstrap; a cancelled one is never awaited, and must not count as unhandled.
  samples.catch(() => undefined);
  return { samples, cancel: () => thread.stop() };
}
