import { type Clock, TallyingDisplay } from './display.js';
import type { LineWriter } from './plain.js';
import { done, type StageTally } from './tally.js';
import type { TickOutcome } from './types.js';

/**
 * `--json`: one JSON object per line for every progress event, for other programs to read:
 * `{"type":"start","stage":"simulate","total":2600,"time":"…"}`,
 * `{"type":"tick","stage":"simulate","outcome":"failed","label":"team/A/team_A_3","detail":"…","done":12,"total":2600,"time":"…"}`,
 * `{"type":"note",…,"message":"…"}`, `{"type":"end","stage":…,"ok":…,"failed":…,"skipped":…,"time":"…"}`.
 * The run adds its own `{"type":"summary",…}` line at the end (orchestrator/run).
 */
export class JsonProgress extends TallyingDisplay {
  private closed = false;

  constructor(
    private readonly out: LineWriter,
    clock: Clock = Date.now,
  ) {
    super(clock);
  }

  emit(record: Record<string, unknown>): void {
    if (!this.closed) this.out.write(`${JSON.stringify({ ...record, time: new Date(this.clock()).toISOString() })}\n`);
  }

  close(): void {
    this.closed = true;
  }

  protected onStart(tally: StageTally): void {
    this.emit({ type: 'start', stage: tally.stage, total: tally.total });
  }

  protected onTick(tally: StageTally, outcome: TickOutcome, label: string | undefined, detail: string | undefined): void {
    this.emit({ type: 'tick', stage: tally.stage, outcome, label, detail, done: done(tally), total: tally.total });
  }

  protected onNote(stage: string, message: string): void {
    this.emit({ type: 'note', stage, message });
  }

  protected onEnd(tally: StageTally): void {
    this.emit({ type: 'end', stage: tally.stage, ok: tally.ok, failed: tally.failed, skipped: tally.skipped, total: tally.total });
  }
}
