import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { fileSha256Sync, sha256 } from '../../core/hash.js';
import type { ScoreWarning } from '../../scoring/score/checks.js';
import type { Settings } from '../config/index.js';
import { writeFileAtomic } from '../layout/atomic.js';
import { listFiles, resultDir } from '../layout/competition.js';
import type { LevelOutcome } from '../machine/index.js';
import { runSettingsFacts } from '../report/settings.js';
import type { TrialRow } from '../run/accounting.js';
import { robustnessSection } from '../run/robustness-report.js';
import { simulationIdentity } from '../stages/level-cache.js';
import { type LevelRobustnessResult, robustnessTables } from '../stages/robustness.js';
import { assertReadAsRecorded, type ReadFolder, readScoreFolder, type Scored, type ScoreStageOptions } from '../stages/score.js';
import { writeScoreReports } from '../stages/score-report.js';
import { contributedSections, type ResultContributor } from './contributors.js';
import { commitScoreFiles, ROBUSTNESS_FILE, resultFolders } from './files.js';
import { manifestPath } from './inputs.js';
import { currentManifest, type Manifest, outputsIntact, readManifest, removeManifest, sameBasis, writeManifest } from './manifest.js';
import { type Blocker, blockerLine, type ReadinessOptions, scoreBlockers } from './readiness.js';
import { type TrialAccounting, trialAccounting } from './trial-accounting.js';

/**
 * The one writer of `result/`: `sbeval run` and `sbeval score` both go through it, so they refuse the
 * same folders and leave the same result folder. What the folder supports is decided first
 * (readiness.ts), the manifest is removed, every trial's fate is written (`trials.csv`, `failures.md`:
 * trial-accounting.ts, always), then — when the folder can be scored — the official score files and
 * the report with the same sections and settings rows whichever command wrote it, or, when it cannot,
 * the score files of an earlier state are removed; the manifest is written last. A file is removed only
 * when the folder no longer supports it, and the step returns its name for the command to print. `run`
 * also skips the step when the manifest shows that nothing it would write has changed (the same check
 * `sbeval check` makes).
 */
interface ResultStep {
  /** The command's settings: root, competition folders, letters, T, rules, the stages' settings. */
  settings: Settings;
  /** What the tools above the evaluator add (their inputs are recorded, their sections reported; contributors.ts). */
  contributors: readonly ResultContributor[];
  command: Manifest['command'];
  /** The settings as the manifest records them. */
  record: Record<string, unknown>;
  /** The score's own options (baseline, prompts, team order, uncertainty …). */
  options: ScoreStageOptions;
  /**
   * `--robustness N`: every level's perturbed runs (`run`: made or found; `score`: cached). Their table
   * (`result/robustness.csv`) is written and they add columns to `trials.csv` and a section to the
   * report. Without them, `dropTables` says whether a table of an earlier run goes (`run`), else it is
   * kept while the last manifest vouched for it and no input changed.
   */
  robustness?: { runs: number; levels: readonly LevelRobustnessResult[] };
  dropTables?: boolean;
  /** `run`: the outcomes of the levels it worked on (why a level not done yet is not: trial-accounting.ts). */
  outcomes?: readonly LevelOutcome[];
  /** The score's reading, when the caller started it ahead (`score`: its bootstrap runs while the folder is checked); else the step reads after recording the inputs. */
  read?: ReadFolder;
  /** Warnings of the stages before scoring, listed in the report after the score's own. */
  warnings?: () => readonly ScoreWarning[];
  /** Called before scoring starts (`run` logs the stage). */
  onScoring?: () => void;
}

interface ResultStepOutcome {
  status: 'written' | 'unchanged' | 'blocked';
  blockers: Blocker[];
  /** Result files removed because the folder no longer supports them (relative to the root). */
  removed: string[];
  manifest: Manifest;
  /** Every trial's fate, as written to `trials.csv`. */
  trials: TrialRow[];
  /** What the trials say about the settings (trial-accounting.ts), listed in the report after the score's. */
  accountingWarnings: ScoreWarning[];
  /** What scoring found, and the reports' own warnings (when written). */
  scored?: Scored;
  reportWarnings: ScoreWarning[];
  /** Every score and report file written (absolute paths). */
  files: string[];
}

/**
 * Result files this step does not write (`score`: a knife-edge table of an earlier run): each stays,
 * vouched for again, only while the last manifest vouched for it and every input is as it was;
 * otherwise it is removed (and named). `paths` are absolute.
 */
