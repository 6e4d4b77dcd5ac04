import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileSha256Sync, sha256 } from '../../core/hash.js';
import { listFiles, resultDir } from '../layout/competition.js';
import { writeFileAtomic } from '../layout/atomic.js';
import { ACCOUNTING_FILES, commitScoreFiles, resultFolders } from './files.js';
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
  command: Manifest['command'];
  settings: Record<string, unknown>;
  readiness: Omit<ReadinessOptions, 'root' | 'competitions'>;
  /** `run`: the trial accounting's files, by name (`trials.csv`, `failures.md`). */
  accounting?: ReadonlyMap<string, string>;
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

const rel = (root: string, path: string) => relative(root, path).split('\\').join('/');

/** `sbeval score`: the accounting of an earlier run stays only while every input is as it was. */
async function keepOrRemoveAccounting(step: ResultStep, old: Manifest | undefined, candidate: Manifest): Promise<Record<string, string>> {
  const kept: Record<string, string> = {};
  const sameInputs = old !== undefined && JSON.stringify(old.inputs) === JSON.stringify(candidate.inputs);
  for (const name of ACCOUNTING_FILES) {
    const path = join(resultDir(step.root), name);
    const key = rel(step.root, path);
    if (!existsSync(path)) continue;
    const sha = fileSha256Sync(path);
    if (sameInputs && sha !== undefined && old.outputs[key] === sha) kept[key] = sha;
    else await rm(path, { force: true });
  }
  return kept;
}

export async function writeResults(step: ResultStep): Promise<ResultStepOutcome> {
  const { root } = step;
  const blockers = scoreBlockers({ root, competitions: step.competitions.map((dir) => ({ root: dir })), ...step.readiness });
  const score: Manifest['score'] = blockers.length > 0 ? { written: false, reason: blockerLine(blockers) } : { written: true };
  const candidate = currentManifest(root, step.competitions, step.configFile, { command: step.command, settings: step.settings, score });
  const old = readManifest(root);
  const accounting = new Map([...(step.accounting ?? new Map<string, string>())].map(([name, text]) => [rel(root, join(resultDir(root), name)), text]));
  const accountingSame = [...accounting].every(([key, text]) => old?.outputs[key] === sha256(text));
  if (step.command === 'run' && old && sameBasis(old, candidate) && outputsIntact(root, old) && accountingSame) {
    return { status: 'unchanged', blockers, removed: [], manifest: old };
  }

  await removeManifest(root);
  const outputs: Record<string, string> = {};
  if (step.accounting) {
    for (const [key, text] of accounting) {
      await writeFileAtomic(join(root, key), text);
      outputs[key] = sha256(text);
    }
  } else Object.assign(outputs, await keepOrRemoveAccounting(step, old, candidate));
  const written = blockers.length > 0 ? [] : await step.score(candidate);
  const removed = await commitScoreFiles(resultFolders(root, step.competitions.map((dir) => ({ root: dir }))), new Set(written));
  for (const path of written) outputs[rel(root, path)] = fileSha256Sync(path) ?? '';
  const manifest: Manifest = { ...candidate, outputs };
  await writeManifest(root, manifest);
  return { status: blockers.length > 0 ? 'blocked' : 'written', blockers, removed: removed.map((p) => rel(root, p)), manifest };
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
