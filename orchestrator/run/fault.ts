import { setMaxListeners } from 'node:events';
import { type StorageError, storageFault } from '../../core/storage.js';
import type { LevelEffects } from '../machine/index.js';

/**
 * A storage fault in the middle of a run (the disk fills up, the folder turns read-only) must stop the
 * whole run: every later write would fail too, and a level whose image or cache could not be written
 * is not a level that failed. The run's log and its level effects report faults here; the latch
 * aborts the run's signal (levels in flight are cancelled, not recorded as failures, so the next run
 * does them) and the run ends by throwing the first fault (exit 2, one line: core/storage.ts).
 */
export class StorageFaultLatch {
  private readonly controller = new AbortController();
  /** The run's signal: aborted by the caller's signal or by the first storage fault. */
  readonly signal: AbortSignal;
  fault: StorageError | undefined;

  constructor(outer: AbortSignal | undefined) {
    this.signal = outer ? AbortSignal.any([outer, this.controller.signal]) : this.controller.signal;
    // Every level in flight listens (bounded by the run's admission, orchestrator/run/run.ts): not a leak.
    setMaxListeners(0, this.signal);
  }

  report(fault: StorageError): void {
    if (this.fault) return;
    this.fault = fault;
    this.controller.abort(fault);
  }

  /** Effects that report a storage fault here before failing (the machine then sees the cancellation). */
  guard<E extends LevelEffects>(effects: E): E {
    const wrapped = { ...effects } as E;
    for (const key of ['extract', 'convert', 'simulate', 'capture', 'commit'] as const) {
      const effect = effects[key].bind(effects) as (input: never, signal: AbortSignal) => Promise<unknown>;
      (wrapped as Record<string, unknown>)[key] = async (input: never, signal: AbortSignal) => {
        try {
          return await effect(input, signal);
        } catch (error) {
          const fault = storageFault(error);
          if (fault) this.report(fault);
          throw fault ?? error;
        }
      };
    }
    return wrapped;
  }
}
