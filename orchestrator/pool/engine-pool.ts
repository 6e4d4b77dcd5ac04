import type { Engine, EngineIdentity } from '../../bridge/engine.js';
import { describeError, SbevalError } from '../../core/errors.js';
import { Claims } from './claims.js';
import { PoolCore } from './core.js';
import { Dispatch } from './dispatch.js';
import { EngineWait } from './engine-wait.js';
import { newPending } from './job.js';
import { JobAttempts } from './job-attempts.js';
import { healthOf } from './member.js';
import { poolSettings } from './options.js';
import { Replacement } from './replacement.js';
import { settlesWithin } from './settle.js';
import { type EngineHealth, type EnginePoolOptions, type PoolEvent, PoolJobError, type PoolRequest, type PoolRunResult } from './types.js';

/**
 * The engine pool hands level jobs (one trial of one level each) to free engines and makes sure no
 * job is lost when an engine misbehaves. Each concern is a part of its own:
 * - the queue and who takes which job (dispatch.ts), one attempt on one engine with its watchdogs
 *   (attempt.ts, watchdogs.ts: a run that rejects, stalls for `stallMs`, overruns `jobTimeoutMs` or
 *   streams garbage fails its attempt), and what an attempt's end means for the job: a result, a run
 *   on another engine up to `maxAttempts` with every attempt's reason recorded, or a failure
 *   (job-attempts.ts);
 * - what a failure means for the engine (engine-health.ts), and retiring and replacing engines within
 *   a visible restart budget (replacement.ts);
 * - an engine's word checked: level faults from engines without sbeval's own rules are claims, run
 *   again elsewhere or on the referee, and an engine proven false is discredited (claims.ts);
 * - a pool left without engines: its jobs fail, or wait for bridge engines to dial in (engine-wait.ts).
 * A caller's AbortSignal cancels a queued job at once and a running one through the engine's signal.
 */
export class EnginePool {
  private readonly core: PoolCore;
  private readonly replacement: Replacement;
  private readonly claims: Claims;
  private readonly dispatch: Dispatch;
  private readonly engineWait: EngineWait;
  private closed: Promise<void> | undefined;
  /** `firstEngine` calls still waiting: the close ends them. */
  private readonly waiters = new Set<() => void>();
  /** Engines retired so far, replacements started by the factory, and replacements that could not be made. */
  readonly stats: Replacement['stats'];

