import type { Engine } from '../../bridge/engine.js';
import type { Claims } from './claims.js';
import type { PoolCore } from './core.js';
import type { Pending } from './job.js';
import type { JobAttempts } from './job-attempts.js';
import type { Member } from './member.js';

/**
 * How many levels a stage should have in flight (each waits for one trial at a time) to keep `engines`
 * busy: one per place an engine offers (`Engine.capacity`) plus two per engine whose results are
 * being taken in meanwhile (stream and capture checks, stability, files on the thread pool).
 */
export function levelsToKeepBusy(engines: readonly Engine[]): number {
  return Math.max(
    1,
    engines.reduce((sum, engine) => sum + Math.max(1, engine.capacity ?? 1) + 2, 0),
  );
}

/**
 * Hands queued jobs to engines with a free place. An engine that takes more than one run at once
 * (`Engine.capacity`, the worker-thread engine) gets its next job while it still runs one, so it never
 * waits for this thread; its runs execute in hand-over order (the lineup: attempt.ts).
 */
export class Dispatch {
  constructor(
    private readonly core: PoolCore,
    private readonly claims: Claims,
    private readonly attempts: JobAttempts,
  ) {}

  /**
   * Gives engines with a free place the first job each may take: idle engines first, then second
   * places, and so on, so a short queue spreads over the engines instead of lining up on one.
   */
  pump(): void {
    const { core } = this;
    if (core.closing) return;
    const depth = Math.max(0, ...core.members.map((m) => m.capacity));
    for (let held = 0; held < depth && core.queue.length > 0; held++) {
      for (const member of core.members) {
        if (member.retired || member.inFlight > held || member.inFlight >= member.capacity) continue;
        const index = core.queue.findIndex((p) => this.accepts(p, member));
        if (index < 0) continue;
        const [pending] = core.queue.splice(index, 1);
        if (pending) this.attempts.start(member, pending);
      }
    }
    this.claims.summonReferee();
  }

  /** Ends a job: a queued one fails at once, a running one through its attempt. */
  cancel(pending: Pending, reason: string): void {
    const queue = this.core.queue;
    const index = queue.indexOf(pending);
    if (index >= 0) {
      queue.splice(index, 1);
      this.core.fail(pending, 'cancelled', `${pending.levelId}: ${reason}`);
      return;
    }
    pending.cancelAttempt?.(reason);
  }

  /**
   * A job takes an engine it has not failed on and was not told to avoid, unless only such engines are
   * left; never an engine that claimed its level cannot run. The referee takes only jobs whose claims
   * no other engine can check.
   */
  private accepts(pending: Pending, member: Member): boolean {
    if (member.referee) return this.claims.needsReferee(pending);
    const id = member.engine.id;
    if (pending.claims.some((c) => c.engineId === id)) return false;
    if (!pending.tried.has(id) && !pending.avoid.has(id)) return true;
    return !this.core.engines().some((m) => !pending.tried.has(m.engine.id) && !pending.avoid.has(m.engine.id));
  }
}
