import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileSha256Sync } from '../../core/hash.js';
import type { Settings } from '../config/index.js';
import { simulationIdentity } from '../stages/level-cache.js';
import type { ResultContributor } from './contributors.js';
import { ACCOUNTING_FILES, ROBUSTNESS_FILE, resultFolders, SCORE_FILES } from './files.js';
import { inputFiles, kindOfPath } from './inputs.js';
import { folderIdentity, type Manifest, rankingFolders, readManifest, versionsRecord } from './manifest.js';
import { blockerLine, scoreBlockers } from './readiness.js';
import { readinessOf } from './step.js';

/**
 * `sbeval check <root>`: does `result/` still describe the folder? The manifest (manifest.ts) is compared
 * with the folder as it is: every input file by content (changed, added, removed), every result file it
 * vouches for (edited, removed), and result files it does not vouch for (left from another state).
 * `sbeval run` relies on the same comparison to skip writing results that are still current. A different
 * software version is reported but is not a change of the folder.
 */
interface FolderChanges {
  changed: string[];
  added: string[];
  removed: string[];
}

export interface CheckResult {
  /** True when `result/` describes the folder as it is. */
  current: boolean;
  manifest: Manifest | undefined;
  inputs: FolderChanges;
  /** Competition, team and letter folders added or removed since (manifest.ts `folders`: empty ones count). */
  folders: { added: string[]; removed: string[] };
  /**
   * What the folder supports now, asked as `score` and `run` ask it (readiness.ts, with the simulation
   * settings of the config): differs when the ranking would now be written or refused otherwise.
   */
  readiness: { recorded: Manifest['score']; now: Manifest['score'] } | undefined;
  /**
   * The simulation settings the manifest was written with (`run --engine headless-ws`) and those this
   * check asks with (the config's, as `score` and `run` without options), when they differ: the folder
   * may be unchanged and yet not be scored again as it is.
   */
  simulation: { recorded: string; asked: string } | undefined;
  /** The engines' and similarity model's records of the stage files (manifest.ts `identity`), when they changed. */
  identity: { recorded: Manifest['identity']; now: Manifest['identity'] } | undefined;
  /** Result files vouched for by the manifest that were edited or removed. */
  outputs: { changed: string[]; missing: string[]; unlisted: string[] };
  /** `name: then → now` for each software version that differs. */
  versions: string[];
  /** The kind of each input file the folder has now (`sbeval check` groups paths by it). */
  kinds: Record<string, string>;
}

function diffInputs(before: Record<string, string>, now: Record<string, string>): FolderChanges {
  const changed = Object.keys(now).filter((p) => before[p] !== undefined && before[p] !== now[p]);
  const added = Object.keys(now).filter((p) => before[p] === undefined);
  const removed = Object.keys(before).filter((p) => now[p] === undefined);
  return { changed, added, removed };
}

export function checkResults(settings: Settings, contributors: readonly ResultContributor[]): CheckResult {
  const { root, configFile } = settings;
  const competitions = settings.competitions.map((c) => c.root);
  const manifest = readManifest(root);
  const listed = inputFiles(root, competitions, configFile, contributors);
  const now = Object.fromEntries(listed.map((file) => [file.path, fileSha256Sync(join(root, file.path)) ?? '']));
  const kinds = Object.fromEntries(listed.map((file) => [file.path, file.kind]));
  const inputs = diffInputs(manifest?.inputs ?? {}, now);
  const outputs = { changed: [] as string[], missing: [] as string[], unlisted: [] as string[] };
  for (const [path, sha] of Object.entries(manifest?.outputs ?? {})) {
    if (!existsSync(join(root, path))) outputs.missing.push(path);
    else if (fileSha256Sync(join(root, path)) !== sha) outputs.changed.push(path);
  }
  for (const folder of resultFolders(root, settings.competitions)) {
    for (const name of [...SCORE_FILES, ...ACCOUNTING_FILES, ROBUSTNESS_FILE]) {
      const path = relative(root, join(folder, name)).split('\\').join('/');
      if (existsSync(join(folder, name)) && manifest?.outputs[path] === undefined) outputs.unlisted.push(path);
    }
  }
  const folders = diffFolders(manifest?.folders, rankingFolders(root, competitions));
  // The one readiness `run` and `score` ask (step.ts `readinessOf`), and the records it reads.
  const blockers = scoreBlockers({ root, competitions: settings.competitions, ...readinessOf(settings) });
  const score: Manifest['score'] = blockers.length > 0 ? { written: false, reason: blockerLine(blockers) } : { written: true };
  const readiness = manifest && JSON.stringify(manifest.score) !== JSON.stringify(score) ? { recorded: manifest.score, now: score } : undefined;
  const identityNow = folderIdentity(root, now);
  const identity =
    manifest && JSON.stringify(manifest.identity) !== JSON.stringify(identityNow) ? { recorded: manifest.identity, now: identityNow } : undefined;
  const current = versionsRecord();
  const versions = Object.entries(manifest?.versions ?? {})
    .filter(([name, value]) => current[name] !== undefined && current[name] !== value)
    .map(([name, value]) => `${name}: ${value} → ${current[name]}`);
  const changes =
    inputs.changed.length +
    inputs.added.length +
    inputs.removed.length +
    outputs.changed.length +
    outputs.missing.length +
    outputs.unlisted.length +
    folders.added.length +
    folders.removed.length +
    (readiness ? 1 : 0) +
    (identity ? 1 : 0);
  const simulation = simulationChange(manifest, settings);
  return { current: manifest !== undefined && changes === 0, manifest, inputs, outputs, folders, readiness, simulation, identity, versions, kinds };
}

