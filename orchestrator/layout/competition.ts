import { type Dirent, lstatSync, readdirSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { isAtomicTemp } from './atomic.js';
import { assertSafeName, checkName } from './names.js';

/**
 * The official competition folder layout: `<root>/<team>/<stage>/<C>/<team>_<C>_<n>.<ext>` for the
 * per-trial stages and `<root>/<team>/<stage>/<C>.json` for the per-character ones; `<root>/logs/`
 * and `<root>/result/` beside the teams. (Source: chatgpt4pcg-node `listAllDirs`, `createOutputFolder`;
 * reference/official-pipeline.md §0.)
 */
export const TRIAL_STAGES = ['raw', 'intermediate', 'levels', 'images', 'traces'] as const;
export const CHARACTER_STAGES = ['stability', 'similarity', 'diversity'] as const;
export type TrialStage = (typeof TRIAL_STAGES)[number];
type CharacterStage = (typeof CHARACTER_STAGES)[number];
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
    // A file's name is written into logs, CSVs and reports line by line: a newline in it would forge
    // a line of the official intermediate log, so it is refused as a folder's name is.
    const problem = checkName('file', entry.name);
    if (problem) throw new SbevalError('input', `${problem} (in ${dir})`, 'rename the file so it is a plain file name');
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
  return listDirs(stageDir(root, team, stage)).map((c) => assertSafeName('character', c));
}

/**
 * A folder sbeval reads or writes must be a real folder: a symbolic link there (`<team>/levels ->
 * /elsewhere`, `<root>/logs -> /etc`) would carry its reads and writes out of the competition root,
 * so it is refused like an unsafe team or letter name. A folder that does not exist yet is fine (it
 * is created as a real one). Only the parts at and below `root` are checked: the root itself may be
 * reached through links.
 */
function assertRealFolder(path: string): string {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return path;
  }
  if (stat.isSymbolicLink()) {
    throw new SbevalError(
      'input',
      `${path} is a symbolic link`,
      'sbeval reads and writes only real folders inside the competition root: replace the link with a folder',
    );
  }
  return path;
}

/** `join(root, ...parts)` with every part below `root` checked to be a real folder (no symbolic link). */
function realFolderBelow(root: string, ...parts: string[]): string {
  let path = root;
  for (const part of parts) path = assertRealFolder(join(path, part));
  return path;
}

export function stageDir(root: string, team: string, stage: Stage, character?: string): string {
  assertSafeName('team', team);
  return character === undefined ? realFolderBelow(root, team, stage) : realFolderBelow(root, team, stage, assertSafeName('character', character));
}

export function logsDir(root: string): string {
  return realFolderBelow(root, 'logs');
}

export function resultDir(root: string): string {
  return realFolderBelow(root, 'result');
}

/** sbeval's own state, hidden from the official scripts: `<root>/.sbeval/<parts…>` (each part a real folder). */
export const STATE_DIR = '.sbeval';

export function stateDir(root: string, ...parts: string[]): string {
  return realFolderBelow(root, STATE_DIR, ...parts);
}

/** Folder names with a meaning at a competition root or in a team folder: a symbolic link by one of these names is refused. */
export const RESERVED_FOLDERS: ReadonlySet<string> = new Set([...NON_TEAM_DIRS, STATE_DIR, ...TRIAL_STAGES, ...CHARACTER_STAGES]);

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
