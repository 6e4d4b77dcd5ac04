import { readFile } from 'node:fs/promises';
import { SbevalError } from '../../core/errors.js';
import { convertProgram, responseToLevel } from '../../levels/pipeline.js';
import {
  compareNames,
  compareTrialFiles,
  listTeams,
  listTrialFiles,
  type TrialStage,
  trialBaseName,
  trialIndexFromName,
} from '../../orchestrator/layout/competition.js';
import { gridView } from './scoring/grid-view.js';
import type { LevelView, ViewKind } from './scoring/views.js';

/**
 * The levels of a competition folder as the judges see them: every trial that has any file in a
 * per-trial stage (`raw`, `intermediate`, `levels`, `images`), by team, letter and trial number,
 * with the paths that exist. A trial without the input its view needs (no image for `--view image`,
 * no level for `xml`/`grid`) is still listed: the judges record it as "no level" (score 0 for the
 * rubric, ranked last by the ordering judge), as the official scoring counts a missing trial as 0.
 */
export interface JudgedLevel {
  team: string;
  character: string;
  /** `team_C_n`. */
  name: string;
  trial: number;
  raw: string | undefined;
  intermediate: string | undefined;
  level: string | undefined;
  image: string | undefined;
}

export interface LevelFilter {
  teams?: readonly string[] | undefined;
  characters?: readonly string[] | undefined;
  /** Highest trial number judged (`--trials`): trials 1…N. */
  trials?: number | undefined;
}

const EXTENSIONS: Record<Exclude<TrialStage, 'traces'>, string> = { raw: '.txt', intermediate: '.txt', levels: '.xml', images: '.png' };

export function listJudgedLevels(root: string, filter: LevelFilter = {}): JudgedLevel[] {
  const byKey = new Map<string, JudgedLevel>();
  const known = new Set(listTeams(root));
  for (const team of filter.teams ?? []) {
    if (!known.has(team)) throw new SbevalError('input', `no team folder "${team}" in ${root}`, `teams here: ${[...known].join(', ') || 'none'}`);
  }
  for (const stage of ['raw', 'intermediate', 'levels', 'images'] as const) {
    for (const f of listTrialFiles(root, stage, { teams: filter.teams, characters: filter.characters }, EXTENSIONS[stage])) {
      if (stage === 'images' && f.file.endsWith('_raw.png')) continue;
      const name = trialBaseName(f.file);
      const trial = trialIndexFromName(name);
      if (!Number.isFinite(trial) || trial < 1) continue;
      if (filter.trials !== undefined && trial > filter.trials) continue;
      const key = `${f.team}/${f.character}/${name}`;
      let level = byKey.get(key);
      if (!level) {
        level = { team: f.team, character: f.character, name, trial, raw: undefined, intermediate: undefined, level: undefined, image: undefined };
        byKey.set(key, level);
      }
      if (stage === 'raw') level.raw = f.path;
      else if (stage === 'intermediate') level.intermediate = f.path;
      else if (stage === 'levels') level.level = f.path;
      else level.image = f.path;
    }
  }
  return [...byKey.values()].sort((a, b) => compareNames(a.team, b.team) || compareNames(a.character, b.character) || compareTrialFiles(a.name, b.name));
}

export function levelKey(level: Pick<JudgedLevel, 'team' | 'character' | 'name'>): string {
  return `${level.team}/${level.character}/${level.name}`;
}

/** What a judge is shown of one level, or why there is nothing to show. */
export async function loadView(level: JudgedLevel, kind: ViewKind, prefix: string): Promise<LevelView | { missing: string }> {
  if (kind === 'image') {
    if (!level.image) return { missing: level.level ? 'no image (the level has no final image)' : 'no level' };
    return { kind: 'image', png: new Uint8Array(await readFile(level.image)) };
  }
  if (kind === 'xml') {
    if (!level.level) return { missing: 'no level XML' };
    return { kind: 'xml', text: await readFile(level.level, 'utf8') };
  }
  // grid: the drop program (intermediate stage), or the response when no program was extracted yet.
  if (level.intermediate) {
    const converted = convertProgram(await readFile(level.intermediate, 'utf8'), { prefix });
    if (!converted.ok) return { missing: `no level (${converted.reason})` };
    return { kind: 'grid', text: gridView(converted.structure) };
  }
  if (level.raw) {
    const converted = responseToLevel(await readFile(level.raw, 'utf8'), { prefix });
    if (!converted.ok) return { missing: `no level (${converted.reason})` };
    return { kind: 'grid', text: gridView(converted.structure) };
  }
  return { missing: 'no drop program' };
}
