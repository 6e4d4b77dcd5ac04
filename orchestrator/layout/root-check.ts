import { lstatSync, readdirSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { CHARACTER_STAGES, listCharacters, listDirs, NON_TEAM_DIRS, TRIAL_STAGES } from './competition.js';

/**
 * What a folder given as a competition root holds, decided before any command writes into it.
 *
 * A root is either the official layout, `<root>/<team>/<stage>/…` (a team folder is a folder holding at
 * least one stage folder), or the 2025 layout with one competition folder per model,
 * `<root>/<model>/<team>/<stage>/…`. A team folder, a stage folder, a letter folder, a file or a folder
 * without any team folder is refused with the layout that was expected and the root the path most
 * likely belongs to — so `sbeval run comp/BlockSmith` writes nothing instead of scoring the stage
 * folders as teams.
 */
const STAGE_FOLDERS: readonly string[] = [...TRIAL_STAGES, ...CHARACTER_STAGES];

export type RootLayout =
  | { kind: 'teams'; teams: string[] }
  | { kind: 'models'; models: string[] }
  /** No team folder yet: only accepted where the command creates them (generate, configured submissions). */
  | { kind: 'empty' };

const EXPECTED_LAYOUT = '<root>/<team>/raw/<C>/<team>_<C>_<n>.txt (or levels/, images/, stability/ …), or one such folder per model (2025)';

function entries(dir: string): Array<{ name: string; dir: boolean }> {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => !e.name.startsWith('.'))
      .map((e) => ({ name: e.name, dir: e.isDirectory() }));
  } catch {
    return [];
  }
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The stage folders directly inside `dir` (what makes it a team folder). */
function stageFoldersIn(dir: string): string[] {
  return entries(dir)
    .filter((e) => e.dir && STAGE_FOLDERS.includes(e.name))
    .map((e) => e.name);
}

function isTeamFolder(dir: string): boolean {
  return stageFoldersIn(dir).length > 0;
}

/** Sub-folders that are not `logs`, `result` or hidden. */
function candidates(dir: string): string[] {
  return entries(dir)
    .filter((e) => e.dir && !NON_TEAM_DIRS.has(e.name))
    .map((e) => e.name)
    .sort();
}

/** Classifies a folder without judging it: a competition layout, or what else it looks like. */
type Shape = RootLayout | { kind: 'team-folder'; stages: string[] } | { kind: 'stage-folder' } | { kind: 'letter-folder' };

function shapeOf(dir: string): Shape {
  const stages = stageFoldersIn(dir);
  if (stages.length > 0) return { kind: 'team-folder', stages };
  const subfolders = candidates(dir);
  if (subfolders.some((sub) => isTeamFolder(join(dir, sub)))) return { kind: 'teams', teams: subfolders };
  const models = subfolders.filter((sub) => candidates(join(dir, sub)).some((team) => isTeamFolder(join(dir, sub, team))));
  if (models.length > 0) return { kind: 'models', models };
  const name = basename(dir);
  if (STAGE_FOLDERS.includes(name)) return { kind: 'stage-folder' };
  if (/^[A-Z]$/.test(name) && STAGE_FOLDERS.includes(basename(dirname(dir)))) return { kind: 'letter-folder' };
  // Letter folders (A/, B/ …) or per-letter files (A.json …) directly inside: a stage folder under another name.
  const children = entries(dir);
  if (children.length > 0 && children.every((e) => (e.dir ? /^[A-Z]$/.test(e.name) : /^[A-Z]\.json$/.test(e.name)))) return { kind: 'stage-folder' };
  return { kind: 'empty' };
}

/**
 * Whether a folder that reads as a competition is one, so that only such a folder is ever suggested
 * as the root: it passes the root check, and a team folder in it holds what stages write — letter
 * folders (`raw/A/`) or letter files (`stability/A.json`) in a stage folder. A source checkout reads
 * as "teams" (its `levels/` holds code, `docs/images/` pictures) but holds no such thing.
 */
function isCompetitionRoot(dir: string): boolean {
  const shape = shapeOf(dir);
  const competitions = shape.kind === 'teams' ? [dir] : shape.kind === 'models' && shape.models.length > 1 ? shape.models.map((m) => join(dir, m)) : [];
  if (competitions.length === 0) return false;
  try {
    checkCompetitionRoot(dir);
  } catch {
    return false;
  }
  return competitions.some((competition) => candidates(competition).some((team) => holdsStageFiles(join(competition, team))));
}

