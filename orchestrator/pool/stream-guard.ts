import type { CaptureResult, LevelJob, LevelSink } from '../../bridge/engine.js';
import { bodyMismatch, type ExpectedRun, expectedRun, pngProblem, startMismatch } from '../../bridge/expected-run.js';
import { type BodyInfo, FIELD_COUNT, type FrameBatch, type SimEvent } from '../../bridge/frames.js';
import type { FrameRow } from '../../bridge/headless/frame-image.js';
import { evaluatorWindow } from '../../bridge/window.js';
import { SbevalError } from '../../core/errors.js';
import { checkCapture } from './capture-claim.js';

/**
 * Checks one attempt's stream against the `LevelSink` contract (bridge/engine.ts: `loaded`, then
 * frames/events, then `capture`) and against the level itself (bridge/expected-run.ts) before
 * anything reaches the caller. An engine that answers garbage fails the attempt, so its job runs
 * again elsewhere (and the engine is retired) instead of scoring nonsense:
 * - order and shapes: frames before `loaded`, shapes that disagree with the body table, gaps between
 *   batches, NaN states, events about bodies or steps that do not exist, no capture when one was
 *   asked for;
 * - the level: a body table other than the XML's (count, ids, kinds, types, materials, start
 *   positions — results for another level), bodies that do not start at rest where they were loaded,
 *   a body that comes back to life, fewer or more steps than the window (bridge/window.ts), frames
 *   that never change although a body starts in the air with nothing beneath it (an engine that did
 *   not simulate: bridge/expected-run.ts `fallingBody`), a capture that does not decode as a
 *   1024 × 1024 PNG.
 * Every honest engine passes: the checks hold for the evaluator's physics whatever the engine. (A
 * level at rest may stream identical frames at every step — reference level V2_I_1 does — so frozen
 * frames are refused only where a body must fall.)
 */
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

type Call =
  | { kind: 'loaded'; bodies: BodyInfo[]; dt: number }
  | { kind: 'frames'; batch: FrameBatch }
  | { kind: 'events'; events: SimEvent[] }
  | { kind: 'capture'; result: CaptureResult };

/**
 * The sink the pool gives an engine for one attempt. It validates every call, then either forwards it
 * (live sink) or keeps it for `replay` (buffered sink). `onProgress` feeds the stall watchdog;
 * `onViolation` fails the attempt. After `close()` every late call from an abandoned engine is ignored.
 */
export class GuardedSink implements LevelSink {
  private bodyCount: number | undefined;
  private bodies: BodyInfo[] | undefined;
  private nextStep = 0;
  private captured: CaptureResult | undefined;
  private closed = false;
  private violation: SbevalError | undefined;
  private readonly buffer: Call[] | undefined;
  private readonly expected: ExpectedRun;
  /** The step-0 row, and whether any later row differs from it. */
  private start: Float32Array | undefined;
  private moved = false;
  /** Bodies seen dead (alive 0): they never come back. */
  private dead: Uint8Array | undefined;
  /** The steps the capture pass frames and draws (bridge/window.ts), and their rows once streamed. */
  private readonly captureSteps: { bound: number; image: number } | undefined;
  private readonly captureRows: { bound?: FrameRow; image?: FrameRow } = {};

  constructor(
    private readonly job: LevelJob,
    private readonly target: LevelSink | undefined,
    private readonly onProgress: () => void,
    private readonly onViolation: (violation: SbevalError) => void,
  ) {
    this.buffer = target ? undefined : [];
    this.expected = expectedRun(job);
    const window = evaluatorWindow(job.settings.windowSteps);
    this.captureSteps = job.settings.capture ? { bound: window.boundStep, image: window.imageStep } : undefined;
  }

  loaded(bodies: BodyInfo[], dt: number): void {
    if (!this.accept()) return;
    if (this.bodyCount !== undefined) {
      this.fail('`loaded` arrived twice');
      return;
    }
    if (!Array.isArray(bodies)) {
      this.fail('`loaded` without a body table');
      return;
    }
    if (!(Number.isFinite(dt) && dt > 0)) {
      this.fail(`\`loaded\` with an invalid time step ${String(dt)}`);
      return;
    }
    const mismatch = this.expected.bodies && bodyMismatch(this.expected.bodies, bodies);
    if (mismatch) {
      this.fail(`\`loaded\` does not match the level: ${mismatch}`);
      return;
    }
    this.bodyCount = bodies.length;
    this.bodies = bodies;
    this.dead = new Uint8Array(bodies.length);
    this.deliver({ kind: 'loaded', bodies, dt });
  }

  /** The guard reads a batch and copies what it keeps; buffered (no live sink), it keeps every batch for `replay`. */
  get borrowsFrames(): boolean {
    return this.buffer === undefined && this.target?.borrowsFrames === true;
  }

