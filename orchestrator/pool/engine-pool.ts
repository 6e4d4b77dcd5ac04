import type { Engine, LevelJob, LevelSink } from '../../bridge/engine.js';
import { createEngines } from '../../bridge/engines.js';
import { describeError, SbevalError } from '../../core/errors.js';
import { GuardedSink } from './stream-guard.js';
import {
  ENGINE_FAULTS,
  PoolJobError,
  type AttemptFailureKind,
  type AttemptRecord,
  type EngineHealth,
  type EnginePoolOptions,
  type ErrorClass,
  type PoolEvent,
  type PoolRequest,
  type PoolRunResult,
} from './types.js';

/**
 * The engine pool hands level jobs (one trial of one level each) to free engines and makes sure no
 * job is lost when an engine misbehaves:
 * - an engine whose `run` rejects, stalls (no sink callback for `stallMs`), overruns `jobTimeoutMs`
 *   or streams garbage fails that attempt; the job goes back to the front of the queue and runs on
 *   another engine when one exists, up to `maxAttempts`, with every attempt's reason recorded;
 * - an engine that stalled, overran, streamed garbage, reported itself dead (`alive === false`) or
 *   failed `maxConsecutiveFailures` times in a row is retired (closed) and, with a factory, replaced,
 *   within a visible restart budget (`maxReplacements`);
 * - a level error from an engine with sbeval's own rules (`Engine.ownRules`: the headless engine)
 *   fails the job at once with its reason: another engine would say the same, and it stays healthy;
 * - a level error from any other engine (a Unity instance, anything that dialled in) is a claim, never
 *   a verdict ("no engine decides alone", docs/engines-and-claims.md): the job runs again on an engine
 *   that did not claim it, or on the referee (the headless engine, made on first need) when the pool
 *   has no other. The job then fails only with the reason sbeval's own rules give, the claims kept as
 *   the error's `detail`; a claim that another engine's run refutes discredits the claimer (below);
 * - an engine whose word was proven false (a stream that is not the level's, a refuted claim) is
 *   discredited: retired, and reported (`engine-discredited`) so callers drop what it gave earlier;
 * - a caller's AbortSignal cancels a queued job at once and a running one through the engine's signal;
 * - an engine that takes more than one run at once (`Engine.capacity`, the worker-thread engine) gets
 *   its next job while it still runs one, so it never waits for this thread; its runs execute in
 *   hand-over order, so an attempt's stall and job timers start only when every attempt handed to
 *   that engine before it has settled (waiting behind another trial is not slowness), and an engine
 *   that dies fails every attempt it held, each of which is requeued.
 *
 * Lesson from ML-Agents (reference/model-codebases.md §1, §7a.5): every wait is bounded and every
 * failure says which engine, which phase and why.
 */
const DEFAULTS = {
  jobTimeoutMs: 120_000,
  stallMs: 30_000,
  maxAttempts: 3,
  maxConsecutiveFailures: 2,
  settleMs: 2_000,
  closeMs: 5_000,
} as const;

interface Member {
  engine: Engine;
  /** The pool's own number for it, unique over the pool's life (an engine id can come back: a bridge engine reconnecting under its name, a fleet's replacement). */
  serial: number;
  /** The referee: runs only jobs whose level fault claims need checking (`EnginePoolOptions.referee`). */
  referee: boolean;
  slot: number | undefined;
  generation: number;
  /** Runs the engine accepts at once (`Engine.capacity`, at least 1). */
  capacity: number;
  /** Attempts holding one of its places (a cancelled run holds its place until it settles). */
  inFlight: number;
  /**
   * Attempts handed to the engine whose run has not settled, in hand-over order: the engine works on
   * the first, so only the first one's watchdogs run (`arm` starts them once).
   */
  lineup: Array<{ arm: () => void }>;
  retired: boolean;
  jobsDone: number;
  consecutiveFailures: number;
  totalFailures: number;
  /** The engine's runs, settled or not (awaited by `close`). */
  running: Set<Promise<unknown>>;
}

