import { siblingModule, startModuleWorker } from '../../core/node-entry.js';
import type { SampleOptions, Samples } from '../../scoring/uncertainty/bootstrap.js';
import type { UncertaintyModel } from '../../scoring/uncertainty/model.js';

/**
 * The bootstrap's resamples in a worker thread (uncertainty-worker.ts), so that they are drawn and
 * scored while the official scoring and its files are written in this thread (uncertainty.ts). The
 * worker gets the model and the options as it starts, sends the samples back once (their buffers
 * transferred, not copied) and ends.
 */
export interface SamplerStart {
  model: UncertaintyModel;
  options: SampleOptions;
}

export type FromSampler = { type: 'done'; samples: Samples } | { type: 'failed'; message: string };

export interface ThreadedSamples {
  samples: Promise<Samples>;
  /** Stops the worker (the caller will not wait for its samples). */
  cancel(): void;
}

const WORKER_MODULE = siblingModule(import.meta.url, './uncertainty-worker.js');

/** Every buffer of the samples, to transfer them. */
export function samplesBuffers(samples: Samples): ArrayBuffer[] {
  const rankings = [samples.overall, ...(samples.perCompetition ?? [])];
  const arrays = [...samples.character, ...rankings.flatMap((r) => [...r.prompt, ...r.normalized, r.rankCounts, r.winCounts])];
  return [...new Set(arrays.map((a) => a.buffer as ArrayBuffer))];
}

export function sampleInThread(start: SamplerStart): ThreadedSamples {
  const worker = startModuleWorker(WORKER_MODULE, { workerData: start });
  let answered = false;
  const samples = new Promise<Samples>((resolve, reject) => {
    worker.once('message', (message: FromSampler) => {
      answered = true;
      if (message.type === 'done') resolve(message.samples);
      else reject(new Error(`the bootstrap's worker thread failed: ${message.message}`));
    });
    worker.once('error', (error) => {
      answered = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the bootstrap's worker thread ended (code ${code}) before its samples`));
    });
  });
  // Awaited by whoever finishes the bootstrap; a cancelled one is never awaited, and must not count as unhandled.
  samples.catch(() => undefined);
  return { samples, cancel: () => void worker.terminate() };
}