  frames(batch: FrameBatch): void {
    if (!this.accept()) return;
    const problem = this.checkFrames(batch);
    if (problem) {
      this.fail(problem);
      return;
    }
    this.nextStep = batch.firstStep + batch.stepCount;
    this.keepCaptureRows(batch);
    this.deliver({ kind: 'frames', batch });
  }

  events(events: SimEvent[]): void {
    if (!this.accept()) return;
    if (this.bodyCount === undefined) {
      this.fail('`events` before `loaded`');
      return;
    }
    if (this.captured) {
      this.fail('`events` after `capture`');
      return;
    }
    if (!Array.isArray(events)) {
      this.fail('`events` is not a list');
      return;
    }
    const problem = this.checkEvents(events);
    if (problem) {
      this.fail(problem);
      return;
    }
    this.deliver({ kind: 'events', events });
  }

  capture(result: CaptureResult): void {
    if (!this.accept()) return;
    if (this.bodyCount === undefined) {
      this.fail('`capture` before `loaded`');
      return;
    }
    if (this.captured) {
      this.fail('`capture` arrived twice');
      return;
    }
    if (!this.job.settings.capture) {
      this.fail('`capture` although none was asked for');
      return;
    }
    if (!isPng(result?.png)) {
      this.fail('`capture` is not a PNG image');
      return;
    }
    if (result.raw !== undefined && !isPng(result.raw)) {
      this.fail('the `_raw` capture is not a PNG image');
      return;
    }
    // Held until the run is over and the capture checked (`settleCapture`): it is the stream's last call.
    this.captured = result;
  }

  /** Called when the engine's `run` resolved: the stream must be complete. */
  finish(): SbevalError | undefined {
    if (this.violation) return this.violation;
    const steps = this.expected.lastStep + 1;
    if (this.bodyCount === undefined) this.fail('the engine finished without `loaded`');
    else if (this.nextStep === 0) this.fail('the engine finished without any frame');
    else if (this.nextStep !== steps) this.fail(`the engine streamed ${this.nextStep} steps, the window has ${steps} (steps 0…${this.expected.lastStep})`);
    else if (!this.moved && this.expected.fallingBody !== undefined) {
      const body = this.expected.bodies?.[this.expected.fallingBody];
      this.fail(
        `frozen frames: no body moved at any step, although body ${this.expected.fallingBody}${body ? ` (${body.kind} "${body.type}")` : ''} starts in the air with nothing beneath it`,
      );
    } else if (this.job.settings.capture && !this.captured) this.fail('the engine finished without the requested capture');
    return this.violation;
  }

  /**
   * After `finish()`: the capture must decode as a PNG of the evaluator's size (asynchronous: a full
   * decode). Returns the violation (already reported through `onViolation`) or undefined.
   */
  async verifyImages(): Promise<SbevalError | undefined> {
    if (this.violation || !this.captured) return this.violation;
    const { png, raw } = this.captured;
    const problem = await pngProblem(png, this.expected.imageSize);
    const rawProblem = problem === undefined && raw !== undefined ? await pngProblem(raw, this.expected.imageSize) : undefined;
    if (this.closed || this.violation) return this.violation;
    if (problem) this.fail(`the capture ${problem}`);
    else if (rawProblem) this.fail(`the \`_raw\` capture ${rawProblem}`);
    return this.violation;
  }

