import { existsSync, readdirSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileSha256Sync } from '../../core/hash.js';
import { CHARACTER_STAGES, listCharacters, listFiles, listTeams, resultDir, stageDir, type Stage } from '../layout/competition.js';
import { isAtomicTemp } from '../layout/atomic.js';

/**
 * The files `result/` is computed from, as `result/manifest.json` records them and `sbeval check`
 * compares them: the root's config file; per team of every competition folder the responses, programs,
 * levels and images and the per-letter stability, similarity and diversity files; and the judges' and
 * raters' files the report reads. Traces, logs and sbeval's own state are not inputs.
 *
 * The judges' and the survey's files are listed by `JUDGE_INPUTS`, one entry per kind of file, so a
 * stage that adds a file the report reads adds it there and the manifest hashes it.
 */
export type InputKind = Stage | 'config' | 'judge' | 'survey';

export interface InputFile {
  /** Relative to the root, `/`-separated. */
  path: string;
  kind: InputKind;
}

export interface InputSource {
  kind: InputKind;
  /** Absolute paths of the files of this kind in a competition `root` with the given competition folders. */
  files(root: string, competitions: readonly string[]): string[];
}

const TRIAL_INPUT_STAGES = ['raw', 'intermediate', 'levels', 'images'] as const;

/** Every file below `dir` (hidden names and interrupted temporaries left out), sorted. */
function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || isAtomicTemp(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(path));
    else if (entry.isFile()) out.push(path);
  }
  return out.sort();
}

/** The judges' and raters' files the report reads (orchestrator/judges/report.ts). */
export const JUDGE_INPUTS: InputSource[] = [
  {
    kind: 'judge',
    // `sbeval judge rubric`: <team>/judge-rubric/<C>.json.
    files: (_root, competitions) => competitions.flatMap((dir) => listTeams(dir).flatMap((team) => listFiles(join(dir, team, 'judge-rubric')).map((f) => join(dir, team, 'judge-rubric', f)))),
  },
  {
    kind: 'judge',
    // `sbeval judge order`: result/judge-order/<perspective>/… and model.txt.
    files: (root) => walk(join(resultDir(root), 'judge-order')),
  },
  {
    kind: 'survey',
    // `sbeval survey build|serve|collect`: result/survey/ (the survey, the raters' answers, the aggregate).
    files: (root) => walk(join(resultDir(root), 'survey')),
  },
];

function stageFiles(dir: string, team: string, stage: Stage): string[] {
  if (!existsSync(stageDir(dir, team, stage))) return [];
  if ((CHARACTER_STAGES as readonly string[]).includes(stage)) return listFiles(stageDir(dir, team, stage)).map((f) => join(stageDir(dir, team, stage), f));
  return listCharacters(dir, team, stage).flatMap((c) => listFiles(stageDir(dir, team, stage, c)).map((f) => join(stageDir(dir, team, stage, c), f)));
}

/** Every input file of the root, in path order. */
export function inputFiles(root: string, competitions: readonly string[], configFile: string | undefined): InputFile[] {
  const found: InputFile[] = [];
  const add = (kind: InputKind, path: string) => found.push({ kind, path: relative(root, path).split('\\').join('/') });
  if (configFile !== undefined && existsSync(configFile)) add('config', join(root, basename(configFile)));
  for (const dir of competitions) {
    for (const team of listTeams(dir)) {
      for (const stage of [...TRIAL_INPUT_STAGES, ...CHARACTER_STAGES]) for (const path of stageFiles(dir, team, stage)) add(stage, path);
    }
  }
  for (const source of JUDGE_INPUTS) for (const path of source.files(root, competitions)) add(source.kind, path);
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The input files with their sha256, keyed by path (sorted). */
export function hashInputs(root: string, competitions: readonly string[], configFile: string | undefined): Record<string, string> {
  const hashes: Record<string, string> = {};
  for (const file of inputFiles(root, competitions, configFile)) hashes[file.path] = fileSha256Sync(join(root, file.path)) ?? '';
  return hashes;
}

/** The kind of an input from its path (for `sbeval check`'s grouping). */
export function kindOfPath(path: string): string {
  const parts = path.split('/');
  if (parts.length === 1) return 'config';
  if (parts[0] === 'result') return parts[1] === 'survey' ? 'survey' : 'judge';
  const stage = parts.find((p) => (TRIAL_INPUT_STAGES as readonly string[]).includes(p) || (CHARACTER_STAGES as readonly string[]).includes(p) || p === 'judge-rubric');
  return stage === 'judge-rubric' ? 'judge' : (stage ?? 'file');
}
