import { printable } from '../../core/printable.js';
import { countTick, newTally, type StageTally } from './tally.js';
import type { ProgressSink, TickOutcome } from './types.js';

/**
 * What every display shares: the tallies per stage (in start order) and the final summary. A
 * display is a `ProgressSink` the CLI creates; stages only ever see the sink.
 */
export interface ProgressDisplay extends ProgressSink {
  /** Stops timers and redraws; prints nothing more afterwards. Idempotent. */
  close(): void;
  tallies(): StageTally[];
}

export type Clock = () => number;

export abstract class TallyingDisplay implements ProgressDisplay {
  protected readonly byStage = new Map<string, StageTally>();

  constructor(protected readonly clock: Clock = Date.now) {}

  start(stage: string, total: number): void {
    // A stage may start again (a second model's folder): its counts continue.
    const existing = this.byStage.get(stage);
    if (existing) {
      existing.total += total;
      existing.endedAt = undefined;
    } else this.byStage.set(stage, newTally(stage, total, this.clock()));
    this.onStart(this.byStage.get(stage)!);
  }

  tick(stage: string, outcome: TickOutcome, rawLabel?: string, rawDetail?: string): void {
    // Labels and reasons carry peers' and files' text (engine error texts, names): escaped once, here.
    const label = rawLabel === undefined ? undefined : printable(rawLabel);
    const detail = rawDetail === undefined ? undefined : printable(rawDetail);
    let tally = this.byStage.get(stage);
    if (!tally) {
      // Ticks without a start still count (a stage that does not know its total up front).
      tally = newTally(stage, 0, this.clock());
      this.byStage.set(stage, tally);
    }
    countTick(tally, outcome, detail);
    if (tally.total < tally.ok + tally.failed + tally.skipped) tally.total = tally.ok + tally.failed + tally.skipped;
    this.onTick(tally, outcome, label, detail);
  }

  note(stage: string, message: string): void {
    const tally = this.byStage.get(stage);
    if (tally) tally.notes += 1;
    this.onNote(stage, printable(message));
  }

  end(stage: string): void {
    const tally = this.byStage.get(stage);
    if (!tally) return;
    tally.endedAt = this.clock();
    this.onEnd(tally);
  }

  tallies(): StageTally[] {
    return [...this.byStage.values()];
  }

  abstract close(): void;
  protected abstract onStart(tally: StageTally): void;
  protected abstract onTick(tally: StageTally, outcome: TickOutcome, label: string | undefined, detail: string | undefined): void;
  protected abstract onNote(stage: string, message: string): void;
  protected abstract onEnd(tally: StageTally): void;
}
