import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { writeFileAtomic } from '../layout/atomic.js';
import { resultDir } from '../layout/competition.js';

/**
 * The files of a result folder, named once. Every file the score stage writes goes through
 * `writeScoreFile`, so the list below is the whole set; after a scoring step, `commitScoreFiles` removes
 * the listed files it did not write this time (a 2024 `character_scores.csv` under a 2025 aggregate, a
 * ranking from before the folder changed), and a refusal removes them all: a result folder never holds a
 * file beside newer ones it contradicts (docs/report-truth.md). A new result file is added to `SCORE_FILES` (and is
 * then hashed into the manifest with the others).
 *
 * The judges' results in `result/judge-order/` and `result/survey/` are inputs of the report, not
 * outputs of scoring: this module never touches them.
 */
export const SCORE_FILES = [
  // The official scoring script's files (reference/official-pipeline.md §7), and the 2025 aggregate's table.
  'constants.json',
  'trial_scores.csv',
  'character_scores.csv',
  'prompt_scores_ranks.csv',
  'final_team_rankings.csv',
  // sbeval's report of the same numbers.
  'report.md',
  'report.html',
  // The ranking's uncertainty beside them (orchestrator/stages/uncertainty.ts; none when off or T = 1).
  'score_intervals.csv',
  'rank_probabilities.csv',
] as const;

/** Every trial's fate, written by every results step (orchestrator/result/trial-accounting.ts). */
export const ACCOUNTING_FILES = ['trials.csv', 'failures.md'] as const;

/**
 * The knife-edge table of `--robustness N` (orchestrator/stages/robustness.ts), in each result folder:
 * written by `run` and `score` with the other result files and listed in the manifest (`sbeval simulate
 * --robustness N` only caches the runs).
 */
export const ROBUSTNESS_FILE = 'robustness.csv';

/** The provenance of the files above (orchestrator/result/manifest.ts). */
export const MANIFEST_FILE = 'manifest.json';

/** Writes one score file into `<dir>/result/`; a name outside `SCORE_FILES` is a bug, refused. */
export async function writeScoreFile(dir: string, name: string, text: string): Promise<string> {
  if (!(SCORE_FILES as readonly string[]).includes(name))
    throw new SbevalError('score', `${name} is not one of the result files (orchestrator/result/files.ts SCORE_FILES)`);
  const path = join(resultDir(dir), name);
  await writeFileAtomic(path, text);
  return path;
}

/** The result folders of a root: its own, and one per model folder in the 2025 layout. */
export function resultFolders(root: string, competitions: ReadonlyArray<{ root: string }>): string[] {
  return [...new Set([resultDir(root), ...competitions.map((c) => resultDir(c.root))])];
}

/** Removes the score files of `folders` that are not in `written` (absolute paths); returns the removed. */
export async function commitScoreFiles(folders: readonly string[], written: ReadonlySet<string>): Promise<string[]> {
  const removed: string[] = [];
  for (const folder of folders) {
    for (const name of SCORE_FILES) {
      const path = join(folder, name);
      if (written.has(path) || !existsSync(path)) continue;
      await rm(path, { force: true });
      removed.push(path);
    }
  }
  return removed;
}
