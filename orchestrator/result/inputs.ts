import { existsSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileSha256Sync } from '../../core/hash.js';
import { CHARACTER_STAGES, listCharacters, listFiles, listTeams, stageDir, type Stage } from '../layout/competition.js';
import { judgeFiles, surveyFiles } from '../judges/results.js';

/**
 * The files `result/` is computed from, as `result/manifest.json` records them and `sbeval check`
 * compares them: the root's config file; per team of every competition folder the responses, programs,
 * levels and images and the per-letter stability, similarity and diversity files; and the judges' and
 * raters' files the report reads. Traces, logs and sbeval's own state are not inputs.
 *
 * The judges' and the survey's files are listed by `JUDGE_INPUTS`, one entry per kind of file, so a
 * stage that adds a file the report reads adds it there and the manifest hashes it.
 */
type InputKind = Stage | 'config' | 'judge' | 'survey';

interface InputFile {
  /** Relative to the root, `/`-separated. */
  path: string;
  kind: InputKind;
}

interface InputSource {
  kind: InputKind;
  /** Absolute paths of the files of this kind in a competition `root` with the given competition folders. */
  files(root: string, competitions: readonly string[]): string[];
}

const TRIAL_INPUT_STAGES = ['raw', 'intermediate', 'levels', 'images'] as const;

/** The judges' and raters' files the report reads (orchestrator/judges/report.ts). */
const JUDGE_INPUTS: InputSource[] = [
  // `sbeval judge rubric|order`: every judge model's files, and the prompts they were asked (orchestrator/judges/results.ts).
  { kind: 'judge', files: (root, competitions) => [...new Set([root, ...competitions])].flatMap((dir) => judgeFiles(dir)) },
  // `sbeval survey build|invite|serve`: the survey, its invitations and the raters' answers (what the report reads).
  { kind: 'survey', files: (root) => surveyFiles(root) },
];

function stageFiles(dir: string, team: string, stage: Stage): string[] {
  if (!existsSync(stageDir(dir, team, stage))) return [];
  if ((CHARACTER_STAGES as readonly string[]).includes(stage)) return listFiles(stageDir(dir, team, stage)).map((f) => join(stageDir(dir, team, stage), f));
  return listCharacters(dir, team, stage).flatMap((c) => listFiles(stageDir(dir, team, stage, c)).map((f) => join(stageDir(dir, team, stage, c), f)));
}

/** A path as the manifest records it (inputs and outputs): relative to the root, `/`-separated. */
export function manifestPath(root: string, path: string): string {
  return relative(root, path).split('\\').join('/');
}

/**
 * The files a reading took whose bytes the manifest's record (made after it) does not have: changed or
 * removed in between, by another process. `read`: absolute path → sha256 of the bytes read.
 */
export function changedSinceRead(root: string, recorded: Readonly<Record<string, string>>, read: ReadonlyMap<string, string>): string[] {
  return [...read].filter(([path, sha]) => recorded[manifestPath(root, path)] !== sha).map(([path]) => manifestPath(root, path));
}

/** Every input file of the root, in path order. */
function inputFiles(root: string, competitions: readonly string[], configFile: string | undefined): InputFile[] {
  const found: InputFile[] = [];
  const add = (kind: InputKind, path: string) => found.push({ kind, path: manifestPath(root, path) });
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
