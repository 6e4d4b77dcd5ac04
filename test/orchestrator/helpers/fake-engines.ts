import { crc32, deflateSync } from 'node:zlib';
import type { Engine, EngineIdentity, LevelJob, LevelSink } from '../../../bridge/engine.js';
import { type BodyInfo, FIELD_COUNT } from '../../../bridge/frames.js';
import { renderFrameImage } from '../../../bridge/headless/frame-image.js';
import { encodeMaskPng } from '../../../bridge/headless/png.js';
import { evaluatorWindow, stepsToSimulate } from '../../../bridge/window.js';
import { parseLevelXml } from '../../../levels/xml-read.js';

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
  /** Streams the window, then keeps sending events forever (never finishes), honouring abort. */
  | 'endless'
  | 'garbage-order'
  | 'garbage-shape'
  | 'garbage-nan'
  | 'garbage-gap'
  | 'garbage-png'
  | 'garbage-no-capture'
  /** Lies about the level: a body table of another level (another block type). */
  | 'garbage-bodies'
  /** Sends the start positions at every step (did not simulate). */
  | 'garbage-frozen'
  /** Stops streaming well before the window ends (50 of 515 steps in the issue). */
  | 'garbage-short'
  /** A PNG signature and header followed by junk. */
  | 'garbage-png-junk'
  /** A real PNG, but 1 × 1. */
  | 'garbage-png-size'
  /** An event about a body the level does not have. */
  | 'garbage-event'
  /** Rejects at once with an error marked as a level error. */
  | 'level-error'
  /** Waits for its abort signal and rejects when it arrives. */
  | 'wait-abort';

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), 8 + data.length);
  return out;
}

/** A real white RGBA PNG of `size` × `size`, built by hand (signature, IHDR, IDAT, IEND). */
export function whitePng(size: number): Uint8Array {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  const row = Buffer.alloc(1 + size * 4, 255);
  row[0] = 0; // filter: none
  const pixels = Buffer.concat(Array.from({ length: size }, () => row));
  return Uint8Array.from(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      pngChunk('IHDR', header),
      pngChunk('IDAT', deflateSync(pixels)),
      pngChunk('IEND', Buffer.alloc(0)),
    ]),
  );
}

/** The evaluator-sized capture (1024²) the stream guard accepts, and a 1×1 one it does not. */
export const CAPTURE_PNG = whitePng(1024);
export const TINY_PNG = whitePng(1);

/** Three wood RectSmall at x = 0, 1, 2 on y = 0: the level every fake engine simulates. */
export const BODIES: BodyInfo[] = [0, 1, 2].map((id) => ({ id, kind: 'block', type: 'RectSmall', material: 'wood', counted: true, x: id, y: 0, angle: 0 }));

/** The level XML of `BODIES` (what jobs for fake engines carry, so the guard can check the body table). */
export const FAKE_LEVEL_XML = `<?xml version="1.0" encoding="utf-16"?>
<Level width="3">
  <GameObjects>
${BODIES.map((b) => `    <Block type="${b.type}" material="${b.material}" x="${b.x}" y="${b.y}" rotation="0" />`).join('\n')}
  </GameObjects>
</Level>`;

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Frames of `BODIES` for steps firstStep…: at rest where they were loaded at step 0, then sinking a
 * little (as a settling structure does). `fill` sets every value instead (garbage tests).
 */
export function batch(firstStep: number, stepCount: number, bodyCount = BODIES.length, fill?: number) {
  const states = new Float32Array(stepCount * bodyCount * FIELD_COUNT);
  if (fill !== undefined) states.fill(fill);
  else {
    for (let s = 0; s < stepCount; s += 1) {
      const step = firstStep + s;
      for (let b = 0; b < bodyCount; b += 1) states.set([b, -0.001 * step, 0, 0, step > 0 ? -0.01 : 0, 0], (s * bodyCount + b) * FIELD_COUNT);
    }
  }
  return { firstStep, stepCount, bodyCount, states, alive: new Uint8Array(stepCount * bodyCount).fill(1) };
}

/**
 * The capture an honest engine sends for the frames `batch` streams: the level drawn at the capture
 * pass's steps (the pool checks an engine's image against its final state). `CAPTURE_PNG` (white) for
 * an XML sbeval cannot read.
 */
const honestCaptures = new Map<string, Uint8Array>();
export function honestCapture(xml: string, windowSteps: number): Uint8Array {
  const key = `${windowSteps}\n${xml}`;
  let png = honestCaptures.get(key);
  if (!png) {
    try {
      const w = evaluatorWindow(windowSteps);
      const row = (step: number) => {
        const b = batch(step, 1);
        return { states: b.states, alive: b.alive };
      };
      png = encodeMaskPng(renderFrameImage(parseLevelXml(xml), row(w.boundStep), row(w.imageStep)));
    } catch {
      png = CAPTURE_PNG;
    }
    honestCaptures.set(key, png);
  }
  return png;
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
    /** Steps per `frames` batch (a trial streams the whole window of its job's settings). */
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
    sink.loaded(behaviour === 'garbage-bodies' ? BODIES.map((b, i) => (i === 1 ? { ...b, type: 'SquareTiny' } : b)) : BODIES, 0.02);
    const steps = behaviour === 'garbage-short' ? 10 : stepsToSimulate(job.settings) + 1;
    for (let first = 0; first < steps; first += this.perBatch) {
      await tick();
      if (signal?.aborted) throw new Error('aborted');
      const count = Math.min(this.perBatch, steps - first);
      if (first >= this.perBatch && behaviour === 'die') throw new Error('connection lost');
      if (first >= this.perBatch && behaviour === 'stall') return new Promise<void>(() => {});
      if (first >= this.perBatch && behaviour === 'garbage-shape') sink.frames(batch(first, count, BODIES.length + 1));
      else if (first >= this.perBatch && behaviour === 'garbage-nan') sink.frames(batch(first, count, BODIES.length, Number.NaN));
      else if (first >= this.perBatch && behaviour === 'garbage-gap') sink.frames(batch(first + 1, count));
      else if (behaviour === 'garbage-frozen') {
        const still = batch(first, count);
        for (let r = 0; r < count; r += 1) still.states.set(batch(0, 1).states, r * BODIES.length * FIELD_COUNT);
        sink.frames(still);
      } else sink.frames(batch(first, count));
      const b = behaviour === 'garbage-event' && first >= this.perBatch ? 7 : -1;
      sink.events([{ kind: 'contact', step: first + 1, a: 0, b, relativeSpeed: 0.5 }]);
    }
    // `endless`: the window is streamed, then events keep coming and the run never ends.
    while (behaviour === 'endless') {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (signal?.aborted) throw new Error('aborted');
      sink.events([{ kind: 'contact', step: 1, a: 0, b: 1, relativeSpeed: 0.1 }]);
    }
    if (job.settings.capture && behaviour !== 'garbage-no-capture') {
      const png =
        behaviour === 'garbage-png'
          ? new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9])
          : behaviour === 'garbage-png-size'
            ? TINY_PNG
            : behaviour === 'garbage-png-junk'
              ? Uint8Array.from([...CAPTURE_PNG.subarray(0, 33), ...Buffer.from('junk, not image data'.repeat(20))])
              : honestCapture(job.xml, job.settings.windowSteps);
      sink.capture({ png });
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