interface Pending {
  request: PoolRequest;
  levelId: string;
  maxAttempts: number;
  attempts: AttemptRecord[];
  tried: Set<string>;
  avoid: Set<string>;
  /** Level faults engines without sbeval's rules claimed for this job (the job never goes back to them). */
  claims: Array<{ engineId: string; serial: number; reason: string }>;
  resolve: (result: PoolRunResult) => void;
  reject: (error: unknown) => void;
  /** Ends the running attempt (set while one runs). */
  cancelAttempt: ((reason: string) => void) | undefined;
  detachAbort: () => void;
}

interface Outcome {
  kind: AttemptFailureKind | 'ok';
  reason: string;
  cause?: unknown;
}

/** Default split between level errors and engine faults (see `EnginePoolOptions.classifyError`). */
export function defaultClassifyError(error: unknown): ErrorClass {
  if (error !== null && typeof error === 'object' && (error as { levelError?: unknown }).levelError === true) return 'level';
  if (error instanceof SbevalError && (error.phase === 'input' || error.phase === 'convert')) return 'level';
  return 'engine';
}

/**
 * How many levels a stage should have in flight (each waits for one trial at a time) to keep `engines`
 * busy: one per place an engine offers (`Engine.capacity`) plus two per engine whose results are
 * being taken in meanwhile (stream and capture checks, stability, files on the thread pool).
 */
export function levelsToKeepBusy(engines: readonly Engine[]): number {
  return Math.max(1, engines.reduce((sum, engine) => sum + Math.max(1, engine.capacity ?? 1) + 2, 0));
}

function isReportedDead(engine: Engine): boolean {
  return (engine as { alive?: unknown }).alive === false;
}

function delay(ms: number): Promise<'timeout'> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('timeout'), ms);
    timer.unref?.();
  });
}

async function withTimeout(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const settled = promise.then(
    () => 'settled' as const,
    () => 'settled' as const,
  );
  return (await Promise.race([settled, delay(ms)])) === 'settled';
}

/** What an attempt needs of the pool's settings. */
type AttemptSettings = { jobTimeoutMs: number; stallMs: number; classifyError: (error: unknown) => ErrorClass };

/**
 * One attempt of a job on one engine: its place among the engine's runs (`Member.inFlight`, held until
 * `release`), its place in the engine's lineup, the stall and job watchdogs (armed once it heads the
 * lineup), the engine's run, and its single end: `finish` runs once, whatever ends the attempt first
 * (the run, a watchdog, a stream violation, a cancel), and hands the outcome to the pool.
 */
class Attempt {
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
  private armed = false;
  private stallTimer: NodeJS.Timeout | undefined;
  private jobTimer: NodeJS.Timeout | undefined;
  private readonly lineupEntry = { arm: () => this.arm() };