  /** A pool over the given engines (no factory needed), or an empty one that `create` fills. */
  constructor(private readonly config: EnginePoolOptions = {}) {
    const core = new PoolCore(config, poolSettings(config), { pump: () => this.dispatch.pump(), checkEngines: () => this.engineWait.check() });
    this.core = core;
    this.replacement = new Replacement(core, (engine, slot, generation) => this.admit(engine, slot, generation));
    this.stats = this.replacement.stats;
    this.claims = new Claims(core, this.replacement);
    this.dispatch = new Dispatch(core, this.claims, new JobAttempts(core, this.claims, this.replacement));
    this.engineWait = new EngineWait(core, this.claims, this.replacement);
    // With a factory, the starting engines own slots 0..n-1 like factory-made ones, so a retired
    // starting engine is replaced too (without a slot it never was, and the pool shrank silently).
    (config.engines ?? []).forEach((engine, slot) => this.admit(engine, config.factory ? slot : undefined, 0));
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
      if (s.status === 'fulfilled') pool.admit(s.value, slot, 0);
    });
    if (failures.length > 0) {
      await pool.close();
      throw new SbevalError('launch', `${failures.length} of ${size} engines failed to start: ${describeError(failures[0]?.reason)}`, undefined, {
        cause: failures[0]?.reason,
      });
    }
    return pool;
  }

  /** Live engines (not retired; the referee is not one of them). */
  get size(): number {
    return this.core.engines().length;
  }

  /** Whether the engine with this serial (`PoolRunResult.engineSerial`) was proven false: nothing it gave may be kept. */
  isDiscredited(engineSerial: number): boolean {
    return this.core.discredited.has(engineSerial);
  }

  /** What the engine with this serial (`PoolRunResult.engineSerial`) announced itself as (undefined: no such engine). */
  identityOf(engineSerial: number): EngineIdentity | undefined {
    return this.core.members.find((m) => m.serial === engineSerial)?.engine.identity;
  }

  /**
   * The identity of a live engine (not the referee), once one is there: engines that dial in are known
   * only by their `hello`. Undefined when the signal stops the wait or the pool closes first.
   */
  firstEngine(signal?: AbortSignal): Promise<EngineIdentity | undefined> {
    const live = () => this.core.engines()[0]?.engine.identity;
    const now = live();
    if (now || this.core.closing || signal?.aborted) return Promise.resolve(now);
    return new Promise((resolve) => {
      const done = (identity: EngineIdentity | undefined) => {
        stop();
        signal?.removeEventListener('abort', end);
        this.waiters.delete(end);
        resolve(identity);
      };
      const end = () => done(undefined);
      // The referee joining is no engine of the stage's: wait on for one that runs jobs.
      const stop = this.core.listen((event) => {
        const identity = event.type === 'engine-added' ? live() : undefined;
        if (identity) done(identity);
      });
      signal?.addEventListener('abort', end, { once: true });
      this.waiters.add(end);
    });
  }

  /** Also tells `listener` every pool event (after `onEvent`); returns the function that stops it. */
  listen(listener: (event: PoolEvent) => void): () => void {
    return this.core.listen(listener);
  }

  /** Jobs waiting for an engine. */
  get queued(): number {
    return this.core.queue.length;
  }

  health(): EngineHealth[] {
    return this.core.engines().map(healthOf);
  }

  /** Adds an engine that became available (a remote engine that dialled in). */
  add(engine: Engine): void {
    if (this.core.closing) {
      this.core.track(engine.close());
      return;
    }
    this.admit(engine, undefined, 0);
    this.dispatch.pump();
  }

  /**
   * Runs one job to completion on some engine. Resolves with the engine that produced the stream and
   * every attempt; rejects with `PoolJobError` (kind and reason of the last attempt) when the level
   * failed, the attempts ran out, no engine is left, or the signal/close cancelled it.
   */
  run(request: PoolRequest): Promise<PoolRunResult> {
    const levelId = request.job.levelId;
    return new Promise<PoolRunResult>((resolve, reject) => {
      if (this.core.closing) {
        reject(new PoolJobError('cancelled', levelId, `${levelId}: the engine pool is closed`, []));
        return;
      }
      if (request.signal?.aborted) {
        reject(new PoolJobError('cancelled', levelId, `${levelId}: cancelled before it started`, []));
        return;
      }
      const pending = newPending(request, Math.max(1, request.maxAttempts ?? this.core.settings.maxAttempts), resolve, reject);
      const signal = request.signal;
      if (signal) {
        const onAbort = () => this.dispatch.cancel(pending, `cancelled: ${describeError(signal.reason ?? 'aborted')}`);
        signal.addEventListener('abort', onAbort, { once: true });
        pending.detachAbort = () => signal.removeEventListener('abort', onAbort);
      }
      this.core.queue.push(pending);
      this.dispatch.pump();
      this.engineWait.check();
    });
  }

  /** Cancels queued and running jobs, waits for running attempts to settle, closes every engine. Idempotent. */
  close(): Promise<void> {
    this.closed ??= this.doClose();
    return this.closed;
  }

  private async doClose(): Promise<void> {
    const core = this.core;
    core.closing = true;
    this.engineWait.stop();
    for (const end of [...this.waiters]) end();
    for (const pending of [...core.queue]) this.dispatch.cancel(pending, 'cancelled: the engine pool closed');
    for (const pending of [...core.running]) pending.cancelAttempt?.('cancelled: the engine pool closed');
    const live = core.members.filter((m) => !m.retired);
    await Promise.all(live.flatMap((m) => [...m.running].map((r) => settlesWithin(r, core.settings.settleMs))));
    for (const member of core.members) if (!member.retired) this.replacement.retire(member, 'the engine pool closed', false);
    await core.drain();
    await this.config.onClosed?.();
  }

  /** An engine joins the pool: a starting one, a replacement, or one that dialled in. */
  private admit(engine: Engine, slot: number | undefined, generation: number): void {
    this.engineWait.arrived();
    this.core.join(engine, slot, generation, false);
  }
}
