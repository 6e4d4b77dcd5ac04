import type { LevelSink } from '../../bridge/engine.js';
import { describeError } from '../../core/errors.js';
import { Attempt, type Outcome } from './attempt.js';
import type { Claims } from './claims.js';
import type { PoolCore } from './core.js';
import { afterFailedAttempt } from './engine-health.js';
import { claimsDetail, type Pending } from './job.js';
import type { Member } from './member.js';
import type { Replacement } from './replacement.js';
import type { GuardedSink } from './stream-guard.js';
import { type AttemptFailureKind, ENGINE_FAULTS } from './types.js';

/**
 * A job's attempts, from the engine it was handed to until the job ends: each attempt is started with
 * the caller's sink, and its end decides the job — a result is handed over (a buffered sink gets the
 * stream replayed), an engine fault runs it again first in the queue while attempts are left, a claim
 * is checked elsewhere (claims.ts), anything else fails it with every attempt's reason.
 */
export class JobAttempts {
  constructor(
    private readonly core: PoolCore,
    private readonly claims: Claims,
    private readonly replacement: Replacement,
  ) {}

  /** Runs the job's next attempt on `member`. */
  start(member: Member, pending: Pending): void {
    const core = this.core;
    const attempt = new Attempt(member, pending, pending.attempts.length + 1, core.settings, (ended, outcome) => this.ended(ended, outcome));
    pending.tried.add(attempt.engineId);
    core.running.add(pending);
    core.emit({ type: 'attempt-start', levelId: pending.levelId, attempt: attempt.number, engineId: attempt.engineId });
    const { job, sink } = pending.request;
    let liveSink: LevelSink | undefined;
    try {
      liveSink = typeof sink === 'function' ? sink(attempt.number, member.engine) : undefined;
    } catch (error) {
      // The caller's sink factory failed (e.g. a trace file cannot be created): nothing ran.
      attempt.release();
      core.running.delete(pending);
      pending.detachAbort();
      core.emit({ type: 'job-failed', levelId: pending.levelId, kind: 'crashed', reason: describeError(error) });
      pending.reject(error);
      queueMicrotask(() => core.schedule.pump());
      return;
    }
    attempt.start(job, liveSink);
  }

  /** An attempt ended (`Attempt.finish`): the job succeeds, is checked elsewhere, runs again, or fails. */
  private ended(attempt: Attempt, outcome: Outcome): void {
    const { member, pending, number, engineId } = attempt;
    const core = this.core;
    core.running.delete(pending);
    if (!attempt.runSettled) attempt.controller.abort(new Error(outcome.reason));

    if (outcome.kind === 'ok') {
      pending.attempts.push({ attempt: number, engineId });
      member.jobsDone += 1;
      member.consecutiveFailures = 0;
      attempt.release();
      this.claims.refute(pending, engineId);
      this.succeed(pending, attempt.guard!, member);
      core.schedule.pump();
      return;
    }

    pending.attempts.push({ attempt: number, engineId, failure: { kind: outcome.kind, reason: outcome.reason } });
    core.emit({ type: 'attempt-failed', levelId: pending.levelId, attempt: number, engineId, kind: outcome.kind, reason: outcome.reason });
    afterFailedAttempt({ core, claims: this.claims, replacement: this.replacement }, attempt, outcome);

    if (outcome.kind === 'level-claim' || outcome.kind === 'capture-lie') {
      this.claims.check(pending, member, number, outcome);
      return;
    }
    this.retryOrFail(pending, number, outcome);
  }

  /** After a failed attempt: an engine fault runs the job again while attempts are left; anything else fails it. */
  private retryOrFail(pending: Pending, attempt: number, outcome: Outcome): void {
    const core = this.core;
    const engineAttempts = pending.attempts.filter((a) => a.failure?.kind !== 'level-claim' && a.failure?.kind !== 'capture-lie').length;
    const engineFault = ENGINE_FAULTS.has(outcome.kind as AttemptFailureKind);
    if (engineFault && engineAttempts < pending.maxAttempts && !core.closing) {
      core.emit({ type: 'requeued', levelId: pending.levelId, attempt: attempt + 1, reason: outcome.reason });
      core.queue.unshift(pending); // retries first: a requeued job is never starved by new work
      core.schedule.pump();
      core.schedule.checkEngines();
      return;
    }
    const message = engineFault && engineAttempts > 1 ? `${outcome.reason} (after ${engineAttempts} attempts)` : outcome.reason;
    core.fail(pending, outcome.kind as AttemptFailureKind, message, outcome.cause, claimsDetail(pending));
    core.schedule.pump();
  }

  private succeed(pending: Pending, guard: GuardedSink, member: Member): void {
    const core = this.core;
    const engineId = member.engine.id;
    pending.detachAbort();
    const sink = pending.request.sink;
    if (typeof sink !== 'function') {
      try {
        guard.replay(sink);
      } catch (error) {
        // The caller's own sink threw: report it as it is, it says nothing about the engine.
        core.emit({ type: 'job-failed', levelId: pending.levelId, kind: 'crashed', reason: describeError(error) });
        pending.reject(error);
        return;
      }
    }
    core.emit({ type: 'job-done', levelId: pending.levelId, engineId, attempts: pending.attempts.length });
    pending.resolve({ engineId, engineSerial: member.serial, attempts: pending.attempts });
  }
}