  constructor(
    readonly member: Member,
    readonly pending: Pending,
    readonly number: number,
    private readonly settings: AttemptSettings,
    private readonly ended: (attempt: Attempt, outcome: Outcome) => void,
  ) {
    this.engineId = member.engine.id;
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
    const guard = new GuardedSink(job, liveSink, () => this.armStall(), (violation) =>
      this.finish({ kind: 'garbage', reason: `engine ${engineId} sent an invalid stream: ${violation.message}` }),
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

  /** Starts the watchdogs once, when the engine starts working on this attempt (it heads the lineup). */
  private arm(): void {
    if (this.armed || this.settled || this.runSettled) return;
    this.armed = true;
    this.armStall();
    this.jobTimer = setTimeout(
      () => this.finish({ kind: 'timeout', reason: `engine ${this.engineId} took longer than ${this.settings.jobTimeoutMs} ms` }),
      this.settings.jobTimeoutMs,
    );
  }

  /** (Re)starts the stall watchdog: called on every sign of progress. */
  private armStall(): void {
    if (this.settled) return;
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.stallTimer = setTimeout(
      () => this.finish({ kind: 'stalled', reason: `engine ${this.engineId} stalled: no progress for ${this.settings.stallMs} ms` }),
      this.settings.stallMs,
    );
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
    clearTimeout(this.jobTimer);
    if (this.stallTimer) clearTimeout(this.stallTimer);
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
    if (this.stallTimer) clearTimeout(this.stallTimer);
    clearTimeout(this.jobTimer);
    // A violation found at the end (or in the capture's full decode) calls finish through the guard's callback.
    if (this.guard!.finish()) return;
    if (await this.guard!.verifyImages()) return;
    this.finish({ kind: 'ok', reason: '' });
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

export class EnginePool {
  private readonly members: Member[] = [];
  private readonly queue: Pending[] = [];
  private readonly background = new Set<Promise<unknown>>();
  private readonly options: Required<Omit<EnginePoolOptions, 'engines' | 'factory' | 'size' | 'onEvent' | 'maxReplacements' | 'awaitEngines' | 'engineWaitMs' | 'onClosed' | 'referee'>> & {
    maxReplacements: number;
  };
  /** Makes the referee (undefined: claims fail their job as the engine said). */
  private readonly refereeFactory: (() => Promise<Engine>) | undefined;
  private refereeStarting = false;
  private readonly listeners = new Set<(event: PoolEvent) => void>();
  private readonly discredited = new Set<number>();
  private nextSerial = 0;
  private replacementsLeft: number;
  private replacementsInFlight = 0;
  private closing = false;
  private closed: Promise<void> | undefined;
  private readonly generations = new Map<number, number>();
  /** An engine (not the referee) was in the pool at some time: an empty pool is then one whose engines left. */
  private hadEngines = false;
  /** Why the last engine left (`engine X was retired (reason)`), for the jobs that then find none. */
  private lastRetirement: string | undefined;
  /** `engineWaitMs` running out after the last engine left. */
  private engineWait: ReturnType<typeof setTimeout> | undefined;
  /** Set when the wait ran out with no engine: jobs fail at once with this reason until one comes. */
  private abandoned: string | undefined;

  /** A pool over the given engines (no factory needed), or an empty one that `create` fills. */
  constructor(private readonly config: EnginePoolOptions = {}) {
    const initial = config.engines?.length || config.size || 1;
    this.options = {
      jobTimeoutMs: config.jobTimeoutMs ?? DEFAULTS.jobTimeoutMs,
      stallMs: config.stallMs ?? DEFAULTS.stallMs,
      maxAttempts: config.maxAttempts ?? DEFAULTS.maxAttempts,
      maxConsecutiveFailures: config.maxConsecutiveFailures ?? DEFAULTS.maxConsecutiveFailures,
      settleMs: config.settleMs ?? DEFAULTS.settleMs,
      closeMs: config.closeMs ?? DEFAULTS.closeMs,
      classifyError: config.classifyError ?? defaultClassifyError,
      maxReplacements: config.maxReplacements ?? 4 * initial,
    };
    this.replacementsLeft = this.options.maxReplacements;
    this.refereeFactory = config.referee === false ? undefined : (config.referee ?? headlessReferee);
    // With a factory, the starting engines own slots 0..n-1 like factory-made ones, so a retired
    // starting engine is replaced too (without a slot it never was, and the pool shrank silently).
    (config.engines ?? []).forEach((engine, slot) => this.addMember(engine, config.factory ? slot : undefined, 0));
  }

  /** Starts `size` engines through the factory (in parallel) unless `engines` were given. */
  static async create(config: EnginePoolOptions): Promise<EnginePool> {
    const pool = new EnginePool(config);
    if ((config.engines?.length ?? 0) > 0) return pool;
    const factory = config.factory;
    if (!factory) throw new SbevalError('launch', 'an engine pool needs engines or an engine factory');
    const size = config.size ?? 1;
    const started = await Promise.allSettled(Array.from({ length: size }, (_, slot) => factory(slot, 0)));
    const failures = started.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    started.forEach((s, slot) => {
      if (s.status === 'fulfilled') pool.addMember(s.value, slot, 0);
    });
    if (failures.length > 0) {
      await pool.close();
      throw new SbevalError('launch', `${failures.length} of ${size} engines failed to start: ${describeError(failures[0]?.reason)}`, undefined, {
        cause: failures[0]?.reason,
      });
    }
    return pool;
  }

  /** Engines retired so far, replacements started by the factory, and replacements that could not be made. */
  readonly stats = { retired: 0, replaced: 0, replaceFailed: 0 };

  /** Live engines (not retired; the referee is not one of them). */
  get size(): number {
    return this.members.filter((m) => !m.retired && !m.referee).length;
  }

  /** Whether the engine with this serial (`PoolRunResult.engineSerial`) was proven false: nothing it gave may be kept. */
  isDiscredited(engineSerial: number): boolean {
    return this.discredited.has(engineSerial);
  }

  /** Also tells `listener` every pool event (after `onEvent`); returns the function that stops it. */
  listen(listener: (event: PoolEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Jobs waiting for an engine. */
  get queued(): number {
    return this.queue.length;
  }

  health(): EngineHealth[] {
    return this.members
      .filter((m) => !m.retired && !m.referee)
      .map((m) => ({
        engineId: m.engine.id,
        slot: m.slot,
        busy: m.inFlight > 0,
        jobsDone: m.jobsDone,
        consecutiveFailures: m.consecutiveFailures,
        totalFailures: m.totalFailures,
      }));
  }

  /** Adds an engine that became available (a remote engine that dialled in). */
  add(engine: Engine): void {
    if (this.closing) {
      this.track(engine.close());
      return;
    }
    this.addMember(engine, undefined, 0);
    this.pump();
  }

  /**
   * Runs one job to completion on some engine. Resolves with the engine that produced the stream and
   * every attempt; rejects with `PoolJobError` (kind and reason of the last attempt) when the level
   * failed, the attempts ran out, no engine is left, or the signal/close cancelled it.
   */
  run(request: PoolRequest): Promise<PoolRunResult> {
    const levelId = request.job.levelId;
    return new Promise<PoolRunResult>((resolve, reject) => {
      if (this.closing) {
        reject(new PoolJobError('cancelled', levelId, `${levelId}: the engine pool is closed`, []));
        return;
      }
      if (request.signal?.aborted) {
        reject(new PoolJobError('cancelled', levelId, `${levelId}: cancelled before it started`, []));
        return;
      }
      const pending: Pending = {
        request,
        levelId,
        maxAttempts: Math.max(1, request.maxAttempts ?? this.options.maxAttempts),
        attempts: [],
        tried: new Set(),
        avoid: new Set(request.avoidEngines ?? []),
        claims: [],
        resolve,
        reject,
        cancelAttempt: undefined,
        detachAbort: () => {},
      };
      const signal = request.signal;
      if (signal) {
        const onAbort = () => this.cancel(pending, `cancelled: ${describeError(signal.reason ?? 'aborted')}`);
        signal.addEventListener('abort', onAbort, { once: true });
        pending.detachAbort = () => signal.removeEventListener('abort', onAbort);
      }
      this.queue.push(pending);
      this.pump();
      this.failIfNoEngines();
    });
  }

  /** Cancels queued and running jobs, waits for running attempts to settle, closes every engine. Idempotent. */
  close(): Promise<void> {
    this.closed ??= this.doClose();
    return this.closed;
  }

  private async doClose(): Promise<void> {
    this.closing = true;
    clearTimeout(this.engineWait);
    for (const pending of [...this.queue]) this.cancel(pending, 'cancelled: the engine pool closed');
    const running = [...this.runningPendings];
    for (const pending of running) pending.cancelAttempt?.('cancelled: the engine pool closed');
    await Promise.all(this.members.filter((m) => !m.retired).flatMap((m) => [...m.running].map((r) => withTimeout(r, this.options.settleMs))));
    for (const member of this.members) if (!member.retired) this.retire(member, 'the engine pool closed', false);
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
    await this.config.onClosed?.();
  }

  private readonly runningPendings = new Set<Pending>();

  private addMember(engine: Engine, slot: number | undefined, generation: number, referee = false): void {
    const member: Member = {
      engine,
      serial: this.nextSerial++,
      referee,
      slot,
      generation,
      capacity: Math.max(1, Math.floor(engine.capacity ?? 1)),
      inFlight: 0,
      lineup: [],
      retired: false,
      jobsDone: 0,
      consecutiveFailures: 0,
      totalFailures: 0,
      running: new Set(),
    };
    if (slot !== undefined) this.generations.set(slot, generation);
    if (!referee) this.engineArrived();
    this.members.push(member);
    this.emit({ type: 'engine-added', engineId: engine.id, slot });
  }

  /**
   * Gives engines with a free place the first job each may take: idle engines first, then second
   * places, and so on, so a short queue spreads over the engines instead of lining up on one.
   */
  private pump(): void {
    if (this.closing) return;
    const depth = Math.max(0, ...this.members.map((m) => m.capacity));
    for (let held = 0; held < depth && this.queue.length > 0; held++) {
      for (const member of this.members) {
        if (member.retired || member.inFlight > held || member.inFlight >= member.capacity) continue;
        const index = this.queue.findIndex((p) => this.accepts(p, member));
        if (index < 0) continue;
        const [pending] = this.queue.splice(index, 1);
        if (pending) this.startAttempt(member, pending);
      }
    }
    this.summonReferee();
  }

  /**
   * A job takes an engine it has not failed on and was not told to avoid, unless only such engines are
   * left; never an engine that claimed its level cannot run. The referee takes only jobs whose claims
   * no other engine can check.
   */
  private accepts(pending: Pending, member: Member): boolean {
    if (member.referee) return this.needsReferee(pending);
    const id = member.engine.id;
    if (pending.claims.some((c) => c.engineId === id)) return false;
    if (!pending.tried.has(id) && !pending.avoid.has(id)) return true;
    return !this.members.some((m) => !m.retired && !m.referee && !pending.tried.has(m.engine.id) && !pending.avoid.has(m.engine.id));
  }

  /** A job with claimed level faults that no live engine of the pool but its claimers could run. */
  private needsReferee(pending: Pending): boolean {
    if (pending.claims.length === 0 || !this.refereeFactory) return false;
    return !this.members.some((m) => !m.retired && !m.referee && !pending.claims.some((c) => c.engineId === m.engine.id));
  }

  /** Starts the referee when a queued job needs it and none is live or starting; without one, such jobs fail. */
  private summonReferee(): void {
    const factory = this.refereeFactory;
    if (!factory || this.closing || this.refereeStarting) return;
    if (this.members.some((m) => m.referee && !m.retired) || !this.queue.some((p) => this.needsReferee(p))) return;
    this.refereeStarting = true;
    this.track(
      factory().then(
        (engine) => {
          this.refereeStarting = false;
          if (this.closing) {
            this.track(withTimeout(engine.close(), this.options.closeMs));
            return;
          }
          this.addMember(engine, undefined, 0, true);
          this.pump();
        },
        (error: unknown) => {
          this.refereeStarting = false;
          for (const pending of this.queue.filter((p) => this.needsReferee(p))) {
            this.queue.splice(this.queue.indexOf(pending), 1);
            this.fail(pending, 'no-engines', `${pending.levelId}: no engine could check that the level cannot run: ${describeError(error)}`, error, claimsDetail(pending));
          }
          this.pump();
        },
      ),
    );
  }

  /**
   * An engine without sbeval's rules said the job's level cannot run: run it again elsewhere (another
   * engine, else the referee), never on the claimer. Without a referee the claim fails the job as said.
   */
  private checkClaim(pending: Pending, member: Member, attempt: number, outcome: Outcome): void {
    const engineId = member.engine.id;
    if (this.closing) {
      this.fail(pending, 'cancelled', `${pending.levelId}: the engine pool closed`, outcome.cause, claimsDetail(pending));
      return;
    }
    if (!this.refereeFactory) {
      this.fail(pending, 'level', outcome.reason, outcome.cause);
      this.pump();
      return;
    }
    pending.claims.push({ engineId, serial: member.serial, reason: outcome.reason });
    this.emit({ type: 'requeued', levelId: pending.levelId, attempt: attempt + 1, reason: `engine ${engineId} says the level cannot run (${outcome.reason}); checking that on another engine` });
    this.queue.unshift(pending);
    this.pump();
    this.failIfNoEngines();
  }

  /** The job ran on `engineId` although engines had claimed its level cannot run: each claimer lied. */
  private refuteClaims(pending: Pending, engineId: string): void {
    for (const claim of pending.claims) {
      const claimer = this.members.find((m) => m.serial === claim.serial);
      if (claimer) this.discredit(claimer, `engine ${claim.engineId} said level ${pending.levelId} cannot run (${claim.reason}), but engine ${engineId} ran it`);
    }
  }

  /** The engine's word was proven false: it is retired, and callers are told to drop what it gave. */
  private discredit(member: Member, reason: string): void {
    if (this.discredited.has(member.serial)) return;
    this.discredited.add(member.serial);
    this.emit({ type: 'engine-discredited', engineId: member.engine.id, engineSerial: member.serial, reason });
    if (!member.retired) this.retire(member, reason);
  }

  private startAttempt(member: Member, pending: Pending): void {
    const attempt = new Attempt(member, pending, pending.attempts.length + 1, this.options, (ended, outcome) => this.attemptEnded(ended, outcome));
    pending.tried.add(attempt.engineId);
    this.runningPendings.add(pending);
    this.emit({ type: 'attempt-start', levelId: pending.levelId, attempt: attempt.number, engineId: attempt.engineId });
    const { job, sink } = pending.request;
    let liveSink: LevelSink | undefined;
    try {
      liveSink = typeof sink === 'function' ? sink(attempt.number, member.engine) : undefined;
    } catch (error) {
      // The caller's sink factory failed (e.g. a trace file cannot be created): nothing ran.
      attempt.release();
      this.runningPendings.delete(pending);
      pending.detachAbort();
      this.emit({ type: 'job-failed', levelId: pending.levelId, kind: 'crashed', reason: describeError(error) });
      pending.reject(error);
      queueMicrotask(() => this.pump());
      return;
    }
    attempt.start(job, liveSink);
  }

  /** An attempt ended (`Attempt.finish`): the job succeeds, is checked elsewhere, runs again, or fails. */
  private attemptEnded(attempt: Attempt, outcome: Outcome): void {
    const { member, pending, number, engineId } = attempt;
    this.runningPendings.delete(pending);
    if (!attempt.runSettled) attempt.controller.abort(new Error(outcome.reason));

    if (outcome.kind === 'ok') {
      pending.attempts.push({ attempt: number, engineId });
      member.jobsDone += 1;
      member.consecutiveFailures = 0;
      attempt.release();
      this.refuteClaims(pending, engineId);
      this.succeed(pending, attempt.guard!, member);
      this.pump();
      return;
    }

    pending.attempts.push({ attempt: number, engineId, failure: { kind: outcome.kind, reason: outcome.reason } });
    this.emit({ type: 'attempt-failed', levelId: pending.levelId, attempt: number, engineId, kind: outcome.kind, reason: outcome.reason });
    this.afterFailedAttempt(member, outcome, attempt.runSettled, attempt.running, () => attempt.release());

    if (outcome.kind === 'level-claim') {
      this.checkClaim(pending, member, number, outcome);
      return;
    }
    this.retryOrFail(pending, number, outcome);
  }

  /** After a failed attempt: an engine fault runs the job again while attempts are left; anything else fails it. */
  private retryOrFail(pending: Pending, attempt: number, outcome: Outcome): void {
    const engineAttempts = pending.attempts.filter((a) => a.failure?.kind !== 'level-claim').length;
    if (ENGINE_FAULTS.has(outcome.kind as AttemptFailureKind) && engineAttempts < pending.maxAttempts && !this.closing) {
      this.emit({ type: 'requeued', levelId: pending.levelId, attempt: attempt + 1, reason: outcome.reason });
      this.queue.unshift(pending); // retries first: a requeued job is never starved by new work
      this.pump();
      this.failIfNoEngines();
      return;
    }
    const exhausted = ENGINE_FAULTS.has(outcome.kind as AttemptFailureKind) && engineAttempts > 1;
    const message = exhausted ? `${outcome.reason} (after ${engineAttempts} attempts)` : outcome.reason;
    this.fail(pending, outcome.kind as AttemptFailureKind, message, outcome.cause, claimsDetail(pending));
    this.pump();
  }

  /** Updates the engine's health after a failed attempt and frees or retires it. */
  private afterFailedAttempt(member: Member, outcome: Outcome, runSettled: boolean, running: Promise<unknown>, release: () => void): void {
    const kind = outcome.kind as AttemptFailureKind;
    if (kind === 'level' || kind === 'level-claim') {
      member.consecutiveFailures = 0; // it answered properly (a claim is judged once it is checked)
      release();
      return;
    }
    if (kind === 'cancelled') {
      if (runSettled) {
        release();
        return;
      }
      // Give the engine a moment to honour its abort signal; one that ignores it cannot be trusted.
      this.track(
        withTimeout(running, this.options.settleMs).then((ok) => {
          if (member.retired) return;
          if (ok && !this.closing) {
            release();
            this.pump();
          } else if (!ok) this.retire(member, `engine ${member.engine.id} ignored cancellation`);
        }),
      );
      return;
    }
    member.consecutiveFailures += 1;
    member.totalFailures += 1;
    if (kind === 'garbage') {
      // A stream that is not the level's: its earlier streams are not to be trusted either.
      this.discredit(member, outcome.reason);
      return;
    }
    const mustRetire =
      kind === 'stalled' ||
      kind === 'timeout' ||
      isReportedDead(member.engine) ||
      member.consecutiveFailures >= this.options.maxConsecutiveFailures;
    if (mustRetire) this.retire(member, outcome.reason);
    else release();
  }

  private succeed(pending: Pending, guard: GuardedSink, member: Member): void {
    const engineId = member.engine.id;
    pending.detachAbort();
    const sink = pending.request.sink;
    if (typeof sink !== 'function') {
      try {
        guard.replay(sink);
      } catch (error) {
        // The caller's own sink threw: report it as it is, it says nothing about the engine.
        this.emit({ type: 'job-failed', levelId: pending.levelId, kind: 'crashed', reason: describeError(error) });
        pending.reject(error);
        return;
      }
    }
    this.emit({ type: 'job-done', levelId: pending.levelId, engineId, attempts: pending.attempts.length });
    pending.resolve({ engineId, engineSerial: member.serial, attempts: pending.attempts });
  }

  private fail(pending: Pending, kind: PoolJobError['kind'], message: string, cause?: unknown, detail?: string): void {
    pending.detachAbort();
    this.emit({ type: 'job-failed', levelId: pending.levelId, kind, reason: message });
    pending.reject(new PoolJobError(kind, pending.levelId, message, pending.attempts, { cause, ...(detail ? { detail } : {}) }));
  }

  private cancel(pending: Pending, reason: string): void {
    const index = this.queue.indexOf(pending);
    if (index >= 0) {
      this.queue.splice(index, 1);
      this.fail(pending, 'cancelled', `${pending.levelId}: ${reason}`);
      return;
    }
    pending.cancelAttempt?.(reason);
  }

  /** Closes an engine in the background and, with a factory and budget left, starts its replacement. */
  private retire(member: Member, reason: string, replace = true): void {
    if (member.retired) return;
    member.retired = true;
    // A liar's reason quotes its own claim: the jobs left say only that it lied (the run log has the rest).
    if (!member.referee) this.lastRetirement = `engine ${member.engine.id} was retired ${this.discredited.has(member.serial) ? 'for a lie' : `(${reason})`}`;
    if (replace) this.stats.retired += 1;
    this.emit({ type: 'engine-retired', engineId: member.engine.id, reason });
    this.track(withTimeout(member.engine.close(), this.options.closeMs));
    if (replace && !this.closing && this.config.factory && member.slot !== undefined) this.replace(member.slot, 0);
    this.failIfNoEngines();
  }

  /**
   * Starts a replacement for `slot`, within the restart budget. A factory that fails is tried again
   * (after a short, growing pause) while budget is left, so a retired engine is replaced unless the
   * budget runs out — and then the pool says so (`engine-replace-failed`).
   */
  private replace(slot: number, failuresSoFar: number): void {
    const factory = this.config.factory;
    if (!factory || this.closing) return;
    if (this.replacementsLeft <= 0) {
      this.stats.replaceFailed += 1;
      this.emit({ type: 'engine-replace-failed', slot, reason: `restart budget of ${this.options.maxReplacements} replacements used up` });
      return;
    }
    this.replacementsLeft -= 1;
    this.replacementsInFlight += 1;
    const generation = (this.generations.get(slot) ?? 0) + 1;
    this.generations.set(slot, generation);
    this.stats.replaced += 1;
    let retry = false;
    this.track(
      factory(slot, generation)
        .then(
          (engine) => {
            if (this.closing) {
              this.track(withTimeout(engine.close(), this.options.closeMs));
              return;
            }
            this.addMember(engine, slot, generation);
          },
          (error: unknown) => {
            this.stats.replaced -= 1;
            this.emit({ type: 'engine-replace-failed', slot, reason: describeError(error) });
            retry = !this.closing && this.replacementsLeft > 0;
            if (!retry) this.stats.replaceFailed += 1;
          },
        )
        .then(async () => {
          if (retry) await delay(Math.min(5_000, 250 * 2 ** failuresSoFar));
        })
        .finally(() => {
          this.replacementsInFlight -= 1;
          if (retry) this.replace(slot, failuresSoFar + 1);
          this.pump();
          this.failIfNoEngines();
        }),
    );
  }

  /**
   * With no engine left and none coming, queued jobs can never run (but the referee's): fail them with
   * that reason. A pool that awaits engines waits for one (`engineWaitMs`, once engines were there).
   */
  private failIfNoEngines(): void {
    if (this.closing || this.size > 0 || this.replacementsInFlight > 0) return;
    if (this.config.awaitEngines) {
      this.awaitNewEngine();
      return;
    }
    this.failStranded((pending) => {
      const last = pending.attempts.at(-1)?.failure?.reason;
      return `no engine left to run it${last ? ` (last failure: ${last})` : ''}`;
    });
  }

  /**
   * A pool engines dial into (a bridge run) whose engines all left: queued jobs wait `engineWaitMs` for a
   * new one, then fail with "no engine left: …" (the run ends instead of waiting for good, issue 22), and
   * so does every job asked for after, until an engine comes (`engineArrived`).
   */
  private awaitNewEngine(): void {
    const waitMs = this.config.engineWaitMs;
    if (waitMs === undefined || !this.hadEngines) return;
    if (this.abandoned !== undefined) {
      const reason = this.abandoned;
      this.failStranded(() => reason);
      return;
    }
    this.engineWait ??= setTimeout(() => {
      this.engineWait = undefined;
      if (this.closing || this.size > 0) return;
      this.abandoned = `no engine left: ${this.lastRetirement ?? 'every engine left'}; no engine dialled in within ${waitMs / 1000} s`;
      this.failIfNoEngines();
    }, waitMs);
  }

  /** An engine joined: jobs wait for engines again as they did before the last one left. */
  private engineArrived(): void {
    this.hadEngines = true;
    this.abandoned = undefined;
    clearTimeout(this.engineWait);
    this.engineWait = undefined;
  }

  /** Fails every queued job but those only the referee may run, each with `reason(job)` after its level id. */
  private failStranded(reason: (pending: Pending) => string): void {
    const stranded = this.queue.filter((p) => !this.needsReferee(p));
    this.queue.splice(0, this.queue.length, ...this.queue.filter((p) => this.needsReferee(p)));
    for (const pending of stranded) this.fail(pending, 'no-engines', `${pending.levelId}: ${reason(pending)}`);
  }

  private track(promise: Promise<unknown>): void {
    const tracked = promise.catch(() => undefined);
    this.background.add(tracked);
    void tracked.finally(() => this.background.delete(tracked));
  }

  private emit(event: PoolEvent): void {
    for (const listener of [this.config.onEvent, ...this.listeners]) {
      try {
        listener?.(event);
      } catch {
        // A broken listener must not break scheduling.
      }
    }
  }
}

/** The engines' claims of a job, kept beside the reason sbeval's rules gave (`PoolJobError.detail`). */
function claimsDetail(pending: Pending): string | undefined {
  return pending.claims.length === 0 ? undefined : pending.claims.map((c) => `engine ${c.engineId} said: ${c.reason}`).join('; ');
}

/** The default referee: sbeval's own rules, the headless engine in a worker thread. */
async function headlessReferee(): Promise<Engine> {
  const [engine] = await createEngines('headless', 1);
  if (!engine) throw new SbevalError('launch', 'no headless engine to check a claimed level fault');
  return engine;
}
