import type { LevelJob } from '../engine.js';
import type { BodyInfo, FrameBatch, SimEvent } from '../frames.js';

/**
 * Messages between a WorkerEngine (main thread) and its headless worker thread (structured clone).
 * The worker queues `run`s it receives while busy and runs them one at a time in arrival order;
 * `cancel` drops a queued run (a run already under way finishes, and the main thread ignores it).
 * `recycle` hands frame buffers back once their batches were read and dropped (frame-memory.ts).
 */
export type ToWorker = { type: 'run'; runId: number; job: LevelJob } | { type: 'cancel'; runId: number } | { type: 'recycle'; buffers: ArrayBuffer[] };

/** One call of a run's stream, or its end. */
export type RunMessage =
  | { type: 'loaded'; runId: number; bodies: BodyInfo[]; dt: number }
  | { type: 'frames'; runId: number; batch: FrameBatch }
  | { type: 'events'; runId: number; events: SimEvent[] }
  | { type: 'capture'; runId: number; png: Uint8Array; raw?: Uint8Array }
  | { type: 'done'; runId: number }
  | { type: 'error'; runId: number; message: string; phase: string; levelError: boolean };

/**
 * `batch`: several of one run's messages in order, in one postMessage (a whole evaluator trial is one:
 * every message costs the main thread a dispatch, worker-main.ts).
 */
export type FromWorker = { type: 'ready' } | RunMessage | { type: 'batch'; runId: number; messages: RunMessage[] };
