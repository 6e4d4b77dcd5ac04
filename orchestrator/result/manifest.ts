import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileSha256Sync, sha256 } from '../../core/hash.js';
import { writeFileAtomic } from '../layout/atomic.js';
import { listCharacters, listTeams, resultDir, stageDir } from '../layout/competition.js';
import { softwareVersions } from '../report/versions.js';
import { LEVEL_STAGES } from '../run/levels.js';
import { readDerivation } from '../stages/derivation.js';
import { readLevelCache } from '../stages/level-cache.js';
import type { ResultContributor } from './contributors.js';
import { MANIFEST_FILE } from './files.js';
import { hashInputs, manifestPath as relativePath } from './inputs.js';

/**
 * `result/manifest.json`: what the result files beside it were computed from — the sha256 of every input
 * file (orchestrator/result/inputs.ts), the settings, the engine and similarity model the folder's stage
 * files came from, the software versions — and the sha256 of every result file written. Nothing in it
 * depends on time, paths of this machine or the order work was done in, so the same folder gives the same
 * manifest byte for byte, whichever commands and subsets led to it.
 *
 * Written last, after every result file: removed first, so a step killed half-way leaves no manifest
 * (`sbeval check` then says the results are unfinished) rather than one that vouches for mixed files.
 */
export interface Manifest {
  format: 1;
  /** The command that wrote the results: `run` adds the trial accounting and its stages' settings. */
  command: 'run' | 'score';
  settings: Record<string, unknown>;
  /**
   * Where the folder's stage files came from, as sbeval's own records say: the simulation settings digests
   * of the levels' results (engine and physics settings, stages/simulate.ts `settingsDigest`) and the
   * sha256 of the similarity model(s) of the similarity files.
   */
  identity: { simulation: string[]; similarityModel: string[] };
  versions: Record<string, string>;
  /**
   * The folders that decide who and what is ranked, empty ones included: the competition folders (the
   * root `.`, or one per model), the team folders (each counts in P) and the letter folders of the
   * trial stages (each letter's trials are rows of `trials.csv`). A file hash cannot see an empty folder.
   */
  folders: { competitions: string[]; teams: string[]; letters: string[] };
  /** Relative path → sha256 of every input file. */
  inputs: Record<string, string>;
  /** Relative path → sha256 of every result file written with this manifest. */
  outputs: Record<string, string>;
  /** Whether the folder could be scored, and if not, why (orchestrator/result/readiness.ts). */
  score: { written: true } | { written: false; reason: string };
}

function manifestPath(root: string): string {
  return join(resultDir(root), MANIFEST_FILE);
}

export function readManifest(root: string): Manifest | undefined {
  try {
    const manifest = JSON.parse(readFileSync(manifestPath(root), 'utf8')) as Manifest;
    return manifest.format === 1 && typeof manifest.inputs === 'object' && typeof manifest.outputs === 'object' ? manifest : undefined;
  } catch {
    return undefined;
  }
}

const sorted = (record: Record<string, string>) => Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** The manifest's text: fixed key order, paths sorted, two-space indent, final newline. */
function manifestText(m: Manifest): string {
  const ordered: Manifest = {
    format: 1,
    command: m.command,
    settings: m.settings,
    identity: m.identity,
    versions: m.versions,
    score: m.score,
    folders: m.folders,
    inputs: sorted(m.inputs),
    outputs: sorted(m.outputs),
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

export async function removeManifest(root: string): Promise<void> {
  await rm(manifestPath(root), { force: true });
}

export async function writeManifest(root: string, manifest: Manifest): Promise<void> {
  await writeFileAtomic(manifestPath(root), manifestText(manifest));
}

/** The identity part, from the records of the folder's levels and similarity files (only those still current). */
export function folderIdentity(root: string, inputs: Record<string, string>): Manifest['identity'] {
  const simulation = new Set<string>();
  const similarityModel = new Set<string>();
  for (const path of Object.keys(inputs)) {
    const parts = path.split('/');
    const at = parts.findIndex((p, i) => (p === 'levels' && i === parts.length - 3) || (p === 'similarity' && i === parts.length - 2));
    if (at < 1) continue;
    const dir = join(root, ...parts.slice(0, at - 1));
    const team = parts[at - 1]!;
    if (parts[at] === 'levels') {
      const cache = readLevelCache(dir, team, parts[at + 1]!, parts[at + 2]!);
      if (cache && cache.xmlSha256 === sha256(readFileSync(join(root, path), 'utf8'))) simulation.add(cache.settings);
    } else {
      const character = parts[at + 1]!.replace(/\.json$/, '');
      const record = readDerivation(dir, 'similarity', team, character);
      if (!record || record.output !== inputs[path]) continue;
      try {
        const model = (JSON.parse(record.settings) as { model?: unknown }).model;
        if (typeof model === 'string') similarityModel.add(model);
      } catch {
        // A record from another version: no identity to add.
      }
    }
  }
  return { simulation: [...simulation].sort(), similarityModel: [...similarityModel].sort() };
}

export function versionsRecord(): Record<string, string> {
  return Object.fromEntries(softwareVersions().map((f) => [f.name, f.value]));
}

/** The folders of the root that decide the ranking (`Manifest.folders`), as relative paths, sorted. */
export function rankingFolders(root: string, competitions: readonly string[]): Manifest['folders'] {
  const path = (dir: string) => relativePath(root, dir) || '.';
  const teams: string[] = [];
  const letters: string[] = [];
  for (const dir of competitions) {
    if (!existsSync(dir)) continue;
    for (const team of listTeams(dir)) {
      teams.push(path(join(dir, team)));
      for (const stage of LEVEL_STAGES) for (const letter of listCharacters(dir, team, stage)) letters.push(path(stageDir(dir, team, stage, letter)));
    }
  }
  const order = (list: string[]) => list.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { competitions: order(competitions.map(path)), teams: order(teams), letters: order(letters) };
}

/** A manifest of the folder as it is now, without outputs yet. */
export function currentManifest(
  root: string,
  competitions: readonly string[],
  configFile: string | undefined,
  contributors: readonly ResultContributor[],
  parts: Pick<Manifest, 'command' | 'settings' | 'score'>,
): Manifest {
  const inputs = hashInputs(root, competitions, configFile, contributors);
  return {
    format: 1,
    ...parts,
    identity: folderIdentity(root, inputs),
    versions: versionsRecord(),
    folders: rankingFolders(root, competitions),
    inputs,
    outputs: {},
  };
}

/** Same basis: everything but the outputs is equal. */
export function sameBasis(a: Manifest, b: Manifest): boolean {
  return manifestText({ ...a, outputs: {} }) === manifestText({ ...b, outputs: {} });
}

/** The recorded outputs are all still there with their bytes. */
export function outputsIntact(root: string, manifest: Manifest): boolean {
  return Object.entries(manifest.outputs).every(([path, sha]) => existsSync(join(root, path)) && fileSha256Sync(join(root, path)) === sha);
}
