import type { TickOutcome } from './types.js';

/**
 * Per-stage counts every display shows the same way: done/total, ok/failed/skipped, rate and ETA,
 * and failures per reason for the final summary. Pure bookkeeping over an injected clock.
 */
export interface StageTally {
  stage: string;
  total: number;
  ok: number;
  failed: number;
  skipped: number;
  startedAt: number;
  endedAt: number | undefined;
  /** Failure detail → count. */
  reasons: Map<string, number>;
  notes: number;
}

export function newTally(stage: string, total: number, now: number): StageTally {
  return { stage, total, ok: 0, failed: 0, skipped: 0, startedAt: now, endedAt: undefined, reasons: new Map(), notes: 0 };
}

export function countTick(tally: StageTally, outcome: TickOutcome, detail?: string): void {
  tally[outcome] += 1;
  if (outcome === 'failed') {
    const reason = detail ?? 'failed';
    tally.reasons.set(reason, (tally.reasons.get(reason) ?? 0) + 1);
  }
}

export function done(tally: StageTally): number {
  return tally.ok + tally.failed + tally.skipped;
}

/** Units per second of work actually done (skipped units are instant and would inflate the rate). */
export function rate(tally: StageTally, now: number): number {
  const seconds = ((tally.endedAt ?? now) - tally.startedAt) / 1000;
  const worked = tally.ok + tally.failed;
  return seconds > 0 ? worked / seconds : 0;
}

/** Seconds left at the current rate; undefined while unknown. */
export function eta(tally: StageTally, now: number): number | undefined {
  const left = tally.total - done(tally);
  if (left <= 0) return 0;
  const r = rate(tally, now);
  return r > 0 ? left / r : undefined;
}

export function formatDuration(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** `simulate: 120/2600 (ok 118, failed 2, skipped 0) 24.0/s, ETA 1m43s` */
export function formatTallyLine(tally: StageTally, now: number): string {
  const counts = `ok ${tally.ok}, failed ${tally.failed}, skipped ${tally.skipped}`;
  const speed = `${rate(tally, now).toFixed(1)}/s`;
  const tail = tally.endedAt !== undefined ? `done in ${formatDuration((tally.endedAt - tally.startedAt) / 1000)}` : `ETA ${formatDuration(eta(tally, now))}`;
  return `${tally.stage}: ${done(tally)}/${tally.total} (${counts}) ${speed}, ${tail}`;
}

/** The final summary: one line per stage, then its failures per reason, most frequent first. */
export function formatSummaryLines(tallies: readonly StageTally[], now: number): string[] {
  const lines: string[] = [];
  for (const tally of tallies) {
    lines.push(formatTallyLine(tally, now));
    const reasons = [...tally.reasons.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    for (const [reason, count] of reasons) lines.push(`  ${count} × ${reason}`);
  }
  return lines;
}
