import type { Engine } from '../../bridge/engine.js';
import type { Pending } from './job.js';
import { type Member, newMember } from './member.js';
import type { PoolSettings } from './options.js';
import { settlesWithin } from './settle.js';
import { type EnginePoolOptions, type PoolEvent, PoolJobError } from './types.js';

/** What the parts of the pool ask of the whole after they changed something. */
interface PoolSchedule {
  /** Gives engines with a free place the queued jobs they may take (dispatch.ts). */
  pump(): void;
  /** With no engine left and none coming, fails the queued jobs or waits for one (engine-wait.ts). */
  checkEngines(): void;
}

/**
 * What every part of the engine pool shares: its engines (retired ones stay listed), the queue of jobs
 * waiting for one, the jobs with an attempt running, which engines were proven false, its events and
 * the background work `close` waits for.
 */
export class PoolCore {
  readonly members: Member[] = [];
  /** Jobs waiting for an engine, in the order they are handed out (retries at the front). */
  readonly queue: Pending[] = [];
  /** Jobs with an attempt running. */
  readonly running = new Set<Pending>();
  /** Serials of the engines whose word was proven false (claims.ts): nothing they gave may be kept. */
  readonly discredited = new Set<number>();
  closing = false;
  private nextSerial = 0;
  private readonly background = new Set<Promise<unknown>>();
  private readonly listeners = new Set<(event: PoolEvent) => void>();

  constructor(
    readonly config: EnginePoolOptions,
    readonly settings: PoolSettings,
    readonly schedule: PoolSchedule,
  ) {}

  /** Live engines that run jobs (not retired; the referee is not one of them). */
  engines(): Member[] {
    return this.members.filter((m) => !m.retired && !m.referee);
  }

  /** An engine joins the pool under a new serial. */
  join(engine: Engine, slot: number | undefined, generation: number, referee: boolean): void {
    this.members.push(newMember(engine, this.nextSerial++, slot, generation, referee));
    this.emit({ type: 'engine-added', engineId: engine.id, slot });
  }

  /** Also tells `listener` every pool event (after `onEvent`); returns the function that stops it. */
  listen(listener: (event: PoolEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: PoolEvent): void {
    for (const listener of [this.config.onEvent, ...this.listeners]) {
      try {
        listener?.(event);
      } catch {
        // A broken listener must not break scheduling.
      }
    }
  }

  /** Ends a job without a result: the event, then the caller's `PoolJobError`. */
  fail(pending: Pending, kind: PoolJobError['kind'], message: string, cause?: unknown, detail?: string): void {
    pending.detachAbort();
    this.emit({ type: 'job-failed', levelId: pending.levelId, kind, reason: message });
    pending.reject(new PoolJobError(kind, pending.levelId, message, pending.attempts, { cause, ...(detail ? { detail } : {}) }));
  }

  /** Closes an engine in the background, giving it `closeMs`. */
  closeEngine(engine: Engine): void {
    this.track(settlesWithin(engine.close(), this.settings.closeMs));
  }

  /** Work `close` waits for (engines closing, replacements starting, cancelled runs settling). */
  track(promise: Promise<unknown>): void {
    const tracked = promise.catch(() => undefined);
    this.background.add(tracked);
    void tracked.finally(() => this.background.delete(tracked));
  }

  /** Waits until no background work is left (work may start more work). */
  async drain(): Promise<void> {
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
  }
}