  /**
   * After `verifyImages`: hands the capture on. From an engine with sbeval's rules (`trusted`) as it
   * came; from any other, checked against the final state it streamed and encoded again
   * (capture-claim.ts). Returns why the capture is a lie (nothing is handed on), or undefined.
   */
  async settleCapture(trusted: boolean, engineId: string): Promise<string | undefined> {
    const captured = this.captured;
    if (!captured || this.closed || this.violation) return undefined;
    let result = captured;
    if (!trusted) {
      const { bound, image } = this.captureRows;
      const verdict = await checkCapture(captured, this.expected.level, bound && image ? { bound, image } : undefined, engineId);
      if (!verdict.ok) return verdict.reason;
      result = verdict.result;
    }
    if (this.closed || this.violation) return undefined;
    this.captured = result;
    this.deliver({ kind: 'capture', result });
    return undefined;
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

  /** Copies the rows of the capture pass's bound and image steps out of a batch (the batch may be reused). */
  private keepCaptureRows(batch: FrameBatch): void {
    if (!this.captureSteps) return;
    const { firstStep, stepCount, bodyCount, states, alive } = batch;
    for (const which of ['bound', 'image'] as const) {
      const s = this.captureSteps[which] - firstStep;
      if (s < 0 || s >= stepCount) continue;
      this.captureRows[which] = {
        states: states.slice(s * bodyCount * FIELD_COUNT, (s + 1) * bodyCount * FIELD_COUNT),
        alive: alive.slice(s * bodyCount, (s + 1) * bodyCount),
      };
    }
  }

  private checkFrames(batch: FrameBatch): string | undefined {
    if (this.bodyCount === undefined) return '`frames` before `loaded`';
    if (this.captured) return '`frames` after `capture`';
    if (!batch || !(batch.states instanceof Float32Array) || !(batch.alive instanceof Uint8Array))
      return '`frames` without float32 states and uint8 alive flags';
    const { firstStep, stepCount, bodyCount, states, alive } = batch;
    if (!Number.isInteger(stepCount) || stepCount < 1) return `\`frames\` with step count ${String(stepCount)}`;
    if (bodyCount !== this.bodyCount) return `\`frames\` for ${String(bodyCount)} bodies, \`loaded\` announced ${this.bodyCount}`;
    if (firstStep !== this.nextStep) return `\`frames\` start at step ${String(firstStep)}, expected ${this.nextStep}`;
    if (states.length !== stepCount * bodyCount * FIELD_COUNT)
      return `\`frames\` states hold ${states.length} values, expected ${stepCount * bodyCount * FIELD_COUNT}`;
    if (alive.length !== stepCount * bodyCount) return `\`frames\` alive flags hold ${alive.length} values, expected ${stepCount * bodyCount}`;
    for (let i = 0; i < states.length; i += 1) {
      if (!Number.isFinite(states[i])) return `\`frames\` hold a non-finite state at step ${firstStep + Math.floor(i / (bodyCount * FIELD_COUNT))}`;
    }
    if (firstStep + stepCount > this.expected.lastStep + 1)
      return `\`frames\` go on to step ${firstStep + stepCount - 1}, past the window's last step ${this.expected.lastStep}`;
    const row = bodyCount * FIELD_COUNT;
    let first = 0;
    if (firstStep === 0) {
      this.start = states.slice(0, row);
      const problem = startMismatch(this.bodies ?? [], this.start);
      if (problem) return `\`frames\`: ${problem}`;
      first = 1;
    }
    const start = this.start as Float32Array;
    for (let s = first; s < stepCount && !this.moved; s += 1) {
      for (let i = 0; i < row; i += 1) {
        if (states[s * row + i] !== start[i]) {
          this.moved = true;
          break;
        }
      }
    }
    const dead = this.dead as Uint8Array;
    for (let s = 0; s < stepCount; s += 1) {
      for (let b = 0; b < bodyCount; b += 1) {
        const flag = alive[s * bodyCount + b];
        if (flag !== 0 && flag !== 1) return `\`frames\` alive flag ${String(flag)} for body ${b} (0 or 1)`;
        if (flag === 0) dead[b] = 1;
        else if (dead[b]) return `\`frames\`: body ${b} is alive again at step ${firstStep + s} after it died`;
      }
    }
    return undefined;
  }

  /** Events name bodies of the table (or the ground, −1, and other static colliders, −2) and steps of the window. */
  private checkEvents(events: SimEvent[]): string | undefined {
    const bodies = this.bodyCount as number;
    const last = this.expected.lastStep;
    const isBody = (id: unknown) => Number.isInteger(id) && (id as number) >= 0 && (id as number) < bodies;
    for (const e of events) {
      if (!e || typeof e !== 'object') return '`events` holds something that is not an event';
      if (!Number.isInteger(e.step) || e.step < 1 || e.step > last)
        return `\`events\`: a ${String(e.kind)} event at step ${String(e.step)}, outside steps 1…${last}`;
      switch (e.kind) {
        case 'contact':
          if (!((isBody(e.a) || e.a === -1 || e.a === -2) && (isBody(e.b) || e.b === -1 || e.b === -2)))
            return `\`events\`: a contact between ${String(e.a)} and ${String(e.b)}, not bodies of the level`;
          if (!Number.isFinite(e.relativeSpeed)) return '`events`: a contact with a non-finite speed';
          break;
        case 'damage':
          if (!isBody(e.id) || !Number.isFinite(e.amount) || !Number.isFinite(e.health))
            return `\`events\`: damage to body ${String(e.id)} is not about a body of the level or not finite`;
          break;
        case 'destroyed':
        case 'removed':
        case 'explosion':
          if (!isBody(e.id)) return `\`events\`: ${e.kind} of body ${String(e.id)}, not a body of the level`;
          break;
        default:
          return `\`events\`: an event of unknown kind ${String((e as { kind?: unknown }).kind)}`;
      }
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
    const violation = new SbevalError('protocol', message);
    this.violation = violation;
    this.onViolation(violation);
  }
}

function isPng(data: unknown): boolean {
  if (!(data instanceof Uint8Array) || data.length < PNG_SIGNATURE.length) return false;
  return PNG_SIGNATURE.every((byte, i) => data[i] === byte);
}
