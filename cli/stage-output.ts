import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { listDirs, listFiles, listTeams, type Stage, type StageFilter, stageDir } from '../orchestrator/layout/competition.js';
import { shownPath } from '../orchestrator/layout/root-check.js';
import type { StageSummary } from '../orchestrator/layout/stage-log.js';

/**
 * What the stage commands print besides their summaries: the model folder a line belongs to (2025
 * roots hold one competition folder per model), and, when a stage found nothing to do, what it looked
 * for and which command makes it — an empty summary alone ("0 succeeded, 0 failed, 0 already done")
 * does not say whether the folder is done or the wrong one.
 */
export function modelLabel(model: string | undefined): string {
  return model === undefined ? '' : `[${model}] `;
}

/** What each folder stage reads, and the command that writes it. */
const INPUTS: Record<string, { stage: Stage; files: string; madeBy: string }> = {
  extract: { stage: 'raw', files: 'responses <team>/raw/<C>/*.txt', madeBy: 'sbeval generate' },
  convert: { stage: 'intermediate', files: 'programs <team>/intermediate/<C>/*.txt', madeBy: 'sbeval extract' },
  stability: { stage: 'levels', files: 'levels <team>/levels/<C>/*.xml', madeBy: 'sbeval convert' },
  similarity: { stage: 'images', files: 'images <team>/images/<C>/*.png', madeBy: 'sbeval simulate' },
  diversity: { stage: 'similarity', files: 'similarity files <team>/similarity/<C>.json', madeBy: 'sbeval similarity' },
};

export function didNothing(summary: StageSummary): boolean {
  return summary.succeeded + summary.failed + summary.skipped === 0;
}

/**
 * `diversity: nothing to do in comp: no similarity files <team>/similarity/<C>.json in its 3 team
 * folders (A, B, C) for the letters I,L; sbeval similarity writes them`.
 */
export function nothingToDo(stage: string, root: string, filter: StageFilter): string {
  const input = INPUTS[stage];
  const teams = listTeams(root).filter((t) => !filter.teams || filter.teams.length === 0 || filter.teams.includes(t));
  const named = teams.length === 0 ? 'no team folders' : `its ${teams.length} team folder(s) (${teams.slice(0, 5).join(', ')}${teams.length > 5 ? ' …' : ''})`;
  const letters = filter.characters && filter.characters.length > 0 ? ` for the letters ${filter.characters.join(',')}` : '';
  if (!input) return `${stage}: nothing to do in ${shownPath(root)}: ${named}${letters}`;
  const withFolder = teams.filter((t) => existsSync(stageDir(root, t, input.stage)));
  const found =
    withFolder.length === 0
      ? `none has ${input.stage}/`
      : `${withFolder.length} with ${input.stage}/, ${withFolder.reduce((n, t) => n + countInputs(root, t, input.stage), 0)} file(s) there in all`;
  return `${stage}: nothing to do in ${shownPath(root)}: no ${input.files} in ${named}${letters} (${found}); ${input.madeBy} writes them`;
}

/** Files in a team's input folder: per-letter files, or the files of its letter folders. */
function countInputs(root: string, team: string, stage: Stage): number {
  const dir = stageDir(root, team, stage);
  if (stage === 'similarity') return listFiles(dir, '.json').length;
  return listDirs(dir).reduce((n, letter) => n + listFiles(join(dir, letter)).length, 0);
}
