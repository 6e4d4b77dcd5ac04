import { closeSync, fsyncSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { InspectionEvent } from 'xstate';
import { type StorageError, storageFault } from '../../core/storage.js';
import { guardWrite } from '../../core/write-guard.js';
import { logsDir } from '../layout/competition.js';
import { logFileStamp } from '../layout/stage-log.js';
import type { PoolEvent } from '../pool/index.js';

/**
 * The orchestration log of one `sbeval run`: `<root>/logs/run_<ISO>.jsonl`, one JSON object per line
 * (the official per-stage `*_log_*.txt` files are still written by the stages). It records the run's
 * settings, every stage start/end, every level's state transitions (from XState's inspection API,
 * under the level's deterministic actor id), every engine-pool event (attempts, retries, engines
 * retired and replaced), levels skipped because an earlier run finished them, and each level's
 * outcome. Lines are written synchronously, so a killed run keeps everything up to the kill.
 *
 * `write` is called from engine-pool and state-machine callbacks, where a throw would be an uncaught
 * exception: a line the disk refuses is cut off again (the log keeps its whole lines), the log stops,
 * and the fault goes to `onFault` (the run stops with it: orchestrator/run/fault.ts).
 */
type RunLogRecord = Record<string, unknown> & { type: string };

export class RunLog {
  readonly file: string;
  private fd: number | undefined;
  private size = 0;
  /** The storage fault that stopped the log, if one did. */
  fault: StorageError | undefined;

  constructor(
    root: string,
    startedAt: Date = new Date(),
    private readonly now: () => Date = () => new Date(),
    private readonly onFault: (fault: StorageError) => void = () => undefined,
  ) {
    this.file = join(logsDir(root), `run_${logFileStamp(startedAt)}.jsonl`);
    try {
      guardWrite(this.file);
      this.fd = openSync(this.file, 'a');
    } catch (error) {
      throw storageFault(error, this.file) ?? error;
    }
  }

  write(record: RunLogRecord): void {
    if (this.fd === undefined) return;
    const line = Buffer.from(`${JSON.stringify({ time: this.now().toISOString(), ...record })}\n`);
    try {
      for (let off = 0; off < line.length; ) off += writeSync(this.fd, line, off, line.length - off);
      this.size += line.length;
    } catch (error) {
      try {
        ftruncateSync(this.fd, this.size);
      } catch {
        // The fault below says why the log ends here.
      }
      const fault = storageFault(error, this.file);
      if (!fault) throw error;
      this.fault ??= fault;
      this.close();
      this.onFault(fault);
    }
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
    const fd = this.fd;
    this.fd = undefined;
    try {
      fsyncSync(fd);
    } catch (error) {
      this.fault ??= storageFault(error, this.file);
    } finally {
      closeSync(fd);
    }
  }
}
