import type { LevelJob, LevelSink } from '../../bridge/engine.js';
import { describeError } from '../../core/errors.js';
import type { Pending } from './job.js';
import type { Member } from './member.js';
import { GuardedSink } from './stream-guard.js';
import type { AttemptFailureKind, ErrorClass } from './types.js';
import { Watchdogs } from './watchdogs.js';

/** How an attempt ended: with a result (`ok`) or with a failure's kind and reason. */
export interface Outcome {
  kind: AttemptFailureKind | 'ok';
  reason: string;
  cause?: unknown;
}

/** What an attempt needs of the pool's settings. */
type AttemptSettings = { jobTimeoutMs: number; stallMs: number; classifyError: (error: unknown) => ErrorClass };

/**
 * One attempt of a job on one engine: its place among the engine's runs (`Member.inFlight`, held until
 * `release`), its place in the engine's lineup, its watchdogs (armed once it heads the lineup: waiting
 * behind another trial is not slowness), the engine's run behind the stream guard, and its single end:
 * `finish` runs once, whatever ends the attempt first (the run, a watchdog, a stream violation, a
 * cancel), and hands the outcome to the pool.
 */
export class Attempt {
  readonly engineId: string;
  readonly controller = new AbortController();
  /** The stream guard between the engine and the caller's sink (set by `start`). */
  guard: GuardedSink | undefined;
  /** `finish` ran. */
  settled = false;
  /** The engine's run resolved or rejected. */
  runSettled = false;
  running: Promise<void> = Promise.resolve();
  private holdsPlace = true;
  private readonly watchdogs: Watchdogs;
  private readonly lineupEntry = { arm: () => this.arm() };

  constructor(
    readonly member: Member,
    readonly pending: Pending,
    readonly number: number,
    private readonly settings: AttemptSettings,
    private readonly ended: (attempt: Attempt, outcome: Outcome) => void,
  ) {
    this.engineId = member.engine.id;
    this.watchdogs = new Watchdogs(settings, this.engineId, (failure) => this.finish(failure));
    member.inFlight += 1;
  }

  /** Frees the attempt's place on the engine (once). */
  release(): void {
    if (!this.holdsPlace) return;
    this.holdsPlace = false;
    this.member.inFlight -= 1;
  }

  /** Hands the job to the engine behind the stream guard and watches its run. */
  start(job: LevelJob, liveSink: LevelSink | undefined): void {
    const { member, engineId } = this;
    const guard = new GuardedSink(
      job,
      liveSink,
      () => this.watchdogs.progress(),
      (violation) => this.finish({ kind: 'garbage', reason: `engine ${engineId} sent an invalid stream: ${violation.message}` }),
    );
    this.guard = guard;
    this.pending.cancelAttempt = (reason: string) => this.finish({ kind: 'cancelled', reason });
    member.lineup.push(this.lineupEntry);
    if (member.lineup[0] === this.lineupEntry) this.lineupEntry.arm();

    const running = (async () => member.engine.run(job, guard, this.controller.signal))();
    this.running = running;
    member.running.add(running);
    void running.then(
      () => member.running.delete(running),
      () => member.running.delete(running),
    );
    running.then(
      () => this.runDone(),
      (error: unknown) => this.runFailed(error),
    );
  }

  /** The engine starts working on this attempt (it heads the lineup): the watchdogs start. */
  private arm(): void {
    if (!this.runSettled) this.watchdogs.arm();
  }

  /** The engine is done with this attempt (or we are): the next one in its lineup is now the one it works on. */
  private leaveLineup(): void {
    const lineup = this.member.lineup;
    const index = lineup.indexOf(this.lineupEntry);
    if (index < 0) return;
    lineup.splice(index, 1);
    if (index === 0) lineup[0]?.arm();
  }

  /** Ends the attempt once: stops the watchdogs, leaves the lineup, closes the guard, tells the pool. */
  finish(outcome: Outcome): void {
    if (this.settled) return;
    this.settled = true;
    this.watchdogs.stop();
    this.leaveLineup();
    this.guard!.close();
    this.pending.cancelAttempt = undefined;
    this.ended(this, outcome);
  }

  private async runDone(): Promise<void> {
    this.runSettled = true;
    this.leaveLineup();
    // The engine is done: checking its capture (a bounded 1024² decode) is our work, not its
    // silence or its slowness, so neither watchdog runs during it.
    this.watchdogs.pause();
    // A violation found at the end (or in the capture's full decode) calls finish through the guard's callback.
    if (this.guard!.finish()) return;
    if (await this.guard!.verifyImages()) return;
    // An engine's image is a claim unless it has sbeval's rules (capture-claim.ts).
    const trusted = this.member.referee || this.member.engine.ownRules === true;
    const lie = await this.guard!.settleCapture(trusted, this.engineId);
    if (this.settled) return;
    this.finish(lie === undefined ? { kind: 'ok', reason: '' } : { kind: 'capture-lie', reason: lie });
  }

  private runFailed(error: unknown): void {
    this.runSettled = true;
    this.leaveLineup();
    if (this.controller.signal.aborted) return; // we ended it ourselves; finish already ran
    // A level fault is a verdict only from sbeval's own rules (the referee is the headless engine).
    const levelFault = this.settings.classifyError(error) === 'level';
    const decides = this.member.referee || this.member.engine.ownRules === true;
    const kind: AttemptFailureKind = levelFault ? (decides ? 'level' : 'level-claim') : 'crashed';
    const reason = levelFault ? describeError(error) : `engine ${this.engineId} failed: ${describeError(error)}`;
    this.finish({ kind, reason, cause: error });
  }
}
