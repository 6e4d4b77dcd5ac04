import { parentPort } from 'node:worker_threads';
import { invariant } from '../../core/invariant.js';
import { lowerThreadPriority } from '../../core/thread-priority.js';
import { sampleBootstrap } from '../../scoring/uncertainty/bootstrap.js';
import { type FromSampler, samplesBuffers, type ToSampler } from './uncertainty-thread.js';

/** The bootstrap's worker thread (uncertainty-thread.ts): per job the model in, the samples out, once; it waits for the next job. */
const port = parentPort;
invariant(port, 'uncertainty-worker.ts must run in a worker thread');

/**
 * The resamples run beside the command's own work (reading, checking and scoring the folder), which
 * must not wait for them: at nice 10 this thread yields a busy core to the main thread and to V8's
 * helper threads (its compiler and garbage collector), and takes what they leave. Measured on 2
 * cores, `sbeval score` on a folder without images, bootstrap on / off: 1.105 and 1.114 at the
 * process's priority, 1.082 and 1.090 at nice 10, 1.107 and 1.098 at 19 (two runs of 15 and 25
 * alternating rounds, medians; docs/uncertainty.md "Cost"). A small gain: most of what the thread
 * costs the command is the machine's, two busy cores slowing each other.
 */
const NICE = 10;
lowerThreadPriority(NICE);

port.on('message', ({ id, model, options }: ToSampler) => {
  try {
    const samples = sampleBootstrap(model, options);
    port.postMessage({ id, type: 'done', samples } satisfies FromSampler, samplesBuffers(samples));
  } catch (error) {
    port.postMessage({ id, type: 'failed', message: error instanceof Error ? error.message : String(error) } satisfies FromSampler);
  }
});