/** `CheckResult.simulation`: the manifest's simulation settings against the check's, when both are known and differ. */
function simulationChange(manifest: Manifest | undefined, settings: Settings): CheckResult['simulation'] {
  const s = manifest?.settings;
  if (!s || typeof s.engine !== 'string' || typeof s.simulationTrials !== 'number' || typeof s.damage !== 'string') return undefined;
  const recorded = simulationIdentity({ engine: s.engine, simulationTrials: s.simulationTrials, damage: s.damage as Settings['damage'] }).label;
  const asked = simulationIdentity(settings).label;
  return recorded === asked ? undefined : { recorded, asked };
}

/** Whether the only difference `check` found is that the folder cannot be scored again with other simulation settings. */
function onlyOtherSettings(result: CheckResult): boolean {
  const { inputs, outputs, folders } = result;
  const counts = [inputs.changed, inputs.added, inputs.removed, outputs.changed, outputs.missing, outputs.unlisted, folders.added, folders.removed];
  return result.simulation !== undefined && result.identity === undefined && counts.every((list) => list.length === 0);
}

/** Folders of the root now that the manifest does not list, and listed ones that are gone (a manifest without the list: all are new). */
function diffFolders(then: Manifest['folders'] | undefined, now: Manifest['folders']): CheckResult['folders'] {
  const before = new Set(then ? [...then.competitions, ...then.teams, ...then.letters] : []);
  const after = [...now.competitions, ...now.teams, ...now.letters];
  const present = new Set(after);
  return { added: after.filter((f) => !before.has(f)), removed: [...before].filter((f) => !present.has(f)) };
}

/** At most `shown` paths, then how many more. */
function some(paths: readonly string[], shown: number): string {
  return `${paths.slice(0, shown).join(', ')}${paths.length > shown ? `, … (${paths.length - shown} more)` : ''}`;
}

/** Input paths grouped by kind: `levels: a, b; images: c`. */
function byKind(paths: readonly string[], kinds: Readonly<Record<string, string>>, shown: number): string[] {
  const groups = new Map<string, string[]>();
  for (const p of paths) {
    const kind = kinds[p] ?? kindOfPath(p);
    groups.set(kind, [...(groups.get(kind) ?? []), p]);
  }
  return [...groups].map(([kind, list]) => `${kind} (${list.length}): ${some(list, shown)}`);
}

/** What `sbeval check` prints: a first line with the verdict, then what changed. */
export function checkLines(result: CheckResult, shown = 5): string[] {
  const { manifest, inputs, outputs } = result;
  if (!manifest) {
    const present = outputs.unlisted.length > 0;
    return [
      present
        ? `result/ does not describe the folder: it has no manifest.json (its files were written by another tool or an older sbeval, or the step that wrote them was interrupted): ${some(outputs.unlisted, shown)}`
        : 'result/ holds no results yet (no manifest.json): run sbeval run or sbeval score',
    ];
  }
  const total = Object.keys(manifest.inputs).length;
  const rerun = manifest.command === 'run' ? 'run' : 'score';
  const head = result.current
    ? `result/ describes the folder: ${total} input file(s) unchanged since sbeval ${manifest.command} wrote it`
    : onlyOtherSettings(result)
      ? `result/ holds what sbeval ${manifest.command} wrote from these ${total} unchanged input file(s), but with other simulation settings than the configuration's`
      : `result/ does not describe the folder any more (written by sbeval ${manifest.command}); run sbeval ${rerun} to bring it up to date`;
  const lines = [head];
  if (result.simulation)
    lines.push(
      `  written with ${result.simulation.recorded}; the configuration gives ${result.simulation.asked}: without the same --engine, --sim-trials and --damage, score refuses these levels and run simulates them again (or set them in sbeval.config.yaml)`,
    );
  for (const [label, list] of [
    ['changed', inputs.changed],
    ['added', inputs.added],
    ['removed', inputs.removed],
  ] as const) {
    for (const group of byKind(list, result.kinds, shown)) lines.push(`  ${label}: ${group}`);
  }
  if (result.folders.added.length > 0) lines.push(`  folders added: ${some(result.folders.added, shown)}`);
  if (result.folders.removed.length > 0) lines.push(`  folders removed: ${some(result.folders.removed, shown)}`);
  if (result.identity)
    lines.push(
      `  the levels' or similarity files' records changed (other simulation settings or model): ${result.identity.recorded.simulation.join(', ') || 'none'} → ${result.identity.now.simulation.join(', ') || 'none'}`,
    );
  if (result.readiness) {
    const { now } = result.readiness;
    lines.push(now.written ? '  the folder can be scored now' : `  the folder cannot be scored now: ${now.reason}`);
  }
  if (outputs.changed.length > 0) lines.push(`  result files edited since: ${some(outputs.changed, shown)}`);
  if (outputs.missing.length > 0) lines.push(`  result files missing: ${some(outputs.missing, shown)}`);
  if (outputs.unlisted.length > 0) lines.push(`  result files not from these results: ${some(outputs.unlisted, shown)}`);
  if (!manifest.score.written && !result.readiness) lines.push(`  no ranking: ${manifest.score.reason}`);
  for (const v of result.versions) lines.push(`  note: computed with other software (${v})`);
  return lines;
}
