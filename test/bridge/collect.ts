import type { CaptureResult, LevelSink } from '../../bridge/engine.js';
import { type BodyInfo, FIELD_COUNT, type FrameBatch, type SimEvent } from '../../bridge/frames.js';

/** Keeps everything a run streams, in order: the test's independent copy of a run. */
export class Collected {
  bodies: BodyInfo[] | undefined;
  dt: number | undefined;
  batches: FrameBatch[] = [];
  eventList: SimEvent[] = [];
  captures: CaptureResult[] = [];
  calls: string[] = [];

  readonly sink: LevelSink = {
    loaded: (bodies, dt) => {
      this.calls.push('loaded');
      this.bodies = bodies.map((b) => ({ ...b }));
      this.dt = dt;
    },
    frames: (batch) => {
      this.calls.push('frames');
      // Copies: an engine may reuse its buffers after the call.
      this.batches.push({ ...batch, states: batch.states.slice(), alive: batch.alive.slice() });
    },
    events: (events) => {
      this.calls.push('events');
      for (const e of events) this.eventList.push({ ...e });
    },
    capture: (result) => {
      this.calls.push('capture');
      this.captures.push(result.raw ? { png: result.png.slice(), raw: result.raw.slice() } : { png: result.png.slice() });
    },
  };

  /** All batches as one, by concatenation (checks contiguity on the way). */
  allFrames(): FrameBatch {
    const bodyCount = this.bodies?.length ?? 0;
    let steps = 0;
    for (const b of this.batches) {
      if (b.firstStep !== steps) throw new Error(`batch starts at ${b.firstStep}, expected ${steps}`);
      steps += b.stepCount;
    }
    const states = new Float32Array(steps * bodyCount * FIELD_COUNT);
    const alive = new Uint8Array(steps * bodyCount);
    for (const b of this.batches) {
      states.set(b.states, b.firstStep * bodyCount * FIELD_COUNT);
      alive.set(b.alive, b.firstStep * bodyCount);
    }
    return { firstStep: 0, stepCount: steps, bodyCount, states, alive };
  }
}