async function keepOrRemove(
  root: string,
  old: Manifest | undefined,
  candidate: Manifest,
  paths: readonly string[],
  removed: string[],
): Promise<Record<string, string>> {
  const kept: Record<string, string> = {};
  const sameInputs = old !== undefined && JSON.stringify(old.inputs) === JSON.stringify(candidate.inputs);
  for (const path of paths) {
    const key = manifestPath(root, path);
    if (!existsSync(path)) continue;
    const sha = fileSha256Sync(path);
    if (sameInputs && sha !== undefined && old.outputs[key] === sha) kept[key] = sha;
    else {
      await rm(path, { force: true });
      removed.push(path);
    }
  }
  return kept;
}

const foldersOf = (step: ResultStep) => resultFolders(step.settings.root, step.settings.competitions);

/** The files the step writes besides the score's (the accounting, the knife-edge tables), by path relative to the root. */
function givenFiles(step: ResultStep, accounting: TrialAccounting): Map<string, string> {
  const root = step.settings.root;
  const given = new Map<string, string>();
  for (const [name, text] of accounting.files) given.set(manifestPath(root, join(resultDir(root), name)), text);
  if (step.robustness)
    for (const [dir, text] of robustnessTables(step.settings.competitions, step.robustness.levels))
      given.set(manifestPath(root, join(resultDir(dir), ROBUSTNESS_FILE)), text);
  return given;
}

/** Knife-edge tables the step drops: every one, when it was told to drop them and was given none. */
function droppedTables(step: ResultStep): string[] {
  if (step.robustness || step.dropTables !== true) return [];
  return foldersOf(step).map((f) => join(f, ROBUSTNESS_FILE));
}

/** Writes the given files, removes the dropped tables, keeps (or removes) the tables it was not given; their outputs. */
async function writeStepFiles(
  step: ResultStep,
  old: Manifest | undefined,
  candidate: Manifest,
  given: ReadonlyMap<string, string>,
  removed: string[],
): Promise<Record<string, string>> {
  const outputs: Record<string, string> = {};
  for (const [key, text] of given) {
    await writeFileAtomic(join(step.settings.root, key), text);
    outputs[key] = sha256(text);
  }
  for (const path of droppedTables(step)) {
    if (!existsSync(path)) continue;
    await rm(path, { force: true });
    removed.push(path);
  }
  const others = step.robustness || step.dropTables === true ? [] : foldersOf(step).map((f) => join(f, ROBUSTNESS_FILE));
  return { ...outputs, ...(await keepOrRemove(step.settings.root, old, candidate, others, removed)) };
}

/** The contributors' input files now (relative path → sha256). */
function contributedHashes(step: ResultStep): Map<string, string> {
  const root = step.settings.root;
  const competitions = step.settings.competitions.map((c) => c.root);
  return new Map(
    step.contributors.flatMap((c) => c.inputs(root, competitions)).map((input) => [manifestPath(root, input.path), fileSha256Sync(input.path) ?? ''] as const),
  );
}

/**
 * The contributors' files (a rater's answers, a judge's file) are read after the manifest hashed them: a
 * save landing in between would give a report whose ratings the manifest does not describe. Hashed again
 * once read: a file whose bytes are not the recorded ones, one that appeared or one that went, stops the
 * step before anything is scored, naming them.
 */
function assertContributedAsRecorded(step: ResultStep, basis: Manifest, before: ReadonlySet<string>, read: ReadFolder): void {
  const now = contributedHashes(step);
  const changed = [...now].filter(([path, sha]) => basis.inputs[path] !== sha).map(([path]) => path);
  const gone = [...before].filter((path) => basis.inputs[path] !== undefined && !now.has(path));
  const named = [...changed, ...gone];
  if (named.length === 0) return;
  read.cancel();
  throw new SbevalError(
    'input',
    `the folder changed while it was scored: ${named.slice(0, 3).join(', ')}${named.length > 3 ? ` and ${named.length - 3} more` : ''}`,
    'another process wrote these files meanwhile; run the command again',
  );
}

