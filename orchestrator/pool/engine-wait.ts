import type { Claims } from './claims.js';
import type { PoolCore } from './core.js';
import type { Pending } from './job.js';
import type { Replacement } from './replacement.js';

/**
 * A pool with no engine left and none coming: its queued jobs can never run (but those the referee
 * runs), so they fail with that reason. A pool that awaits engines (`awaitEngines`: remote engines
 * dialling in) waits for one instead; once engines were there and all left, for `engineWaitMs` only:
 * then queued jobs fail with "no engine left: …" (the run ends instead of waiting for good), and so
 * does every job asked for after, until an engine comes.
 */
export class EngineWait {
  /** An engine (not the referee) was in the pool at some time: an empty pool is then one whose engines left. */
  private hadEngines = false;
  /** `engineWaitMs` running out after the last engine left. */
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Set when the wait ran out with no engine: jobs fail at once with this reason until one comes. */
  private abandoned: string | undefined;

  constructor(
    private readonly core: PoolCore,
    private readonly claims: Claims,
    private readonly replacement: Replacement,
  ) {}

  /** With no engine left and none coming, fails the queued jobs, or waits for an engine to dial in. */
  check(): void {
    const core = this.core;
    if (core.closing || core.engines().length > 0 || this.replacement.inFlight > 0) return;
    if (core.config.awaitEngines) {
      this.awaitNewEngine();
      return;
    }
    this.failStranded((pending) => {
      const last = pending.attempts.at(-1)?.failure?.reason;
      return `no engine left to run it${last ? ` (last failure: ${last})` : ''}`;
    });
  }

  /** An engine joined: jobs wait for engines again as they did before the last one left. */
  arrived(): void {
    this.hadEngines = true;
    this.abandoned = undefined;
    this.stop();
  }

  /** Stops the wait's clock (an engine came, or the pool closes). */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private awaitNewEngine(): void {
    const waitMs = this.core.config.engineWaitMs;
    if (waitMs === undefined || !this.hadEngines) return;
    if (this.abandoned !== undefined) {
      const reason = this.abandoned;
      this.failStranded(() => reason);
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      if (this.core.closing || this.core.engines().length > 0) return;
      this.abandoned = `no engine left: ${this.replacement.lastRetirement ?? 'every engine left'}; no engine dialled in within ${waitMs / 1000} s`;
      this.check();
    }, waitMs);
  }

  /** Fails every queued job but those only the referee may run, each with `reason(job)` after its level id. */
  private failStranded(reason: (pending: Pending) => string): void {
    const queue = this.core.queue;
    const stranded = queue.filter((p) => !this.claims.needsReferee(p));
    queue.splice(0, queue.length, ...queue.filter((p) => this.claims.needsReferee(p)));
    for (const pending of stranded) this.core.fail(pending, 'no-engines', `${pending.levelId}: ${reason(pending)}`);
  }
}
