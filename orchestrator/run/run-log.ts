import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { InspectionEvent } from 'xstate';
import { logFileStamp } from '../layout/stage-log.js';
import type { PoolEvent } from '../pool/index.js';

/**
 * The orchestration log of one `sbeval run`: `<root>/logs/run_<ISO>.jsonl`, one JSON object per line
 * (the official per-stage `*_log_*.txt` files are still written by the stages). It records the run's
 * settings, every stage start/end, every level's state transitions (from XState's inspection API,
 * under the level's deterministic actor id), every engine-pool event (attempts, retries, engines
 * retired and replaced), levels skipped because an earlier run finished them, and each level's
 * outcome. Lines are written synchronously, so a killed run keeps everything up to the kill.
 */
export type RunLogRecord = Record<string, unknown> & { type: string };

export class RunLog {
  readonly file: string;
  private fd: number | undefined;

  constructor(
    root: string,
    startedAt: Date = new Date(),
    private readonly now: () => Date = () => new Date(),
  ) {
    const dir = join(root, 'logs');
    mkdirSync(dir, { recursive: true });
    this.file = join(dir, `run_${logFileStamp(startedAt)}.jsonl`);
    this.fd = openSync(this.file, 'a');
  }

  write(record: RunLogRecord): void {
    if (this.fd === undefined) return;
    writeSync(this.fd, `${JSON.stringify({ time: this.now().toISOString(), ...record })}\n`);
  }

  pool(event: PoolEvent): void {
    this.write({ ...event, type: `pool.${event.type}` });
  }

  /**
   * An inspection listener for level actors: one `transition` line per change of state value, with
   * the event that caused it (done/error outputs included: they carry failure reasons and engine faults).
   */
  inspector(): (event: InspectionEvent) => void {
    const last = new Map<string, string>();
    return (event) => {
      if (event.type !== '@xstate.snapshot') return;
      const id = (event.actorRef as { id?: string }).id ?? '';
      if (!id.startsWith('level:')) return;
      const snapshot = event.snapshot as { value?: unknown; context?: { trial?: number; engineRetries?: number } };
      const value = JSON.stringify(snapshot.value);
      const previous = last.get(id);
      const reentered = event.event.type.startsWith('xstate.done.actor.simulate') || event.event.type.startsWith('xstate.done.actor.capture');
      if (value === previous && !reentered) return;
      last.set(id, value);
      const cause = event.event as { type: string; output?: unknown; error?: unknown; reason?: unknown };
      const record: RunLogRecord = {
        type: 'transition',
        level: id.slice('level:'.length),
        from: previous === undefined ? null : JSON.parse(previous),
        to: snapshot.value,
        event: cause.type,
        trial: snapshot.context?.trial,
      };
      if (cause.output !== undefined) record.output = cause.output;
      if (cause.error !== undefined) record.error = cause.error instanceof Error ? cause.error.message : cause.error;
      if (cause.reason !== undefined) record.reason = cause.reason;
      this.write(record);
    };
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      fsyncSync(this.fd);
    } finally {
      closeSync(this.fd);
      this.fd = undefined;
    }
  }
}
