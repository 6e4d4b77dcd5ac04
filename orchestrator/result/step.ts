import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileSha256Sync, sha256 } from '../../core/hash.js';
import { listFiles, resultDir } from '../layout/competition.js';
import { writeFileAtomic } from '../layout/atomic.js';
import type { ResultContributor } from './contributors.js';
import { ACCOUNTING_FILES, commitScoreFiles, resultFolders, ROBUSTNESS_FILE } from './files.js';
import { manifestPath } from './inputs.js';
import { currentManifest, outputsIntact, readManifest, removeManifest, sameBasis, writeManifest, type Manifest } from './manifest.js';
import { blockerLine, scoreBlockers, type Blocker, type ReadinessOptions } from './readiness.js';

/**
 * One step writes `result/`: what the folder supports is decided first (readiness.ts), the manifest is
 * removed, the result files are written — or, when the folder cannot be scored, the score files are
 * removed —, score files this step did not write are removed, and the manifest is written last. `sbeval
 * score` and `sbeval run` both go through it, so they refuse the same folders and leave the same kind
 * of result folder. `run` also skips the step when the manifest shows that nothing it would write has
 * changed (the same check `sbeval check` makes).
 */
interface ResultStep {
  root: string;
  /** Absolute paths of the competition folders (the root, or one per model). */
  competitions: readonly string[];
  configFile: string | undefined;
  /** What the tools above the evaluator add (their inputs are recorded; contributors.ts). */
  contributors: readonly ResultContributor[];
  command: Manifest['command'];
  settings: Record<string, unknown>;
  readiness: Omit<ReadinessOptions, 'root' | 'competitions'>;
  /** `run`: the trial accounting's files, by name (`trials.csv`, `failures.md`). */
  accounting?: ReadonlyMap<string, string>;
  /**
   * The knife-edge tables (`result/robustness.csv`), by competition folder (absolute path): written, and a
   * result folder without one here loses the one it had. Undefined (`score` without `--robustness`): a
   * table is kept while the last manifest vouched for it and no input changed, else removed.
   */
  robustness?: ReadonlyMap<string, string>;
  /** Scores the folder and writes its score files; returns their absolute paths. Gets the manifest being written (without outputs). */
  score(basis: Manifest): Promise<string[]>;
}

interface ResultStepOutcome {
  status: 'written' | 'unchanged' | 'blocked';
  blockers: Blocker[];
  /** Result files removed because the folder no longer supports them (relative to the root). */
  removed: string[];
  manifest: Manifest;
}

/**
 * Result files this step does not write (`score`: the accounting of an earlier run, a knife-edge table):
 * each stays, vouched for again, only while the last manifest vouched for it and every input is as it
 * was; otherwise it is removed. `paths` are absolute.
 */
async function keepOrRemove(step: ResultStep, old: Manifest | undefined, candidate: Manifest, paths: readonly string[]): Promise<Record<string, string>> {
  const kept: Record<string, string> = {};
  const sameInputs = old !== undefined && JSON.stringify(old.inputs) === JSON.stringify(candidate.inputs);
  for (const path of paths) {
    const key = manifestPath(step.root, path);
    if (!existsSync(path)) continue;
    const sha = fileSha256Sync(path);
    if (sameInputs && sha !== undefined && old.outputs[key] === sha) kept[key] = sha;
    else await rm(path, { force: true });
  }
  return kept;
}

const foldersOf = (step: ResultStep) => resultFolders(step.root, step.competitions.map((dir) => ({ root: dir })));

/** The files the step writes besides the score's (run's accounting, the knife-edge tables), by path relative to the root. */
function givenFiles(step: ResultStep): Map<string, string> {
  const given = new Map<string, string>();
  for (const [name, text] of step.accounting ?? []) given.set(manifestPath(step.root, join(resultDir(step.root), name)), text);
  for (const [dir, text] of step.robustness ?? []) given.set(manifestPath(step.root, join(resultDir(dir), ROBUSTNESS_FILE)), text);
  return given;
}

