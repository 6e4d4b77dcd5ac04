import type { Engine } from '../../bridge/engine.js';
import { createEngines } from '../../bridge/engines.js';
import { describeError, SbevalError } from '../../core/errors.js';
import type { Outcome } from './attempt.js';
import type { PoolCore } from './core.js';
import { claimsDetail, type Pending } from './job.js';
import type { Member } from './member.js';
import type { Replacement } from './replacement.js';

/**
 * Checking an engine's word ("no engine decides alone", docs/engines-and-claims.md). A level fault from
 * an engine without sbeval's own rules (`Engine.ownRules`) is a claim: the job runs again on an engine
 * that did not claim it, or on the referee (by default the headless engine, made on first need) when
 * the pool has no other. An engine whose word is proven false — a claim another engine's run refutes,
 * a stream that is not the level's — is discredited: retired, and reported (`engine-discredited`) so
 * that callers drop what it gave earlier.
 */
export class Claims {
  /** Makes the referee (undefined: claims fail their job as the engine said). */
  private readonly refereeFactory: (() => Promise<Engine>) | undefined;
  private refereeStarting = false;

  constructor(
    private readonly core: PoolCore,
    private readonly replacement: Replacement,
  ) {
    const referee = core.config.referee;
    this.refereeFactory = referee === false ? undefined : (referee ?? headlessReferee);
  }

  /** A job with claimed level faults that no live engine of the pool but its claimers could run. */
  needsReferee(pending: Pending): boolean {
    if (pending.claims.length === 0 || !this.refereeFactory) return false;
    return !this.core.engines().some((m) => !pending.claims.some((c) => c.engineId === m.engine.id));
  }

  /** Starts the referee when a queued job needs it and none is live or starting; without one, such jobs fail. */
  summonReferee(): void {
    const { core, refereeFactory: factory } = this;
    if (!factory || core.closing || this.refereeStarting) return;
    if (core.members.some((m) => m.referee && !m.retired) || !core.queue.some((p) => this.needsReferee(p))) return;
    this.refereeStarting = true;
    core.track(
      factory().then(
        (engine) => {
          this.refereeStarting = false;
          if (core.closing) {
            core.closeEngine(engine);
            return;
          }
          core.join(engine, undefined, 0, true);
          core.schedule.pump();
        },
        (error: unknown) => {
          this.refereeStarting = false;
          for (const pending of core.queue.filter((p) => this.needsReferee(p))) {
            core.queue.splice(core.queue.indexOf(pending), 1);
            const reason = `${pending.levelId}: no engine could check that the level cannot run: ${describeError(error)}`;
            core.fail(pending, 'no-engines', reason, error, claimsDetail(pending));
          }
          core.schedule.pump();
        },
      ),
    );
  }

  /**
   * An engine without sbeval's rules said the job's level cannot run, or sent an image that is not its
   * final state (`capture-lie`, already discredited): run it again elsewhere (another engine, else the
   * referee), never on the claimer. Without a referee a level claim fails the job as said, an image
   * lie as an invalid stream.
   */
  check(pending: Pending, member: Member, attempt: number, outcome: Outcome): void {
    const core = this.core;
    const engineId = member.engine.id;
    if (core.closing) {
      core.fail(pending, 'cancelled', `${pending.levelId}: the engine pool closed`, outcome.cause, claimsDetail(pending));
      return;
    }
    if (!this.refereeFactory) {
      core.fail(pending, outcome.kind === 'capture-lie' ? 'garbage' : 'level', outcome.reason, outcome.cause);
      core.schedule.pump();
      return;
    }
    pending.claims.push({ engineId, serial: member.serial, reason: outcome.reason });
    const reason =
      outcome.kind === 'capture-lie'
        ? `${outcome.reason}; running the level on another engine`
        : `engine ${engineId} says the level cannot run (${outcome.reason}); checking that on another engine`;
    core.emit({ type: 'requeued', levelId: pending.levelId, attempt: attempt + 1, reason });
    core.queue.unshift(pending);
    core.schedule.pump();
    core.schedule.checkEngines();
  }

  /** The job ran on `engineId` although engines had claimed its level cannot run: each claimer lied. */
  refute(pending: Pending, engineId: string): void {
    for (const claim of pending.claims) {
      const claimer = this.core.members.find((m) => m.serial === claim.serial);
      if (!claimer) continue;
      this.discredit(claimer, `engine ${claim.engineId} said level ${pending.levelId} cannot run (${claim.reason}), but engine ${engineId} ran it`);
    }
  }

  /** The engine's word was proven false: it is retired, and callers are told to drop what it gave. */
  discredit(member: Member, reason: string): void {
    const core = this.core;
    if (core.discredited.has(member.serial)) return;
    core.discredited.add(member.serial);
    core.emit({ type: 'engine-discredited', engineId: member.engine.id, engineSerial: member.serial, reason });
    if (!member.retired) this.replacement.retire(member, reason);
  }
}

/** The default referee: sbeval's own rules, the headless engine in a worker thread. */
async function headlessReferee(): Promise<Engine> {
  const [engine] = await createEngines('headless', 1);
  if (!engine) throw new SbevalError('launch', 'no headless engine to check a claimed level fault');
  return engine;
}
