import { existsSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileSha256Sync } from '../../core/hash.js';
import { CHARACTER_STAGES, listCharacters, listFiles, listTeams, type Stage, stageDir } from '../layout/competition.js';
import type { ResultContributor } from './contributors.js';

/**
 * The files `result/` is computed from, as `result/manifest.json` records them and `sbeval check`
 * compares them: the root's config file; per team of every competition folder the responses, programs,
 * levels and images and the per-letter stability, similarity and diversity files; and the files the
 * contributors' report sections read (the judges' and raters' files: contributors.ts). Traces, logs and
 * sbeval's own state are not inputs.
 */
type InputKind = Stage | 'config' | string;

interface InputFile {
  /** Relative to the root, `/`-separated. */
  path: string;
  kind: InputKind;
}

const TRIAL_INPUT_STAGES = ['raw', 'intermediate', 'levels', 'images'] as const;

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
export function inputFiles(
  root: string,
  competitions: readonly string[],
  configFile: string | undefined,
  contributors: readonly ResultContributor[],
): InputFile[] {
  const found: InputFile[] = [];
  const add = (kind: InputKind, path: string) => found.push({ kind, path: manifestPath(root, path) });
  if (configFile !== undefined && existsSync(configFile)) add('config', join(root, basename(configFile)));
  for (const dir of competitions) {
    for (const team of listTeams(dir)) {
      for (const stage of [...TRIAL_INPUT_STAGES, ...CHARACTER_STAGES]) for (const path of stageFiles(dir, team, stage)) add(stage, path);
    }
  }
  for (const contributor of contributors) for (const input of contributor.inputs(root, competitions)) add(input.kind, input.path);
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The input files with their sha256, keyed by path (sorted). */
export function hashInputs(
  root: string,
  competitions: readonly string[],
  configFile: string | undefined,
  contributors: readonly ResultContributor[],
): Record<string, string> {
  const hashes: Record<string, string> = {};
  for (const file of inputFiles(root, competitions, configFile, contributors)) hashes[file.path] = fileSha256Sync(join(root, file.path)) ?? '';
  return hashes;
}

/** The kind of an input from its path, for one no longer listed (`sbeval check`'s grouping of removed files). */
export function kindOfPath(path: string): string {
  const parts = path.split('/');
  if (parts.length === 1) return 'config';
  const stage = parts.find((p) => (TRIAL_INPUT_STAGES as readonly string[]).includes(p) || (CHARACTER_STAGES as readonly string[]).includes(p));
  return stage ?? 'file';
}