/** Knife-edge tables the step drops: those of the result folders it was given none for (when it was given tables at all). */
function droppedTables(step: ResultStep): string[] {
  if (!step.robustness) return [];
  const kept = new Set([...step.robustness.keys()].map((dir) => resultDir(dir)));
  return foldersOf(step).filter((f) => !kept.has(f)).map((f) => join(f, ROBUSTNESS_FILE));
}

/** Writes the given files, removes the dropped tables, keeps (or removes) the files it was not given; their outputs. */
async function writeStepFiles(step: ResultStep, old: Manifest | undefined, candidate: Manifest, given: ReadonlyMap<string, string>): Promise<Record<string, string>> {
  const outputs: Record<string, string> = {};
  for (const [key, text] of given) {
    await writeFileAtomic(join(step.root, key), text);
    outputs[key] = sha256(text);
  }
  for (const path of droppedTables(step)) await rm(path, { force: true });
  const others = [
    ...(step.accounting ? [] : ACCOUNTING_FILES.map((name) => join(resultDir(step.root), name))),
    ...(step.robustness ? [] : foldersOf(step).map((f) => join(f, ROBUSTNESS_FILE))),
  ];
  return { ...outputs, ...(await keepOrRemove(step, old, candidate, others)) };
}

export async function writeResults(step: ResultStep): Promise<ResultStepOutcome> {
  const { root } = step;
  const blockers = scoreBlockers({ root, competitions: step.competitions.map((dir) => ({ root: dir })), ...step.readiness });
  const score: Manifest['score'] = blockers.length > 0 ? { written: false, reason: blockerLine(blockers) } : { written: true };
  const candidate = currentManifest(root, step.competitions, step.configFile, step.contributors, { command: step.command, settings: step.settings, score });
  const old = readManifest(root);
  const given = givenFiles(step);
  const givenSame = [...given].every(([key, text]) => old?.outputs[key] === sha256(text)) && droppedTables(step).every((path) => !existsSync(path));
  if (step.command === 'run' && old && sameBasis(old, candidate) && outputsIntact(root, old) && givenSame) {
    return { status: 'unchanged', blockers, removed: [], manifest: old };
  }

  await removeManifest(root);
  const outputs = await writeStepFiles(step, old, candidate, given);
  const written = blockers.length > 0 ? [] : await step.score(candidate);
  const removed = await commitScoreFiles(foldersOf(step), new Set(written));
  for (const path of written) outputs[manifestPath(root, path)] = fileSha256Sync(path) ?? '';
  const manifest: Manifest = { ...candidate, outputs };
  await writeManifest(root, manifest);
  return { status: blockers.length > 0 ? 'blocked' : 'written', blockers, removed: removed.map((p) => manifestPath(root, p)), manifest };
}

/** sha256 of the prompt files the score's tie-break reads (`--prompts`), or null. */
function promptsDigest(dir: string | undefined): string | null {
  if (dir === undefined || !existsSync(dir)) return null;
  return sha256(JSON.stringify(listFiles(dir).map((f) => [f, fileSha256Sync(join(dir, f)) ?? ''])));
}

/** The settings of a scoring, as the manifest records them (no paths: the prompts by their content). */
export function scoreSettingsRecord(o: { rules: string; trials: number; eol: string; models?: readonly string[] | undefined; baseline?: string | undefined; nonCompeting?: readonly string[] | undefined; promptsDir?: string | undefined; teamOrder?: string | undefined }): Record<string, unknown> {
  return {
    rules: o.rules,
    trials: o.trials,
    eol: o.eol === '\r\n' ? 'crlf' : 'lf',
    models: [...(o.models ?? [])],
    baseline: o.baseline ?? null,
    notCompeting: [...(o.nonCompeting ?? [])],
    prompts: promptsDigest(o.promptsDir),
    teamOrder: o.teamOrder ?? 'name',
  };
}
