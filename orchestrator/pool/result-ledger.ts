import { rm } from 'node:fs/promises';
import type { EngineIdentity } from '../../bridge/engine.js';
import type { EnginePool } from './engine-pool.js';

/**
 * Which engines gave which results of one stage, so that nothing an engine gave is kept once the pool
 * discredits it (retires it for a lie: a stream that is not the level's, a level fault another run
 * refuted; claims.ts). A result is keyed by the caller (a level id); for each key the ledger
 * keeps the engines that ran its trials and the files written from them (its cache entry, its image):
 * - when an engine is discredited, every key it worked on is tainted and its files are removed at
 *   once, so a killed run leaves no verdict of a liar behind and the next run recomputes it;
 * - a file written for a key already tainted is removed as soon as it is reported;
 * - the stage asks which keys were tainted (`takeTainted`) and runs them again.
 */
/** The verdict of a level whose every run was on engines later discredited: nothing kept, the next run does it. */
export const NOT_KEPT_REASON = 'simulated by engines later retired for a lie: not kept (run again)';

/** Runs of a level whose engines keep being discredited before it counts as unfinished (each needs a new liar). */
export const RUNS_PER_LEVEL = 3;

export class ResultLedger {
  /** Per key, the serials (`PoolRunResult.engineSerial`) of the engines that ran it. */
  private readonly enginesOf = new Map<string, Set<number>>();
  private readonly filesOf = new Map<string, string[]>();
  private readonly tainted = new Set<string>();
  private readonly removals = new Set<Promise<unknown>>();
  /** The first removal that failed (a liar's file that stays would be read as a result): `settle` throws it. */
  private failure: unknown;
  private readonly stopListening: () => void;

  constructor(private readonly pool: EnginePool | undefined) {
    this.stopListening =
      pool?.listen((event) => {
        if (event.type === 'engine-discredited') this.discredited(event.engineSerial);
      }) ?? (() => undefined);
  }

  /** A trial (or the capture) of `key` ran on the engine with this serial (`PoolRunResult.engineSerial`). */
  used(key: string, engineSerial: number): void {
    const engines = this.enginesOf.get(key) ?? new Set<number>();
    engines.add(engineSerial);
    this.enginesOf.set(key, engines);
    // Its result may arrive after the engine was discredited (another job's run refuted it meanwhile).
    if (this.pool?.isDiscredited(engineSerial)) this.taint(key);
  }

  /** What the engines that ran `key`'s trials announced themselves as (its cache entry records them). */
  identities(key: string): EngineIdentity[] {
    return [...(this.enginesOf.get(key) ?? [])].flatMap((serial) => this.pool?.identityOf(serial) ?? []);
  }

  /** Whether every trial of `key` ran on an engine not discredited (so far). */
  trusted(key: string): boolean {
    return !this.tainted.has(key);
  }

  /** Files written from `key`'s result: removed now if it is tainted, else as soon as it is. */
  wrote(key: string, ...paths: string[]): void {
    if (this.tainted.has(key)) {
      this.remove(paths);
      return;
    }
    this.filesOf.set(key, [...(this.filesOf.get(key) ?? []), ...paths]);
  }

  /** The keys tainted since the last call; the ledger forgets them (their next run starts clean). */
  takeTainted(): string[] {
    const keys = [...this.tainted];
    this.tainted.clear();
    for (const key of keys) this.enginesOf.delete(key);
    return keys;
  }

  /** Waits until the files of tainted keys are gone; throws when one could not be removed. */
  async settle(): Promise<void> {
    while (this.removals.size > 0) await Promise.all([...this.removals]);
    if (this.failure !== undefined) throw this.failure;
  }

  close(): void {
    this.stopListening();
  }

  private discredited(engineSerial: number): void {
    for (const [key, engines] of this.enginesOf) if (engines.has(engineSerial)) this.taint(key);
  }

  private taint(key: string): void {
    this.tainted.add(key);
    this.remove(this.filesOf.get(key) ?? []);
    this.filesOf.delete(key);
  }

  private remove(paths: readonly string[]): void {
    for (const path of paths) {
      const removal = rm(path, { force: true }).catch((error: unknown) => {
        this.failure ??= error;
      });
      this.removals.add(removal);
      void removal.finally(() => this.removals.delete(removal));
    }
  }
}
