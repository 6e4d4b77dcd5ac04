import type { FrameBatch } from '../frames.js';

/**
 * Where a trial's frame batches get their arrays (run.ts). By default every batch gets new arrays. In a
 * worker thread the batches travel to the main thread as transferred ArrayBuffers, and a fresh buffer
 * per batch costs the receiving thread dearly: V8 counts each arriving buffer as new external memory
 * and starts a full mark-compact every few megabytes of it (`node --trace-gc` on the bench mix: ~50
 * main-thread mark-compacts per 1,000 levels, each 5–15 ms plus concurrent marking, for 0.2 MB of
 * frames per level). `RecycledFrameMemory` takes buffers the main thread handed back instead
 * (worker-engine.ts: only when the run's sink keeps no batch, `LevelSink.borrowsFrames`).
 */
export interface FrameMemory {
  /** Zeroed or not: run.ts writes every state and alive flag of a batch before handing it out. */
  take(states: number, alive: number): { states: Float32Array; alive: Uint8Array };
}

/** The buffers behind a batch's two arrays, each once (RecycledFrameMemory puts both in one): what to transfer or hand back. */
export function batchBuffers(batch: Pick<FrameBatch, 'states' | 'alive'>): ArrayBuffer[] {
  const states = batch.states.buffer as ArrayBuffer;
  const alive = batch.alive.buffer as ArrayBuffer;
  return states === alive ? [states] : [states, alive];
}

export const FRESH_FRAME_MEMORY: FrameMemory = {
  take: (states, alive) => ({ states: new Float32Array(states), alive: new Uint8Array(alive) }),
};

/** The smallest buffer handed out (a trial of a few bodies fits; sizes are powers of two above it, so buffers fit later batches). */
const MIN_BUFFER_BYTES = 64 * 1024;

/**
 * The largest buffer kept for reuse: a 515-step trial of ~680 bodies. A larger batch (a hostile level of
 * thousands of blocks) gets a buffer of its exact size that is let go afterwards, so the kept buffers
 * never hold more than `keep` × 8 MiB.
 */
export const MAX_KEPT_BUFFER_BYTES = 8 * 1024 * 1024;

/**
 * One ArrayBuffer per batch holding the states (float32) then the alive flags, taken from the buffers
 * handed back (`give`) when one is large enough, else new. Keeps at most `keep` buffers: a worker
 * holds 2 runs at a time, so a few are in flight at once.
 */
export class RecycledFrameMemory implements FrameMemory {
  private readonly free: ArrayBuffer[] = [];

  constructor(private readonly keep = 8) {}

  take(states: number, alive: number): { states: Float32Array; alive: Uint8Array } {
    const bytes = states * Float32Array.BYTES_PER_ELEMENT + alive;
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const size = (this.free[i] as ArrayBuffer).byteLength;
      if (size >= bytes && (best < 0 || size < (this.free[best] as ArrayBuffer).byteLength)) best = i;
    }
    const buffer = best >= 0 ? (this.free.splice(best, 1)[0] as ArrayBuffer) : new ArrayBuffer(bufferSize(bytes));
    return { states: new Float32Array(buffer, 0, states), alive: new Uint8Array(buffer, states * Float32Array.BYTES_PER_ELEMENT, alive) };
  }

  /** Buffers back from the main thread (their batches read and dropped there); the largest `keep` of at most MAX_KEPT_BUFFER_BYTES are kept. */
  give(buffers: readonly ArrayBuffer[]): void {
    for (const buffer of buffers) {
      if (buffer instanceof ArrayBuffer && buffer.byteLength > 0 && buffer.byteLength <= MAX_KEPT_BUFFER_BYTES) this.free.push(buffer);
    }
    if (this.free.length > this.keep) {
      this.free.sort((a, b) => b.byteLength - a.byteLength);
      this.free.length = this.keep;
    }
  }

  /** Buffers waiting to be taken (tests). */
  get size(): number {
    return this.free.length;
  }
}

function bufferSize(bytes: number): number {
  if (bytes > MAX_KEPT_BUFFER_BYTES) return bytes;
  let size = MIN_BUFFER_BYTES;
  while (size < bytes) size *= 2;
  return size;
}
