import { lstatSync, readdirSync, type Dirent } from 'node:fs';
import { join, basename, extname } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { assertSafeName } from './names.js';
import { isAtomicTemp } from './atomic.js';

/**
 * The official competition folder layout: `<root>/<team>/<stage>/<C>/<team>_<C>_<n>.<ext>` for the
 * per-trial stages and `<root>/<team>/<stage>/<C>.json` for the per-character ones; `<root>/logs/`
 * and `<root>/result/` beside the teams. (Source: chatgpt4pcg-node `listAllDirs`, `createOutputFolder`;
 * reference/official-pipeline.md §0.)
 */
export const TRIAL_STAGES = ['raw', 'intermediate', 'levels', 'images', 'traces'] as const;
export const CHARACTER_STAGES = ['stability', 'similarity', 'diversity'] as const;
export type TrialStage = (typeof TRIAL_STAGES)[number];
export type CharacterStage = (typeof CHARACTER_STAGES)[number];
export type Stage = TrialStage | CharacterStage;

/** Folders at the root that are not teams (official: `logs`, `result`). */
export const NON_TEAM_DIRS: ReadonlySet<string> = new Set(['logs', 'result']);

export const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('');

/** Published result files list teams in case-insensitive alphabetical order; ties fall back to code points. */
export function compareNames(a: string, b: string): number {
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  if (la !== lb) return la < lb ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function readEntries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * Sub-folders of `dir` as the official helpers list them (no hidden names), sorted. A symbolic link
 * could lead outside the competition root, so it is an error that names it rather than a silent skip.
 */
export function listDirs(dir: string, exclude: ReadonlySet<string> = new Set()): string[] {
  const names: string[] = [];
  for (const entry of readEntries(dir)) {
    if (entry.name.startsWith('.') || exclude.has(entry.name)) continue;
    if (entry.isSymbolicLink()) {
      throw new SbevalError('input', `${join(dir, entry.name)} is a symbolic link`, 'sbeval reads and writes only real folders inside the competition root');
    }
    if (entry.isDirectory()) names.push(assertSafeName('file', entry.name));
  }
  return names.sort(compareNames);
}

/** Regular files of `dir` (no hidden names, no leftovers of interrupted atomic writes), sorted. */
export function listFiles(dir: string, extension?: string): string[] {
  const names: string[] = [];
  for (const entry of readEntries(dir)) {
    if (entry.name.startsWith('.') || isAtomicTemp(entry.name)) continue;
    if (entry.isSymbolicLink()) {
      throw new SbevalError('input', `${join(dir, entry.name)} is a symbolic link`, 'sbeval reads and writes only real files inside the competition root');
    }
    if (!entry.isFile()) continue;
    if (extension !== undefined && extname(entry.name).toLowerCase() !== extension) continue;
    names.push(entry.name);
  }
  return names.sort(compareTrialFiles);
}

export function listTeams(root: string): string[] {
  const stat = statOrUndefined(root);
  if (!stat?.isDirectory()) throw new SbevalError('input', `competition root ${root} is not a folder`);
  return listDirs(root, NON_TEAM_DIRS).map((team) => assertSafeName('team', team));
}

export function listCharacters(root: string, team: string, stage: Stage): string[] {
  return listDirs(join(root, team, stage)).map((c) => assertSafeName('character', c));
}

export function stageDir(root: string, team: string, stage: Stage, character?: string): string {
  assertSafeName('team', team);
  return character === undefined ? join(root, team, stage) : join(root, team, stage, assertSafeName('character', character));
}

export function logsDir(root: string): string {
  return join(root, 'logs');
}

export function resultDir(root: string): string {
  return join(root, 'result');
}

/**
 * Trial index from a trial file name or a path tag, exactly as the official scoring script reads it:
 * the text after the last `_`, up to the first `.`, through `parseInt` (so `team_A_7.png` → 7,
 * `competition\\t\\levels\\A\\t_A_3.xml` → 3, and a name without digits there → NaN).
 */
export function trialIndexFromName(name: string): number {
  const last = name.split('_').at(-1) ?? '';
  return Number.parseInt(last.split('.')[0] ?? '', 10);
}

/** `team_A_7.txt` → `team_A_7` (the official scripts drop only the last extension). */
export function trialBaseName(fileName: string): string {
  const ext = extname(fileName);
  return ext ? basename(fileName, ext) : fileName;
}

/** Trial files sort by trial index, then by name, so `_2` comes before `_10`. */
export function compareTrialFiles(a: string, b: string): number {
  const ia = trialIndexFromName(a);
  const ib = trialIndexFromName(b);
  if (Number.isFinite(ia) && Number.isFinite(ib) && ia !== ib) return ia - ib;
  if (Number.isFinite(ia) !== Number.isFinite(ib)) return Number.isFinite(ia) ? -1 : 1;
  return compareNames(a, b);
}

function statOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** The file name the official scripts give a trial: `<team>_<C>_<n>`. */
export function trialFileBase(team: string, character: string, trial: number): string {
  return `${team}_${character}_${trial}`;
}

/** `--team`/`--char` filters shared by every stage command; empty or undefined means all. */
export interface StageFilter {
  teams?: readonly string[] | undefined;
  characters?: readonly string[] | undefined;
}

export interface TrialFile {
  team: string;
  character: string;
  /** File name inside `<root>/<team>/<stage>/<character>/`. */
  file: string;
  path: string;
}

/** Every trial file of a per-trial stage, teams and characters sorted, trials by index. */
export function listTrialFiles(root: string, stage: TrialStage, filter: StageFilter = {}, extension?: string): TrialFile[] {
  const wanted = (list: readonly string[] | undefined, name: string) => !list || list.length === 0 || list.includes(name);
  const trials: TrialFile[] = [];
  for (const team of listTeams(root)) {
    if (!wanted(filter.teams, team)) continue;
    for (const character of listCharacters(root, team, stage)) {
      if (!wanted(filter.characters, character)) continue;
      const dir = stageDir(root, team, stage, character);
      for (const file of listFiles(dir, extension)) trials.push({ team, character, file, path: join(dir, file) });
    }
  }
  return trials;
}