/** Scores the folder as read and writes the report with every section and settings row; returns what scoring found. */
async function scoreAndReport(
  step: ResultStep,
  basis: Manifest,
  accounting: TrialAccounting,
  contributedPaths: ReadonlySet<string>,
): Promise<{ scored: Scored; files: string[]; warnings: ScoreWarning[] }> {
  const { settings } = step;
  step.onScoring?.();
  const read = step.read ?? readScoreFolder(step.options);
  // Read before (score) or after (run) the manifest was made: a file written meanwhile by another process stops the score.
  assertReadAsRecorded(read, settings.root, basis.inputs);
  // The judges' and raters' files are read after they were hashed, and held to the hashes before anything is scored.
  const contributed = contributedSections(step.contributors, settings.root, { rules: settings.rules, trials: settings.trials });
  assertContributedAsRecorded(step, basis, contributedPaths, read);
  const scored = await read.score();
  // The report, last: the score's content, every trial's fate (the gallery), the failure accounting, the
  // knife-edge verdicts (`--robustness N`), the judges (when the folder holds their results), the
  // caller's sections, the settings of every stage, and every warning.
  const written = await writeScoreReports(scored, {
    sections: [
      accounting.section,
      ...(step.robustness ? [robustnessSection(step.robustness.levels, step.robustness.runs)] : []),
      ...contributed,
      // A library caller's own sections (score.ts `ScoreStageOptions.sections`), last.
      ...(step.options.sections ?? []),
    ],
    trialFates: accounting.rows,
    settings: runSettingsFacts(settings, basis.identity.similarityModel),
    warnings: [...accounting.warnings, ...(step.warnings?.() ?? [])],
    // The competition's letters (the config's), never a --chars subset: the report describes the folder.
    ...(settings.competitionLetters ? { letters: settings.competitionLetters } : {}),
  });
  return { scored, files: [...scored.files, ...written.files], warnings: written.warnings };
}

export async function writeResults(step: ResultStep): Promise<ResultStepOutcome> {
  const { root } = step.settings;
  const competitions = step.settings.competitions.map((c) => c.root);
  const blockers = scoreBlockers({ root, competitions: step.settings.competitions, ...readinessOf(step.settings) });
  const score: Manifest['score'] = blockers.length > 0 ? { written: false, reason: blockerLine(blockers) } : { written: true };
  const contributedBefore = new Set(contributedHashes(step).keys());
  const candidate = currentManifest(root, competitions, step.settings.configFile, step.contributors, { command: step.command, settings: step.record, score });
  const old = readManifest(root);
  const accounting = await trialAccounting(step.settings, { robustness: step.robustness?.levels, outcomes: step.outcomes });
  const given = givenFiles(step, accounting);
  const givenSame = [...given].every(([key, text]) => old?.outputs[key] === sha256(text)) && droppedTables(step).every((path) => !existsSync(path));
  const base = { blockers, trials: accounting.rows, accountingWarnings: accounting.warnings, reportWarnings: [] as ScoreWarning[], files: [] as string[] };
  if (step.command === 'run' && old && sameBasis(old, candidate) && outputsIntact(root, old) && givenSame) {
    return { ...base, status: 'unchanged', removed: [], manifest: old };
  }

  await removeManifest(root);
  const removed: string[] = [];
  const outputs = await writeStepFiles(step, old, candidate, given, removed);
  const scoring = blockers.length > 0 ? undefined : await scoreAndReport(step, candidate, accounting, contributedBefore);
  const written = scoring?.files ?? [];
  removed.push(...(await commitScoreFiles(foldersOf(step), new Set(written))));
  for (const path of written) outputs[manifestPath(root, path)] = fileSha256Sync(path) ?? '';
  const manifest: Manifest = { ...candidate, outputs };
  await writeManifest(root, manifest);
  return {
    ...base,
    status: scoring ? 'written' : 'blocked',
    removed: removed.map((p) => manifestPath(root, p)),
    manifest,
    files: written,
    ...(scoring ? { scored: scoring.scored, reportWarnings: scoring.warnings } : {}),
  };
}

/** What the readiness check needs of a command's settings (one answer for run, score and check). */
export function readinessOf(settings: Settings): Omit<ReadinessOptions, 'root' | 'competitions'> {
  return {
    letters: settings.competitionLetters,
    prefix: settings.prefix,
    rules: settings.rules,
    trials: settings.trials,
    simulation: simulationIdentity(settings),
  };
}

/** sha256 of the prompt files the score's tie-break reads (`--prompts`), or null. */
function promptsDigest(dir: string | undefined): string | null {
  if (dir === undefined || !existsSync(dir)) return null;
  return sha256(JSON.stringify(listFiles(dir).map((f) => [f, fileSha256Sync(join(dir, f)) ?? ''])));
}

/** The settings of a scoring, as the manifest records them (no paths: the prompts by their content). */
export function scoreSettingsRecord(o: {
  rules: string;
  trials: number;
  eol: string;
  models?: readonly string[] | undefined;
  baseline?: string | undefined;
  nonCompeting?: readonly string[] | undefined;
  promptsDir?: string | undefined;
  teamOrder?: string | undefined;
}): Record<string, unknown> {
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
