import { join } from 'node:path';
import { logsDir } from './competition.js';
import { LineFile } from './line-file.js';

/**
 * One log file per stage and run, in the official helpers' naming and line format
 * (chatgpt4pcg-node `appendLog`: `<root>/logs/<stage>_log_<ISO with ':' → '_'>.txt`, lines
 * `[<ISO>] Processing - team: <t> - character: <C> - trial: <file> - Succeed|Failed - <reason>`).
 * Lines are appended synchronously so the log survives a killed run and keeps its order. A line the
 * disk refuses is cut off again (the log ends with its last whole line) and the StorageError stops
 * the stage (core/storage.ts).
 */
type TrialOutcome = { ok: true } | { ok: false; reason: string };

export interface StageSummary {
  stage: string;
  succeeded: number;
  failed: number;
  skipped: number;
  reasons: Map<string, number>;
  logFile: string | undefined;
}

export function logFileStamp(date: Date): string {
  return date.toISOString().replace(/[:/]/g, '_');
}

export class StageLog {
  readonly file: string;
  private readonly summary: StageSummary;
  private readonly lines: LineFile;

  constructor(root: string, stage: string, startedAt: Date = new Date(), private readonly now: () => Date = () => new Date()) {
    this.file = join(logsDir(root), `${stage}_log_${logFileStamp(startedAt)}.txt`);
    this.lines = new LineFile(this.file);
    this.lines.open();
    this.summary = { stage, succeeded: 0, failed: 0, skipped: 0, reasons: new Map(), logFile: this.file };
  }

  /** Records one trial; `trial` is the file name as the official log shows it. */
  trial(team: string, character: string, trial: string, outcome: TrialOutcome): void {
    const head = `[${this.now().toISOString()}] Processing - team: ${team} - character: ${character} - trial: ${trial}`;
    if (outcome.ok) {
      this.summary.succeeded += 1;
      this.append(`${head} - Succeed`);
    } else {
      this.summary.failed += 1;
      this.summary.reasons.set(outcome.reason, (this.summary.reasons.get(outcome.reason) ?? 0) + 1);
      this.append(`${head} - Failed - ${outcome.reason}`);
    }
  }

  /** Work already done by an earlier run: counted, not logged as processed again. */
  skipped(count = 1): void {
    this.summary.skipped += count;
  }

  line(text: string): void {
    this.append(`[${this.now().toISOString()}] ${text}`);
  }

  result(): StageSummary {
    return { ...this.summary, reasons: new Map(this.summary.reasons) };
  }

  private append(line: string): void {
    this.lines.append(`${line}\n`);
  }
}

/** The summary a stage prints: counts, then failures per reason, most frequent first. */
export function formatSummary(summary: StageSummary): string {
  const lines = [`${summary.stage}: ${summary.succeeded} succeeded, ${summary.failed} failed, ${summary.skipped} already done`];
  const reasons = [...summary.reasons.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  for (const [reason, count] of reasons) lines.push(`  ${count} × ${reason}`);
  if (summary.logFile && summary.succeeded + summary.failed > 0) lines.push(`  log: ${summary.logFile}`);
  return lines.join('\n');
}

/** The summary as `--json` prints it (reasons as an object; `extra` adds stage-specific fields). */
export function summaryToJson(summary: StageSummary, extra: Record<string, unknown> = {}) {
  return {
    stage: summary.stage,
    succeeded: summary.succeeded,
    failed: summary.failed,
    skipped: summary.skipped,
    reasons: Object.fromEntries(summary.reasons),
    logFile: summary.logFile ?? null,
    ...extra,
  };
}
