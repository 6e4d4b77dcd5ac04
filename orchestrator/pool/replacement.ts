import type { Engine } from '../../bridge/engine.js';
import { describeError } from '../../core/errors.js';
import type { PoolCore } from './core.js';
import type { Member } from './member.js';
import { delay } from './settle.js';

/**
 * Retiring engines and replacing them: a retired engine is closed in the background and, with a
 * factory, replaced within the restart budget (`maxReplacements`). A factory that fails is tried again
 * (after a short, growing pause) while budget is left, so a retired engine is replaced unless the
 * budget runs out — and then the pool says so (`engine-replace-failed`).
 */
export class Replacement {
  /** Engines retired so far, replacements started by the factory, and replacements that could not be made. */
  readonly stats = { retired: 0, replaced: 0, replaceFailed: 0 };
  /** Why the last engine left (`engine X was retired (reason)`), for the jobs that then find none. */
  lastRetirement: string | undefined;
  private left: number;
  private starting = 0;
  /** The last generation asked of the factory per slot (a failed start counts: the next one is new). */
  private readonly generations = new Map<number, number>();

  constructor(
    private readonly core: PoolCore,
    /** Adds a started replacement to the pool. */
    private readonly admit: (engine: Engine, slot: number, generation: number) => void,
  ) {
    this.left = core.settings.maxReplacements;
  }

  /** Replacements the factory is making right now (engines that are coming). */
  get inFlight(): number {
    return this.starting;
  }

  /** Closes an engine in the background and, with a factory and budget left, starts its replacement. */
  retire(member: Member, reason: string, replace = true): void {
    const core = this.core;
    if (member.retired) return;
    member.retired = true;
    // A liar's reason quotes its own claim: the jobs left say only that it lied (the run log has the rest).
    if (!member.referee) this.lastRetirement = `engine ${member.engine.id} was retired ${core.discredited.has(member.serial) ? 'for a lie' : `(${reason})`}`;
    if (replace) this.stats.retired += 1;
    core.emit({ type: 'engine-retired', engineId: member.engine.id, reason });
    core.closeEngine(member.engine);
    if (replace && !core.closing && core.config.factory && member.slot !== undefined) this.replace(member.slot, 0);
    core.schedule.checkEngines();
  }

  /** Starts a replacement for `slot`, within the restart budget; a failed start is tried again while budget is left. */
  private replace(slot: number, failuresSoFar: number): void {
    const core = this.core;
    const factory = core.config.factory;
    if (!factory || core.closing) return;
    if (this.left <= 0) {
      this.stats.replaceFailed += 1;
      core.emit({ type: 'engine-replace-failed', slot, reason: `restart budget of ${core.settings.maxReplacements} replacements used up` });
      return;
    }
    this.left -= 1;
    this.starting += 1;
    const generation = (this.generations.get(slot) ?? 0) + 1;
    this.generations.set(slot, generation);
    this.stats.replaced += 1;
    let retry = false;
    core.track(
      factory(slot, generation)
        .then(
          (engine) => {
            if (core.closing) core.closeEngine(engine);
            else this.admit(engine, slot, generation);
          },
          (error: unknown) => {
            this.stats.replaced -= 1;
            core.emit({ type: 'engine-replace-failed', slot, reason: describeError(error) });
            retry = !core.closing && this.left > 0;
            if (!retry) this.stats.replaceFailed += 1;
          },
        )
        .then(async () => {
          if (retry) await delay(Math.min(5_000, 250 * 2 ** failuresSoFar));
        })
        .finally(() => {
          this.starting -= 1;
          if (retry) this.replace(slot, failuresSoFar + 1);
          core.schedule.pump();
          core.schedule.checkEngines();
        }),
    );
  }
}