function holdsStageFiles(team: string): boolean {
  return stageFoldersIn(team).some((stage) => entries(join(team, stage)).some((e) => (e.dir ? /^[A-Z]$/.test(e.name) : /^[A-Z]\.json$/.test(e.name))));
}

/** The nearest folder above `start` (itself included) that is a competition root (`isCompetitionRoot`). */
function likelyRoot(start: string, levels = 5): string | undefined {
  let dir = start;
  for (let i = 0; i <= levels; i += 1) {
    const shape = shapeOf(dir);
    const candidate = shape.kind === 'teams' ? dir : shape.kind === 'models' ? (shape.models.length === 1 ? join(dir, shape.models[0]!) : dir) : undefined;
    if (candidate !== undefined && isCompetitionRoot(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return undefined;
}

/** A competition root inside `dir` (one or two levels down), for "did you mean" on a folder above the root. */
function rootBelow(dir: string): string | undefined {
  return candidates(dir)
    .map((sub) => join(dir, sub))
    .find((path) => isCompetitionRoot(path));
}

/** A path as the user would type it: relative to the working folder when inside it. */
export function shownPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

function suggestion(root: string | undefined, command: string): string {
  return root === undefined
    ? `a competition root holds one folder per team: ${EXPECTED_LAYOUT}`
    : `the competition root is probably ${shownPath(root)}: sbeval ${command} ${shownPath(root)}`;
}

interface RootCheckOptions {
  /** The command, for the suggestion (`sbeval <command> <likely root>`). */
  command?: string;
  /** Accept a folder without team folders (the command creates them: generate, configured submissions). */
  allowEmpty?: boolean;
  /** Model folders the config names (2025): one of them alone is a model layout, not a misplaced root. */
  modelFolders?: readonly string[];
  /** Accept a root that does not exist yet (generate creates it). */
  allowMissing?: boolean;
}

/**
 * Checks that `rootArg` is a competition root and returns its layout; anything else is an
 * `SbevalError` (exit 2) that says what was found, what was expected and where the root probably is.
 */
export function checkCompetitionRoot(rootArg: string, options: RootCheckOptions = {}): RootLayout {
  const root = resolve(rootArg);
  const command = options.command ?? 'run';
  let stat;
  try {
    stat = lstatSync(root);
  } catch {
    if (options.allowMissing) return { kind: 'empty' };
    throw new SbevalError('input', `${shownPath(root)} does not exist`, `a competition root holds one folder per team: ${EXPECTED_LAYOUT}`);
  }
  if (stat.isSymbolicLink()) throw new SbevalError('input', `${shownPath(root)} is a symbolic link`, 'give the real competition folder');
  if (!stat.isDirectory()) {
    throw new SbevalError('input', `${shownPath(root)} is a file, not a competition folder`, suggestion(likelyRoot(dirname(root)), command));
  }
  const shape = shapeOf(root);
  switch (shape.kind) {
    case 'teams':
      assertPlainTeams(root, shape.teams, root);
      return shape;
    case 'models':
      // One folder holding teams, not named as a model: the root is most likely that folder.
      if (shape.models.length === 1 && !(options.modelFolders ?? []).includes(shape.models[0]!)) {
        const inner = join(root, shape.models[0]!);
        throw new SbevalError(
          'input',
          `${shownPath(root)} holds one competition folder, ${shape.models[0]}/, and no team folders`,
          `${suggestion(inner, command)}; a 2025 root holds one such folder per model, named by the config's models`,
        );
      }
      assertPlainModels(root, shape.models);
      return shape;
    case 'team-folder':
      throw new SbevalError(
        'input',
        `${shownPath(root)} looks like a team folder (it holds ${shape.stages.map((s) => `${s}/`).join(', ')}), not a competition root`,
        suggestion(likelyRoot(dirname(root)), command),
      );
    case 'stage-folder':
    case 'letter-folder':
      throw new SbevalError(
        'input',
        `${shownPath(root)} looks like a ${shape.kind === 'stage-folder' ? 'stage' : 'letter'} folder inside a team folder, not a competition root`,
        suggestion(likelyRoot(dirname(root)), command),
      );
    case 'empty': {
      if (options.allowEmpty) return shape;
      // An empty team folder (or one inside a team) has the competition above it; a folder above the root has it below.
      const inside = likelyRoot(dirname(root));
      const likely = inside !== undefined && shapeOf(inside).kind === 'teams' ? inside : rootBelow(root);
      throw new SbevalError('input', `${shownPath(root)} holds no team folders (a team folder holds raw/, levels/ …)`, suggestion(likely, command));
    }
  }
}

/**
 * The layout must read one way only. Stages list team folders as the sub-folders of a competition
 * folder, while the 2025 reading takes a sub-folder whose own sub-folders hold stage folders for a
 * model folder: a team folder unpacked one level too deep (`PromptPilots/PromptPilots/raw/`, a common zip
 * artefact) or a stray `notes/misc/raw/` beside the teams would be a team to one command and a model
 * to another. Such a folder is refused (exit 2) with the likely fix, before anything reads or writes.
 */
function assertPlainTeams(competition: string, teams: readonly string[], root: string): void {
  const others = (name: string) => teams.filter((t) => t !== name && isTeamFolder(join(competition, t)));
  for (const team of teams) {
    const dir = join(competition, team);
    const stages = stageFoldersIn(dir);
    const nested = candidates(dir).filter((sub) => !STAGE_FOLDERS.includes(sub) && isTeamFolder(join(dir, sub)));
    const inner = nested[0];
    if (inner === undefined) continue;
    const where = shownPath(join(dir, inner));
    const holds = stageFoldersIn(join(dir, inner))
      .map((s) => `${s}/`)
      .join(', ');
    if (stages.length > 0) {
      throw new SbevalError(
        'input',
        `${where}/ inside the team folder ${shownPath(dir)}/ holds ${holds} too: a team inside a team is read differently by different tools`,
        `move ${where} out of ${shownPath(dir)} (to ${shownPath(join(root, '..'))} if it is another competition), then run again`,
      );
    }
    const beside = others(team);
    const besideText =
      beside.length > 0
        ? ` beside the team folders ${beside
            .slice(0, 3)
            .map((t) => `${t}/`)
            .join(', ')}${beside.length > 3 ? ' …' : ''}`
        : '';
    if (inner === team || nested.length === 1) {
      throw new SbevalError(
        'input',
        `${shownPath(dir)}/ holds no stage folder but ${where}/ does (${holds})${besideText}: ${inner === team ? 'a team folder one level too deep (a zip unpacked into a folder of its own?)' : 'a team folder inside another folder'} would be a team to one command and a model folder to another`,
        inner === team
          ? `move the contents of ${where}/ up into ${shownPath(dir)}/, then run again`
          : `if ${inner} is a team, move ${where} up to ${shownPath(competition)}/; otherwise move ${shownPath(dir)}/ out of the competition root or rename it .${team} (hidden folders are ignored)`,
      );
    }
    throw new SbevalError(
      'input',
      `${shownPath(dir)}/ holds team folders (${nested.map((n) => `${n}/`).join(', ')})${besideText}: a folder of teams inside a competition would be a team to one command and a model folder to another`,
      `move ${shownPath(dir)}/ out of the competition root, or rename it .${team} (hidden folders are ignored)`,
    );
  }
}

/** 2025 layout (no team folder beside the model folders, or the root would read as teams): each model folder reads as plain teams. */
function assertPlainModels(root: string, models: readonly string[]): void {
  for (const model of models) assertPlainTeams(join(root, model), candidates(join(root, model)), root);
}

/** Letters with a folder in any level stage of any team (per model folder in the 2025 layout). */
export function lettersFound(root: string, layout: RootLayout, stages: readonly string[] = ['raw', 'intermediate', 'levels', 'images']): string[] {
  const competitions = layout.kind === 'models' ? layout.models.map((m) => join(root, m)) : layout.kind === 'teams' ? [root] : [];
  const found = new Set<string>();
  for (const competition of competitions) {
    for (const team of listDirs(competition, NON_TEAM_DIRS)) {
      for (const stage of stages) {
        if (!isDirectory(join(competition, team, stage))) continue;
        for (const letter of listCharacters(competition, team, stage as never)) found.add(letter);
      }
    }
  }
  return [...found].sort();
}
