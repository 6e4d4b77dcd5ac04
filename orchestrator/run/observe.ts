import { existsSync, readFileSync } from 'node:fs';
import { CODE_NOT_FOUND, extractCode } from '../../levels/extract.js';
import { convertProgram } from '../../levels/pipeline.js';
import type { LevelOutcome, LevelStage, StageReached } from '../machine/index.js';
import { NEVER_GENERATED, NOT_CONVERTED, NOT_EXTRACTED, NOT_SIMULATED } from '../report/fates.js';
import type { CachedLevel } from '../stages/level-cache.js';
import { validCache } from '../stages/level-results.js';
import { levelFiles, type PlannedLevel } from './levels.js';

/**
 * The fate of a trial `run` does not work on (outside `--team`/`--chars`), read from the folder as it is:
 * no engine, no write. `result/trials.csv` accounts for every trial of the competition whatever subset a
 * run worked on (a subset's rows alone would misstate the competition), so the other trials are rows
 * too, with what their files say — the same row a run that worked on them would write once they are
 * done (a finished level comes from the same cache), and "not … yet" while they are not.
 */

function readText(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function failed(level: PlannedLevel, stage: LevelStage, stageReached: StageReached, reason: string, kind: 'level' | 'pending'): LevelOutcome {
  return { level: level.ref, status: 'failed', stageReached, stability: undefined, trials: [], retries: [], cached: [], failure: { stage, kind, reason } };
}

/** A level's result from a valid cache, as the run reports a level an earlier run finished. */
export function outcomeFromCache(level: PlannedLevel, cached: CachedLevel): LevelOutcome {
  const base = { level: level.ref, trials: [], retries: [], cached: ['extract', 'convert', 'simulate', 'capture', 'commit'] as LevelOutcome['cached'] };
  if (cached.outcome.ok) {
    const { score, startingObjects, movingObjects, trialsRun } = cached.outcome;
    return { ...base, status: 'done', stageReached: 'image', stability: { score, startingObjects, movingObjects, trialsRun }, failure: undefined };
  }
  return {
    ...base,
    status: 'failed',
    stageReached: 'level',
    stability: undefined,
    failure: { stage: 'simulate', kind: 'level', reason: cached.outcome.reason },
  };
}

export async function observeLevel(root: string, level: PlannedLevel, prefix: string, digest: string): Promise<LevelOutcome> {
  const { paths, ref } = level;
  if (existsSync(paths.level)) {
    const cached = validCache(levelFiles(root, ref, paths), digest);
    return cached ? outcomeFromCache(level, cached) : failed(level, 'simulate', 'level', NOT_SIMULATED, 'pending');
  }
  const program = readText(paths.intermediate);
  if (program !== undefined) {
    const converted = convertProgram(program, { prefix });
    return converted.ok
      ? failed(level, 'convert', 'intermediate', NOT_CONVERTED, 'pending')
      : failed(level, 'convert', 'intermediate', converted.reason, 'level');
  }
  const response = readText(paths.raw);
  if (response === undefined) return failed(level, 'extract', 'none', NEVER_GENERATED, 'level');
  return extractCode(response, prefix) === null
    ? failed(level, 'extract', 'raw', CODE_NOT_FOUND, 'level')
    : failed(level, 'extract', 'raw', NOT_EXTRACTED, 'pending');
}
