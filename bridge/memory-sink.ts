import type { CaptureResult, LevelSink } from './engine.js';
import type { BodyInfo, FrameBatch, SimEvent } from './frames.js';

/** What a `LevelSink` collected of one trial. */
export interface CollectedTrial {
  bodies: BodyInfo[];
  dt: number;
  frames: FrameBatch[];
  events: SimEvent[];
  png: Uint8Array | undefined;
}

/**
 * A `LevelSink` that keeps one trial's whole stream in memory: the body table, every batch, the events,
 * the capture (for replays, recordings, and comparing two engines step by step). It keeps the batches
 * it is given, so it does not borrow them (`LevelSink.borrowsFrames`): engines hand it arrays of its own.
 */
export function memorySink(): { sink: LevelSink; data: CollectedTrial } {
  const data: CollectedTrial = { bodies: [], dt: 0, frames: [], events: [], png: undefined };
  const sink: LevelSink = {
    loaded(bodies, dt) {
      data.bodies = bodies;
      data.dt = dt;
      data.frames = [];
      data.events = [];
    },
    frames(batch) {
      data.frames.push(batch);
    },
    events(events) {
      for (const e of events) data.events.push(e);
    },
    capture(result: CaptureResult) {
      data.png = result.png;
    },
  };
  return { sink, data };
}
