import type { AttemptFailureKind } from './types.js';

/** The limits the watchdogs enforce (`EnginePoolOptions.jobTimeoutMs`, `stallMs`). */
interface Limits {
  jobTimeoutMs: number;
  stallMs: number;
}

/**
 * The two clocks of one attempt: the job timeout (the whole run within `jobTimeoutMs`) and the stall
 * watchdog (no silence between sink callbacks longer than `stallMs`). They start when the engine starts
 * working on the attempt (`arm`, once), every sign of progress restarts the stall clock, and the first
 * to run out calls `fire` with its failure.
 */
export class Watchdogs {
  private armed = false;
  private ended = false;
  private stallTimer: NodeJS.Timeout | undefined;
  private jobTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly limits: Limits,
    private readonly engineId: string,
    private readonly fire: (failure: { kind: AttemptFailureKind; reason: string }) => void,
  ) {}

  /** Starts both clocks, once. */
  arm(): void {
    if (this.armed || this.ended) return;
    this.armed = true;
    this.progress();
    const ms = this.limits.jobTimeoutMs;
    this.jobTimer = setTimeout(() => this.fire({ kind: 'timeout', reason: `engine ${this.engineId} took longer than ${ms} ms` }), ms);
  }

  /** (Re)starts the stall clock: called on every sign of progress. */
  progress(): void {
    if (this.ended) return;
    if (this.stallTimer) clearTimeout(this.stallTimer);
    const ms = this.limits.stallMs;
    this.stallTimer = setTimeout(() => this.fire({ kind: 'stalled', reason: `engine ${this.engineId} stalled: no progress for ${ms} ms` }), ms);
  }

  /** Stops both clocks; progress may start the stall clock again (the attempt has not ended). */
  pause(): void {
    if (this.stallTimer) clearTimeout(this.stallTimer);
    clearTimeout(this.jobTimer);
  }

  /** Stops both clocks for good. */
  stop(): void {
    this.ended = true;
    this.pause();
  }
}
