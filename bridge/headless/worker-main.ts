import { parentPort, workerData } from 'node:worker_threads';
import { SbevalError } from '../../core/errors.js';
import { invariant } from '../../core/invariant.js';
import type { LevelJob } from '../engine.js';
import { stepsToSimulate } from '../window.js';
import { HeadlessEngine, type HeadlessEngineOptions } from './engine.js';
import { batchBuffers, RecycledFrameMemory } from './frame-memory.js';
import { useIslandSolver } from './solver.js';
import type { FromWorker, RunMessage, ToWorker } from './worker-protocol.js';

/**
 * The headless engine inside a worker thread: runs one job at a time and posts the stream back.
 * Jobs that arrive while one runs wait in a queue (the WorkerEngine hands over the next job before
 * this one is done, so the thread never sits idle while the main thread digests a result). Frame
 * buffers are transferred, not copied, and come back (`recycle`) when the main thread's sink kept no
 * batch: frame-memory.ts says why.
 */
const port = parentPort;
invariant(port, 'worker-main.ts must run in a worker thread');

const options = (workerData ?? {}) as HeadlessEngineOptions;
// planck's own island solver for an engine without the shortcuts (this thread's planck is its own).
if (options.shortcuts === false) useIslandSolver('planck');
const frameMemory = new RecycledFrameMemory();
const engine = new HeadlessEngine(`headless-worker-${process.pid}`, { ...options, frameMemory });

function post(message: FromWorker, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(message, transfer);
}

/**
 * A whole evaluator trial (515 steps) in one frame batch: a thread-to-thread message costs about the
 * same whatever its size (the buffers are transferred), while every batch costs the main thread a
 * message, a stream-guard pass and a tracker call. The stream means the same (bridge/engine.ts
 * `LevelSink`: frames in step order, each batch's events before its frames; the stability tracker
 * only uses an event's step). Longer custom windows still stream in pieces of MAX_BATCH steps, so the
 * pool's progress watchdog keeps hearing from them.
 */
const MAX_BATCH = 1024;
function inFewBatches(job: LevelJob): LevelJob {
  const perBatch = Math.min(stepsToSimulate(job.settings) + 1, MAX_BATCH);
  return job.settings.framesPerBatch >= perBatch ? job : { ...job, settings: { ...job.settings, framesPerBatch: perBatch } };
}

const queue: Array<{ runId: number; job: LevelJob }> = [];
let busy = false;

/**
 * A run's messages wait here and go out together: at the end of the run, or — for a window longer
 * than MAX_BATCH steps — with the body table and each frame batch (so the pool's progress watchdog
 * hears from it as it goes).
 * An evaluator trial is one postMessage instead of five.
 */
class Outbox {
  private messages: RunMessage[] = [];
  private transfer: ArrayBuffer[] = [];
  constructor(
    private readonly runId: number,
    private readonly streaming: boolean,
  ) {}

  add(message: RunMessage, transfer: ArrayBuffer[] = []): void {
    this.messages.push(message);
    for (const buffer of transfer) this.transfer.push(buffer);
    if (this.streaming && (message.type === 'frames' || message.type === 'loaded')) this.flush();
  }

  flush(): void {
    if (this.messages.length === 0) return;
    const messages = this.messages;
    const transfer = this.transfer;
    this.messages = [];
    this.transfer = [];
    post(messages.length === 1 ? (messages[0] as RunMessage) : { type: 'batch', runId: this.runId, messages }, transfer);
  }
}

function runNext(): void {
  if (busy) return;
  const next = queue.shift();
  if (!next) return;
  busy = true;
  const runId = next.runId;
  const job = inFewBatches(next.job);
  const out = new Outbox(runId, stepsToSimulate(job.settings) + 1 > MAX_BATCH);
  // A trial is synchronous inside (milliseconds), so there is nothing to cancel once it runs: the main
  // thread abandons a cancelled run and ignores its late messages.
  engine
    .run(job, {
      loaded: (bodies, dt) => out.add({ type: 'loaded', runId, bodies, dt }),
      frames: (batch) => out.add({ type: 'frames', runId, batch }, batchBuffers(batch)),
      events: (events) => out.add({ type: 'events', runId, events }),
      capture: (result) => out.add({ type: 'capture', runId, png: result.png, ...(result.raw ? { raw: result.raw } : {}) }),
    })
    .then(
      () => out.add({ type: 'done', runId }),
      (error: unknown) => {
        const levelError = typeof error === 'object' && error !== null && (error as { levelError?: unknown }).levelError === true;
        const phase = error instanceof SbevalError ? error.phase : 'simulate';
        out.add({ type: 'error', runId, message: error instanceof Error ? error.message : String(error), phase, levelError });
      },
    )
    .finally(() => {
      out.flush();
      busy = false;
      runNext();
    });
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'recycle') {
    frameMemory.give(message.buffers);
    return;
  }
  if (message.type === 'cancel') {
    const index = queue.findIndex((q) => q.runId === message.runId);
    if (index >= 0) queue.splice(index, 1);
    return;
  }
  queue.push({ runId: message.runId, job: message.job });
  runNext();
});

post({ type: 'ready' });
