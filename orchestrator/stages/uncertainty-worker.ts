import { parentPort } from 'node:worker_threads';
import { sampleBootstrap } from '../../scoring/uncertainty/bootstrap.js';
import { samplesBuffers, type FromSampler, type ToSampler } from './uncertainty-thread.js';

/** The bootstrap's worker thread (uncertainty-thread.ts): per job the model in, the samples out, once; it waits for the next job. */
const port = parentPort;
if (!port) throw new Error('uncertainty-worker.ts must run in a worker thread');

port.on('message', ({ id, model, options }: ToSampler) => {
  try {
    const samples = sampleBootstrap(model, options);
    port.postMessage({ id, type: 'done', samples } satisfies FromSampler, samplesBuffers(samples));
  } catch (error) {
    port.postMessage({ id, type: 'failed', message: error instanceof Error ? error.message : String(error) } satisfies FromSampler);
  }
});
