import type { LevelOutcome } from '../machine/index.js';

/**
 * What a run could not finish, for its exit code and summary. A level that failed with a verdict
 * (no code, a level that cannot be built or loaded, a level over the simulation budget) is finished:
 * its fate is recorded and a rerun would say the same. A level that failed because of engines (faults
 * past the retries, none left), a timeout or an error of ours is unfinished: a rerun may finish it, and
 * until then the run must not exit 0 (test/orchestrator/run-unfinished.test.ts).
 */
export interface UnfinishedWork {
  /** Levels that failed for a reason other than a verdict about the level. */
  levels: number;
  /** Their reasons with counts, most frequent first. */
  reasons: Array<[string, number]>;
  /** Stages that ended `failed` (generation stopped, stability files held back). */
  stages: string[];
}

const UNFINISHED_KINDS: ReadonlySet<string> = new Set(['engine', 'timeout', 'error']);

export function unfinishedWork(
  outcomes: readonly LevelOutcome[],
  stages: ReadonlyArray<{ stage: string; model?: string | undefined; status: string }>,
): UnfinishedWork {
  const counts = new Map<string, number>();
  let levels = 0;
  for (const outcome of outcomes) {
    if (outcome.status !== 'failed' || !outcome.failure || !UNFINISHED_KINDS.has(outcome.failure.kind)) continue;
    levels += 1;
    const reason = `${outcome.failure.stage}: ${outcome.failure.reason}`;
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return {
    levels,
    reasons: [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
    stages: stages.filter((s) => s.status === 'failed').map((s) => (s.model ? `${s.stage} (${s.model})` : s.stage)),
  };
}

export function isUnfinished(work: UnfinishedWork): boolean {
  return work.levels > 0 || work.stages.length > 0;
}

/** The summary lines (empty when everything finished): how many levels and why, at most `shown` reasons. */
export function unfinishedLines(work: UnfinishedWork, shown = 5): string[] {
  if (!isUnfinished(work)) return [];
  const lines: string[] = [];
  if (work.levels > 0) {
    lines.push(`unfinished: ${work.levels} level(s) could not be simulated; run the same command again to retry them:`);
    for (const [reason, count] of work.reasons.slice(0, shown)) lines.push(`  ${count} × ${reason}`);
    if (work.reasons.length > shown) lines.push(`  … and ${work.reasons.length - shown} other reason(s) (see result/trials.csv)`);
  }
  if (work.stages.length > 0) lines.push(`unfinished stages: ${work.stages.join(', ')}`);
  return lines;
}
