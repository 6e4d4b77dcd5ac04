import type { CaptureResult, LevelSink } from './engine.js';
import type { BodyInfo, FrameBatch, SimEvent } from './frames.js';

/**
 * A sink that keeps one trial's whole stream in memory — copies of every batch (an engine may reuse
 * a batch's arrays once `frames` returns), the events, the body table — for comparing two engines step
 * by step (`sbeval unity calibrate`). The capture is not kept.
 */
export class KeptStream implements LevelSink {
  bodies: BodyInfo[] = [];
  readonly batches: FrameBatch[] = [];
  readonly eventList: SimEvent[] = [];
  readonly borrowsFrames = true;

  loaded(bodies: BodyInfo[]): void {
    this.bodies = bodies.map((b) => ({ ...b }));
  }

  frames(batch: FrameBatch): void {
    this.batches.push({ ...batch, states: batch.states.slice(), alive: batch.alive.slice() });
  }

  events(events: SimEvent[]): void {
    for (const e of events) this.eventList.push({ ...e });
  }

  capture(_result: CaptureResult): void {}
}
