import cliProgress from 'cli-progress';
import { type Clock, TallyingDisplay } from './display.js';
import { eta, formatDuration, rate, type StageTally } from './tally.js';

/**
 * On a terminal: a live bar per stage (cli-progress MultiBar) with done/total, ok/failed/skipped,
 * rate and ETA; notes (retries, engine restarts) scroll above the bars.
 */
export class TtyProgress extends TallyingDisplay {
  private readonly multibar: cliProgress.MultiBar;
  private readonly bars = new Map<string, cliProgress.SingleBar>();
  private closed = false;

  constructor(stream: NodeJS.WritableStream, clock: Clock = Date.now) {
    super(clock);
    this.multibar = new cliProgress.MultiBar(
      {
        stream: stream as NodeJS.WritableStream & { isTTY: boolean },
        format: '{stage} {bar} {value}/{total} | ok {ok} failed {failed} skipped {skipped} | {rate}/s ETA {left}',
        barCompleteChar: '█',
        barIncompleteChar: '░',
        hideCursor: true,
        clearOnComplete: false,
        stopOnComplete: false,
        // The run handles SIGINT itself (it cancels the levels and writes what is done).
        gracefulExit: false,
        autopadding: true,
      },
      cliProgress.Presets.shades_classic,
    );
  }

  close(): void {
    if (this.closed) return;
    for (const tally of this.byStage.values()) this.redraw(tally);
    // Draw once more so notes logged since the last frame and the final counts reach the terminal.
    if (this.bars.size > 0) this.multibar.update();
    this.closed = true;
    this.multibar.stop();
  }

  protected onStart(tally: StageTally): void {
    if (this.closed) return;
    const existing = this.bars.get(tally.stage);
    if (existing) existing.setTotal(tally.total);
    else this.bars.set(tally.stage, this.multibar.create(tally.total, 0, this.payload(tally)));
  }

  protected onTick(tally: StageTally): void {
    this.redraw(tally);
  }

  protected onNote(stage: string, message: string): void {
    if (!this.closed) this.multibar.log(`${stage}: ${message}\n`);
  }

  protected onEnd(tally: StageTally): void {
    this.redraw(tally);
  }

  private redraw(tally: StageTally): void {
    const bar = this.bars.get(tally.stage);
    if (!bar || this.closed) return;
    if (bar.getTotal() !== tally.total) bar.setTotal(tally.total);
    bar.update(tally.ok + tally.failed + tally.skipped, this.payload(tally));
  }

  private payload(tally: StageTally) {
    const now = this.clock();
    return {
      stage: tally.stage.padEnd(10),
      ok: tally.ok,
      failed: tally.failed,
      skipped: tally.skipped,
      rate: rate(tally, now).toFixed(1),
      left: tally.endedAt !== undefined ? 'done' : formatDuration(eta(tally, now)),
    };
  }
}
