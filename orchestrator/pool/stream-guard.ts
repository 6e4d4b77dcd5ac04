import type { CaptureResult, LevelJob, LevelSink } from '../../bridge/engine.js';
import { FIELD_COUNT, type BodyInfo, type FrameBatch, type SimEvent } from '../../bridge/frames.js';

/**
 * Checks one attempt's stream against the `LevelSink` contract (bridge/engine.ts: `loaded`, then
 * frames/events, then `capture`) before anything reaches the caller. An engine that answers garbage
 * — frames before `loaded`, shapes that disagree with the body table, gaps between batches, NaN
 * states, no capture when one was asked for — fails the attempt, so its job runs again elsewhere
 * instead of scoring nonsense.
 */
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

type Call =
  | { kind: 'loaded'; bodies: BodyInfo[]; dt: number }
  | { kind: 'frames'; batch: FrameBatch }
  | { kind: 'events'; events: SimEvent[] }
  | { kind: 'capture'; result: CaptureResult };

export class StreamViolation extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StreamViolation';
  }
}

/**
 * The sink the pool gives an engine for one attempt. It validates every call, then either forwards it
 * (live sink) or keeps it for `replay` (buffered sink). `onProgress` feeds the stall watchdog;
 * `onViolation` fails the attempt. After `close()` every late call from an abandoned engine is ignored.
 */
export class GuardedSink implements LevelSink {
  private bodyCount: number | undefined;
  private nextStep = 0;
  private captured = false;
  private closed = false;
  private violation: StreamViolation | undefined;
  private readonly buffer: Call[] | undefined;

  constructor(
    private readonly job: LevelJob,
    private readonly target: LevelSink | undefined,
    private readonly onProgress: () => void,
    private readonly onViolation: (violation: StreamViolation) => void,
  ) {
    this.buffer = target ? undefined : [];
  }

  loaded(bodies: BodyInfo[], dt: number): void {
    if (!this.accept()) return;
    if (this.bodyCount !== undefined) { this.fail('`loaded` arrived twice'); return; }
    if (!Array.isArray(bodies)) { this.fail('`loaded` without a body table'); return; }
    if (!(Number.isFinite(dt) && dt > 0)) { this.fail(`\`loaded\` with an invalid time step ${String(dt)}`); return; }
    this.bodyCount = bodies.length;
    this.deliver({ kind: 'loaded', bodies, dt });
  }

  frames(batch: FrameBatch): void {
    if (!this.accept()) return;
    const problem = this.checkFrames(batch);
    if (problem) { this.fail(problem); return; }
    this.nextStep = batch.firstStep + batch.stepCount;
    this.deliver({ kind: 'frames', batch });
  }

  events(events: SimEvent[]): void {
    if (!this.accept()) return;
    if (this.bodyCount === undefined) { this.fail('`events` before `loaded`'); return; }
    if (this.captured) { this.fail('`events` after `capture`'); return; }
    if (!Array.isArray(events)) { this.fail('`events` is not a list'); return; }
    this.deliver({ kind: 'events', events });
  }

  capture(result: CaptureResult): void {
    if (!this.accept()) return;
    if (this.bodyCount === undefined) { this.fail('`capture` before `loaded`'); return; }
    if (this.captured) { this.fail('`capture` arrived twice'); return; }
    if (!this.job.settings.capture) { this.fail('`capture` although none was asked for'); return; }
    if (!isPng(result?.png)) { this.fail('`capture` is not a PNG image'); return; }
    this.captured = true;
    this.deliver({ kind: 'capture', result });
  }

  /** Called when the engine's `run` resolved: the stream must be complete. */
  finish(): StreamViolation | undefined {
    if (this.violation) return this.violation;
    if (this.bodyCount === undefined) this.fail('the engine finished without `loaded`');
    else if (this.nextStep === 0) this.fail('the engine finished without any frame');
    else if (this.job.settings.capture && !this.captured) this.fail('the engine finished without the requested capture');
    return this.violation;
  }

  /** Hands the buffered stream of a successful attempt to the caller's sink. */
  replay(sink: LevelSink): void {
    for (const call of this.buffer ?? []) {
      if (call.kind === 'loaded') sink.loaded(call.bodies, call.dt);
      else if (call.kind === 'frames') sink.frames(call.batch);
      else if (call.kind === 'events') sink.events(call.events);
      else sink.capture(call.result);
    }
  }

  close(): void {
    this.closed = true;
  }

  private accept(): boolean {
    if (this.closed || this.violation) return false;
    this.onProgress();
    return true;
  }

  private checkFrames(batch: FrameBatch): string | undefined {
    if (this.bodyCount === undefined) return '`frames` before `loaded`';
    if (this.captured) return '`frames` after `capture`';
    if (!batch || !(batch.states instanceof Float32Array) || !(batch.alive instanceof Uint8Array)) return '`frames` without float32 states and uint8 alive flags';
    const { firstStep, stepCount, bodyCount, states, alive } = batch;
    if (!Number.isInteger(stepCount) || stepCount < 1) return `\`frames\` with step count ${String(stepCount)}`;
    if (bodyCount !== this.bodyCount) return `\`frames\` for ${String(bodyCount)} bodies, \`loaded\` announced ${this.bodyCount}`;
    if (firstStep !== this.nextStep) return `\`frames\` start at step ${String(firstStep)}, expected ${this.nextStep}`;
    if (states.length !== stepCount * bodyCount * FIELD_COUNT) return `\`frames\` states hold ${states.length} values, expected ${stepCount * bodyCount * FIELD_COUNT}`;
    if (alive.length !== stepCount * bodyCount) return `\`frames\` alive flags hold ${alive.length} values, expected ${stepCount * bodyCount}`;
    for (let i = 0; i < states.length; i += 1) {
      if (!Number.isFinite(states[i])) return `\`frames\` hold a non-finite state at step ${firstStep + Math.floor(i / (bodyCount * FIELD_COUNT))}`;
    }
    return undefined;
  }

  private deliver(call: Call): void {
    if (this.buffer) {
      this.buffer.push(call);
      return;
    }
    const target = this.target as LevelSink;
    if (call.kind === 'loaded') target.loaded(call.bodies, call.dt);
    else if (call.kind === 'frames') target.frames(call.batch);
    else if (call.kind === 'events') target.events(call.events);
    else target.capture(call.result);
  }

  private fail(message: string): void {
    const violation = new StreamViolation(message);
    this.violation = violation;
    this.onViolation(violation);
  }
}

function isPng(data: unknown): boolean {
  if (!(data instanceof Uint8Array) || data.length < PNG_SIGNATURE.length) return false;
  return PNG_SIGNATURE.every((byte, i) => data[i] === byte);
}
