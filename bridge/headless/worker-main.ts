import { parentPort, workerData } from 'node:worker_threads';
import { SbevalError } from '../../core/errors.js';
import { HeadlessEngine, type HeadlessEngineOptions } from './engine.js';
import { useIslandSolver } from './solver.js';
import type { FromWorker, ToWorker } from './worker-protocol.js';

/**
 * The headless engine inside a worker thread: runs one job at a time and posts the stream back.
 * Frame buffers are transferred, not copied.
 */
const port = parentPort;
if (!port) throw new Error('worker-main.ts must run in a worker thread');

const options = (workerData ?? {}) as HeadlessEngineOptions;
// planck's own island solver for an engine without the shortcuts (this thread's planck is its own).
if (options.shortcuts === false) useIslandSolver('planck');
const engine = new HeadlessEngine(`headless-worker-${process.pid}`, options);

function post(message: FromWorker, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(message, transfer);
}

// A trial is synchronous inside (milliseconds), so there is nothing to cancel here: the main thread
// abandons a cancelled run and ignores its late messages.
port.on('message', (message: ToWorker) => {
  const { runId, job } = message;
  engine
    .run(
      job,
      {
        loaded: (bodies, dt) => post({ type: 'loaded', runId, bodies, dt }),
        frames: (batch) => post({ type: 'frames', runId, batch }, [batch.states.buffer as ArrayBuffer, batch.alive.buffer as ArrayBuffer]),
        events: (events) => post({ type: 'events', runId, events }),
        capture: (result) => post({ type: 'capture', runId, png: result.png, ...(result.raw ? { raw: result.raw } : {}) }),
      },
    )
    .then(
      () => post({ type: 'done', runId }),
      (error: unknown) => {
        const levelError = typeof error === 'object' && error !== null && (error as { levelError?: unknown }).levelError === true;
        const phase = error instanceof SbevalError ? error.phase : 'simulate';
        post({ type: 'error', runId, message: error instanceof Error ? error.message : String(error), phase, levelError });
      },
    );
});

post({ type: 'ready' });
