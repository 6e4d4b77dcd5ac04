import { join } from 'node:path';
import { printable } from '../../core/printable.js';
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

/** A line of the log as written, with the trial it is about (none for a free line). */
interface WrittenLine {
  text: string;
  trial?: { key: string; outcome: TrialOutcome };
}

const trialKey = (team: string, character: string, trial: string) => JSON.stringify([team, character, trial]);

export class StageLog {
  readonly file: string;
  private readonly summary: StageSummary;
  private readonly lines: LineFile;
  private written: WrittenLine[] = [];

  constructor(
    root: string,
    stage: string,
    startedAt: Date = new Date(),
    private readonly now: () => Date = () => new Date(),
  ) {
    this.file = join(logsDir(root), `${stage}_log_${logFileStamp(startedAt)}.txt`);
    this.lines = new LineFile(this.file);
    this.lines.open();
    this.summary = { stage, succeeded: 0, failed: 0, skipped: 0, reasons: new Map(), logFile: this.file };
  }

  /** Records one trial; `trial` is the file name as the official log shows it. */
  trial(team: string, character: string, trial: string, outcome: TrialOutcome): void {
    // One line per trial: names and reasons (an engine's error text among them) cannot break it.
    const head = `[${this.now().toISOString()}] Processing - team: ${printable(team)} - character: ${printable(character)} - trial: ${printable(trial)}`;
    this.count(outcome, 1);
    this.append(outcome.ok ? `${head} - Succeed` : `${head} - Failed - ${printable(outcome.reason)}`, { key: trialKey(team, character, trial), outcome });
  }

  /**
   * Takes back the lines of trials whose verdict was not kept (a level that runs again because the
   * engine that gave its result was retired for a lie): the log keeps one line per trial, its final
   * verdict, as the official tools write it. Rewrites the file atomically when a line goes.
   */
  forget(trials: ReadonlyArray<{ team: string; character: string; trial: string }>): void {
    const keys = new Set(trials.map((t) => trialKey(t.team, t.character, t.trial)));
    const kept = this.written.filter((line) => !line.trial || !keys.has(line.trial.key));
    if (kept.length === this.written.length) return;
    for (const line of this.written) if (line.trial && keys.has(line.trial.key)) this.count(line.trial.outcome, -1);
    this.written = kept;
    this.lines.replace(kept.map((line) => line.text).join(''));
  }

  private count(outcome: TrialOutcome, by: 1 | -1): void {
    if (outcome.ok) {
      this.summary.succeeded += by;
      return;
    }
    this.summary.failed += by;
    const left = (this.summary.reasons.get(outcome.reason) ?? 0) + by;
    if (left > 0) this.summary.reasons.set(outcome.reason, left);
    else this.summary.reasons.delete(outcome.reason);
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

  private append(line: string, trial?: WrittenLine['trial']): void {
    const text = `${line}\n`;
    this.lines.append(text);
    this.written.push(trial ? { text, trial } : { text });
  }
}

/** The summary a stage prints: counts, then failures per reason, most frequent first. */
export function formatSummary(summary: StageSummary): string {
  const lines = [`${summary.stage}: ${summary.succeeded} succeeded, ${summary.failed} failed, ${summary.skipped} already done`];
  const reasons = [...summary.reasons.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  for (const [reason, count] of reasons) lines.push(`  ${count} × ${printable(reason)}`);
  if (summary.logFile && summary.succeeded + summary.failed > 0) lines.push(`  log: ${summary.logFile}`);
  return lines.join('\n');
}

/**
 * The line a command's final summary gives files a stage ignored (the notes per file scroll by while it
 * runs): `2 file(s) ignored: not a PNG image (a, b) — see <log>`; undefined when none was.
 */
export function ignoredLine(ignored: readonly string[], why: string, logFile: string | undefined, shown = 3): string | undefined {
  if (ignored.length === 0) return undefined;
  const named = `${ignored.slice(0, shown).join(', ')}${ignored.length > shown ? ` and ${ignored.length - shown} more` : ''}`;
  return `${ignored.length} file(s) ignored: ${why} (${named})${logFile ? ` — see ${logFile}` : ''}`;
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
