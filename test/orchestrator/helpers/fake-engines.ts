import type { Engine, EngineIdentity, LevelJob, LevelSink } from '../../../bridge/engine.js';
import { FIELD_COUNT, type BodyInfo } from '../../../bridge/frames.js';

/**
 * In-process fake engines for the pool's unit tests (the pool only sees the `Engine` interface; the
 * remote-engine versions of these misbehaviours run over real sockets in the run tests).
 * Each fake follows a script: behaviour number k applies to the k-th job it receives, the last one repeats.
 */
export type Behaviour =
  | 'ok'
  /** Streams part of the level, then rejects as a crashed engine would. */
  | 'die'
  /** Streams part of the level, then goes silent and ignores its abort signal. */
  | 'stall'
  /** Keeps streaming progress forever (never finishes), honouring abort. */
  | 'endless'
  | 'garbage-order'
  | 'garbage-shape'
  | 'garbage-nan'
  | 'garbage-gap'
  | 'garbage-png'
  | 'garbage-no-capture'
  /** Rejects at once with an error marked as a level error. */
  | 'level-error'
  /** Waits for its abort signal and rejects when it arrives. */
  | 'wait-abort';

/** A real 1×1 PNG (signature + IHDR + IDAT + IEND), enough for the stream guard's signature check. */
export const TINY_PNG = Uint8Array.from(
  Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==', 'base64'),
);

export const BODIES: BodyInfo[] = [0, 1, 2].map((id) => ({ id, kind: 'block', type: 'RectSmall', material: 'wood', counted: true, x: id, y: 0, angle: 0 }));

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

export function batch(firstStep: number, stepCount: number, bodyCount = BODIES.length, fill = 1) {
  return {
    firstStep,
    stepCount,
    bodyCount,
    states: new Float32Array(stepCount * bodyCount * FIELD_COUNT).fill(fill),
    alive: new Uint8Array(stepCount * bodyCount).fill(1),
  };
}

export class FakeEngine implements Engine {
  readonly identity: EngineIdentity = { kind: 'fake', description: 'test double', version: '0' };
  readonly jobs: string[] = [];
  closeCalls = 0;
  aborts = 0;
  alive = true;

  constructor(
    readonly id: string,
    private readonly script: Behaviour[] = ['ok'],
    /** Total steps streamed per trial, in batches of `perBatch`. */
    private readonly steps = 20,
    private readonly perBatch = 5,
  ) {}

  async run(job: LevelJob, sink: LevelSink, signal?: AbortSignal): Promise<void> {
    const behaviour = this.script[Math.min(this.jobs.length, this.script.length - 1)] ?? 'ok';
    this.jobs.push(job.levelId);
    signal?.addEventListener('abort', () => (this.aborts += 1), { once: true });
    if (behaviour === 'level-error') throw Object.assign(new Error(`${job.levelId}: unknown block type`), { levelError: true });
    if (behaviour === 'wait-abort') {
      await new Promise<void>((_, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
    }
    if (behaviour === 'garbage-order') {
      sink.frames(batch(0, this.perBatch));
      return;
    }
    await tick();
    sink.loaded(BODIES, 0.02);
    for (let first = 0; first < this.steps || behaviour === 'endless'; first += this.perBatch) {
      await tick();
      if (signal?.aborted) throw new Error('aborted');
      if (first >= this.perBatch && behaviour === 'die') throw new Error('connection lost');
      if (first >= this.perBatch && behaviour === 'stall') return new Promise<void>(() => {});
      if (first >= this.perBatch && behaviour === 'garbage-shape') sink.frames(batch(first, this.perBatch, BODIES.length + 1));
      else if (first >= this.perBatch && behaviour === 'garbage-nan') sink.frames(batch(first, this.perBatch, BODIES.length, Number.NaN));
      else if (first >= this.perBatch && behaviour === 'garbage-gap') sink.frames(batch(first + 1, this.perBatch));
      else sink.frames(batch(first, this.perBatch));
      sink.events([{ kind: 'contact', step: first + 1, a: 0, b: -1, relativeSpeed: 0.5 }]);
      if (behaviour === 'endless') await new Promise((resolve) => setTimeout(resolve, 5));
    }
    if (job.settings.capture && behaviour !== 'garbage-no-capture') {
      sink.capture({ png: behaviour === 'garbage-png' ? new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9]) : TINY_PNG });
    }
  }

  async close(): Promise<void> {
    this.closeCalls += 1;
    this.alive = false;
  }
}

/** A sink that records what reached it, to check exactly-once delivery. */
export class RecordingSink implements LevelSink {
  loadedCalls = 0;
  steps: number[] = [];
  eventCalls = 0;
  captures = 0;
  loaded(): void {
    this.loadedCalls += 1;
  }
  frames(batch: { firstStep: number; stepCount: number }): void {
    for (let s = 0; s < batch.stepCount; s += 1) this.steps.push(batch.firstStep + s);
  }
  events(): void {
    this.eventCalls += 1;
  }
  capture(): void {
    this.captures += 1;
  }
}
