import { join } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { CHARACTER_STAGES, listDirs, listFiles, NON_TEAM_DIRS } from '../layout/competition.js';
import { lettersFound, type RootLayout, shownPath } from '../layout/root-check.js';
import type { Source } from './schema.js';

/**
 * `--team` and `--chars` (or the config's `teams`) limit what a command works on; they never change
 * what `result/` accounts for. A subset that matches nothing is a usage error naming what exists
 * (otherwise `sbeval run <root> --team Nobody` would run nothing and account every trial as a
 * "no response" row). Teams are exact names, so every one must exist; letters are often a range
 * (`A-Z` on a 5-letter competition), so the set must meet at least one letter with files.
 */
interface SubsetToCheck {
  teams: readonly string[] | undefined;
  characters: readonly string[];
  sources: Readonly<Record<string, Source>>;
  /** The config file's name, for messages. */
  where: string;
  /** Teams configured as submissions: `generate` makes their folders. */
  submissionTeams: readonly string[];
}

/** Every competition folder of the layout: the root, or one per model. */
function competitionDirs(root: string, layout: RootLayout): string[] {
  return layout.kind === 'models' ? layout.models.map((m) => join(root, m)) : layout.kind === 'teams' ? [root] : [];
}

export function teamsFound(root: string, layout: RootLayout): string[] {
  const teams = new Set<string>();
  for (const dir of competitionDirs(root, layout)) for (const team of listDirs(dir, NON_TEAM_DIRS)) teams.add(team);
  return [...teams].sort();
}

/** Letters with a folder in a per-trial stage or a `<C>.json` in a per-letter stage, of any team. */
function lettersWithFiles(root: string, layout: RootLayout): string[] {
  const letters = new Set(lettersFound(root, layout));
  for (const dir of competitionDirs(root, layout)) {
    for (const team of listDirs(dir, NON_TEAM_DIRS)) {
      for (const stage of CHARACTER_STAGES)
        for (const file of listFiles(join(dir, team, stage), '.json')) if (/^[A-Z]\.json$/.test(file)) letters.add(file[0]!);
    }
  }
  return [...letters].sort();
}

const origin = (source: Source | undefined, flag: string, where: string, key: string) => (source === 'flag' ? flag : `${where} ${key}`);

export function assertSubsetMatches(root: string, layout: RootLayout, subset: SubsetToCheck): void {
  if (layout.kind === 'empty') return;
  if (subset.teams !== undefined) {
    const known = new Set([...teamsFound(root, layout), ...subset.submissionTeams]);
    const unknown = subset.teams.filter((t) => !known.has(t));
    if (unknown.length > 0) {
      throw new SbevalError(
        'config',
        `${origin(subset.sources.teams, '--team', subset.where, 'teams')} ${unknown.join(',')}: no such team folder in ${shownPath(root)}`,
        `the teams are ${[...known].sort().join(', ') || 'none'}`,
      );
    }
  }
  if (subset.sources.characters !== 'default' && subset.submissionTeams.length === 0) {
    const letters = lettersWithFiles(root, layout);
    if (!subset.characters.some((c) => letters.includes(c))) {
      throw new SbevalError(
        'config',
        `${origin(subset.sources.characters, '--chars', subset.where, 'characters')} ${subset.characters.join(',')} matches no letter with files in ${shownPath(root)}`,
        `the letters are ${letters.join(',') || 'none yet'}`,
      );
    }
  }
}
