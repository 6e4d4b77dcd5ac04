import { parentPort, workerData } from 'node:worker_threads';
import { sampleBootstrap } from '../../scoring/uncertainty/bootstrap.js';
import { samplesBuffers, type FromSampler, type SamplerStart } from './uncertainty-thread.js';

/** The bootstrap's worker thread (uncertainty-thread.ts): the model in, the samples out, once. */
const port = parentPort;
if (!port) throw new Error('uncertainty-worker.ts must run in a worker thread');

const { model, options } = workerData as SamplerStart;
try {
  const samples = sampleBootstrap(model, options);
  port.postMessage({ type: 'done', samples } satisfies FromSampler, samplesBuffers(samples));
} catch (error) {
  port.postMessage({ type: 'failed', message: error instanceof Error ? error.message : String(error) } satisfies FromSampler);
}
