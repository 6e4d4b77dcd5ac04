import { type Clock, TallyingDisplay } from './display.js';
import { formatTallyLine, type StageTally } from './tally.js';

/**
 * For logs and CI (not a terminal): one line when a stage starts, a status line per running stage
 * every `intervalMs` (only when something changed), every note as it happens, and a line when a stage
 * ends. No carriage returns or escape codes, so the output reads well in a file.
 */
export interface LineWriter {
  write(text: string): unknown;
}

export class PlainProgress extends TallyingDisplay {
  private timer: NodeJS.Timeout | undefined;
  private readonly dirty = new Set<string>();
  private closed = false;

  constructor(
    private readonly out: LineWriter,
    private readonly intervalMs = 5000,
    clock: Clock = Date.now,
  ) {
    super(clock);
  }

  /** Prints the status of every stage that changed since the last report (the timer calls this). */
  report(): void {
    const now = this.clock();
    for (const stage of this.dirty) {
      const tally = this.byStage.get(stage);
      if (tally && tally.endedAt === undefined) this.line(formatTallyLine(tally, now));
    }
    this.dirty.clear();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  protected onStart(tally: StageTally): void {
    this.line(`${tally.stage}: started, ${tally.total} to do`);
    this.ensureTimer();
  }

  protected onTick(tally: StageTally): void {
    this.dirty.add(tally.stage);
  }

  protected onNote(stage: string, message: string): void {
    this.line(`${stage}: ${message}`);
  }

  protected onEnd(tally: StageTally): void {
    this.dirty.delete(tally.stage);
    this.line(formatTallyLine(tally, this.clock()));
  }

  private ensureTimer(): void {
    if (this.timer || this.closed || this.intervalMs <= 0) return;
    this.timer = setInterval(() => this.report(), this.intervalMs);
    this.timer.unref();
  }

  private line(text: string): void {
    if (!this.closed) this.out.write(`[${new Date(this.clock()).toISOString()}] ${text}\n`);
  }
}
