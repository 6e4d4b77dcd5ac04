import type { Attempt, Outcome } from './attempt.js';
import type { Claims } from './claims.js';
import type { PoolCore } from './core.js';
import { isReportedDead } from './member.js';
import type { Replacement } from './replacement.js';
import { settlesWithin } from './settle.js';
import type { AttemptFailureKind } from './types.js';

/**
 * What a failed attempt says about its engine: an answer about the level (a fault, a claim) leaves it
 * healthy; a cancelled run frees its place once it settles (an engine that ignores its abort signal
 * is retired); an engine fault counts against it, and a stall, an overrun, a stream that is not the
 * level's (which discredits it), a reported death or `maxConsecutiveFailures` faults in a row retire it.
 */
export function afterFailedAttempt(pool: { core: PoolCore; claims: Claims; replacement: Replacement }, attempt: Attempt, outcome: Outcome): void {
  const { core, claims, replacement } = pool;
  const member = attempt.member;
  const kind = outcome.kind as AttemptFailureKind;
  if (kind === 'level' || kind === 'level-claim') {
    member.consecutiveFailures = 0; // it answered properly (a claim is judged once it is checked)
    attempt.release();
    return;
  }
  if (kind === 'cancelled') {
    if (attempt.runSettled) {
      attempt.release();
      return;
    }
    // Give the engine a moment to honour its abort signal; one that ignores it cannot be trusted.
    core.track(
      settlesWithin(attempt.running, core.settings.settleMs).then((ok) => {
        if (member.retired) return;
        if (ok && !core.closing) {
          attempt.release();
          core.schedule.pump();
        } else if (!ok) replacement.retire(member, `engine ${member.engine.id} ignored cancellation`);
      }),
    );
    return;
  }
  member.consecutiveFailures += 1;
  member.totalFailures += 1;
  if (kind === 'garbage' || kind === 'capture-lie') {
    // A stream that is not the level's: its earlier streams are not to be trusted either.
    claims.discredit(member, outcome.reason);
    return;
  }
  const tooMany = member.consecutiveFailures >= core.settings.maxConsecutiveFailures;
  if (kind === 'stalled' || kind === 'timeout' || isReportedDead(member.engine) || tooMany) replacement.retire(member, outcome.reason);
  else attempt.release();
}
