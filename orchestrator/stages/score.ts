/**
 * The score stage: reads `<team>/{stability,similarity,diversity}/<C>.json` of every team folder,
 * scores with the chosen rule set (scoring/score) and writes `<root>/result/` exactly as the official
 * scoring-and-ranking-script does (`constants.json`, `trial_scores.csv`, `character_scores.csv`,
 * `prompt_scores_ranks.csv`, log `<root>/logs/result_log_<ISO>.txt`), plus `report.md` and a
 * self-contained `report.html`.
 *
 * 2025 (LLMs4PCG, three models): the root holds one competition folder per model,
 * `<root>/<model-folder>/<team>/<stage>/...` (folder names from `modelFolderName`). Each model folder
 * is scored on its own into `<root>/<model-folder>/result/`; the aggregate (prompt scores summed over
 * models, normalised by the grand total, baselines included) goes to `<root>/result/`.
 *
 * Unlike the official script this never stops silently: unreadable files, different file counts,
 * duplicate or out-of-range trials and odd values become warnings that name the file and say what
 * was assumed, and the result is written anyway.
 *
 * Two steps: `readScoreFolder` reads the folder and starts the ranking's bootstrap; its `score`
 * scores what was read, writes the official files and returns what it found (`Scored`). The reports
 * are built from that afterwards (score-report.ts) by the one results writer (result/step.ts) that
 * `sbeval run`, `sbeval score` and `runScoreStage` go through. `sbeval score` reads before it checks
 * what the folder supports, `run` after; either way `assertReadAsRecorded` holds the reading to the manifest.
 */
import { existsSync, readFileSync } from 'node:fs';
import { EOL } from 'node:os';
import { join, relative } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { sha256 } from '../../core/hash.js';
import { throwIfStorageFault } from '../../core/storage.js';
import { countWords } from '../../levels/rules-2023.js';
import { parseDiversityJson, parseSimilarityJson, parseStabilityJson } from '../../scoring/formats/index.js';
import type { ReportFact, ReportSection } from '../../scoring/report/build.js';
import { type AggregateResult, aggregateModels } from '../../scoring/score/aggregate.js';
import { checkInputs, type ScoreWarning } from '../../scoring/score/checks.js';
import { scoreCompetition } from '../../scoring/score/compute.js';
import { plain, ZERO } from '../../scoring/score/decimal.js';
import { characterScoresCsv, constantsJson, type Eol, promptScoresRanksCsv, toCsv, trialScoresCsv } from '../../scoring/score/outputs.js';
import { CHARACTERS, DEFAULT_TRIALS, RULE_SETS, type RuleSet, type RuleSetName, ruleSetChoice } from '../../scoring/score/rules.js';
import type { CharacterInput, ScoreInput, ScoreResult, TrialValue, TrialVector } from '../../scoring/score/types.js';
import { decideWinners, type WinnerDecision } from '../../scoring/score/winner.js';
import { DEFAULTS, type UncertaintySettings } from '../config/settings.js';
import { compareNames, listFiles, listTeams, trialIndexFromName } from '../layout/competition.js';
import { modelFolderName } from '../layout/names.js';
import { checkCompetitionRoot, type RootLayout } from '../layout/root-check.js';
import { StageLog } from '../layout/stage-log.js';
import { type ProgressSink, SILENT_PROGRESS } from '../progress/types.js';
import type { TrialFate } from '../report/fates.js';
import { writeScoreFile } from '../result/files.js';
import { changedSinceRead } from '../result/inputs.js';
import { type PendingUncertainty, startUncertainty, type UncertaintyInput, type UncertaintyOutcome } from './uncertainty.js';

/** `name`: case-insensitive alphabetical (the published files' order); `bytes`: code-point order. */
export type TeamOrder = 'name' | 'bytes';

export interface ScoreStageOptions {
  root: string;
  rules: RuleSetName;
  /** Line end of the CSV files; default the system's (`os.EOL`), as the official script (json2csv) writes them. */
  eol?: Eol;
  /** Trials per character (T); official 10. */
  trials?: number;
  /** Zero-shot baseline team folder: never wins; under 2025 rules the winner must beat it. */
  baseline?: string;
  /** More entries that count in P but do not compete (e.g. the strong baseline). */
  nonCompeting?: readonly string[];
  /** Folder with `<team>.<ext>` prompt/program files, for the shorter-prompt tie-break. */
  promptsDir?: string;
  /** 2025: model names (mapped with `modelFolderName`); default: detected model folders. */
  models?: readonly string[];
  teamOrder?: TeamOrder;
  /** Extra report sections (markdown + HTML) for the top-level report (see scoring/report/build.ts). */
  sections?: readonly ReportSection[];
  /**
   * Every trial's fate from the run's accounting (`result/trials.csv` rows; `model` is the model
   * folder, empty for a single competition), for the report's gallery. Without it the gallery reads
   * the fates from the files (orchestrator/report/fates.ts).
   */
  trialFates?: ReadonlyArray<TrialFate & { model?: string }>;
  /** The drop function's name for reasons read from the files; default the rule set's. */
  prefix?: string;
  /** Settings of the stages before scoring (engine, model, …), listed in the report after the score's own. */
  settings?: readonly ReportFact[];
  /** The competition's letters (configured, else every letter folder): the report's per-letter parts show them. */
  letters?: readonly string[];
  progress?: ProgressSink;
  /** The ranking's uncertainty beside the official files (uncertainty.ts); default on, 2000 resamples, seed 1. */
  uncertainty?: UncertaintySettings;
  /** With `--robustness N`: the levels' perturbed runs, from which the bootstrap also draws each level's stability. */
  physics?: UncertaintyInput['physics'];
}

export interface RankedRow {
  team: string;
  normalizedPromptScore: string;
  promptScore: string;
  rank: number;
}

/** One model folder of a 2025 root, scored on its own. */
export interface ScoredModel {
  folder: string;
  /** The model's name (`--models`), else the folder name. */
  label: string;
  dir: string;
  result: ScoreResult;
  /** What scoring read (a missing file is "no data" in the report, not a real 0). */
  input: ScoreInput;
  /** This folder's own warnings (unprefixed), for its report. */
  warnings: ScoreWarning[];
  winners: WinnerDecision;
}

/** What scoring found and wrote, before any report: the input of score-report.ts. */
export interface Scored {
  options: ScoreStageOptions;
  rules: RuleSet;
  eol: Eol;
  /** Where the top-level result and report go. */
  dir: string;
  teams: string[];
  /** Every warning, in the order they arose (per-model ones prefixed with the model). */
  warnings: ScoreWarning[];
  winners: WinnerDecision;
  ranking: RankedRow[];
  competitionScore: string;
  promptWords: ReadonlyMap<string, number> | undefined;
  /** Facts for the report beyond the rules' own (e.g. a 2025 root scored as one model). */
  notes: string[];
  /** A single competition (2023, 2024, one 2025 model), and what scoring read. */
  single?: ScoreResult;
  input?: ScoreInput;
  /** 2025 with model folders: each model, then the aggregate. */
  models?: ScoredModel[];
  aggregate?: AggregateResult;
  files: string[];
  logFiles: string[];
  /** The bootstrap's outcome: its sentence, intervals and report section, or why there are none. */
  uncertainty: UncertaintyOutcome;
}

function codePointCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function orderTeams(teams: readonly string[], order: TeamOrder): string[] {
  return [...teams].sort(order === 'bytes' ? codePointCompare : compareNames);
}

interface LoadedCompetition {
  input: ScoreInput;
  warnings: ScoreWarning[];
  /** Each file read (absolute path) → sha256 of the bytes read: what the scores are computed from. */
  read: Map<string, string>;
}

/** A competition folder's result stages, in reading order. */
type ResultStage = 'stability' | 'similarity' | 'diversity';

/** What reading one competition folder collects across teams: warnings, file hashes and how to name paths. */
interface LoadContext {
  show: (path: string) => string;
  warnings: ScoreWarning[];
  read: Map<string, string>;
}

/** Reads every per-character file of one competition folder. Problems become warnings, never silence. */
export function loadCompetition(
  dir: string,
  rules: RuleSet,
  options: { trials?: number; teamOrder?: TeamOrder; progress?: ProgressSink; root?: string } = {},
): LoadedCompetition {
  const root = options.root ?? dir;
  const ctx: LoadContext = { show: (path: string) => relative(root, path) || path, warnings: [], read: new Map<string, string>() };
  const teams = orderTeams(listTeams(dir), options.teamOrder ?? 'name');
  const inputs = new Map<string, Map<string, CharacterInput>>();
  const stages: readonly ResultStage[] = rules.diversity ? ['stability', 'similarity', 'diversity'] : ['stability', 'similarity'];
  const progress = options.progress ?? SILENT_PROGRESS;
  progress.start('score', teams.length);
  for (const team of teams) {
    inputs.set(team, loadTeam(dir, team, stages, ctx));
    progress.tick('score', 'ok', team);
  }
  progress.end('score');
  const input: ScoreInput = { teams, inputs, trials: options.trials ?? DEFAULT_TRIALS };
  ctx.warnings.push(...checkInputs(input, rules));
  return { input, warnings: ctx.warnings, read: ctx.read };
}

/** Reads one team's stage folders into its characters' inputs, warning when the stages hold different file counts. */
function loadTeam(dir: string, team: string, stages: readonly ResultStage[], ctx: LoadContext): Map<string, CharacterInput> {
  const cells = new Map<string, CharacterInput>();
  const counts = new Map<string, number>();
  for (const stage of stages) {
    const stageDir = join(dir, team, stage);
    const files = listFiles(stageDir);
    counts.set(stage, files.length);
    warnExtraFiles(stageDir, files, team, ctx);
    for (const character of CHARACTERS) {
      if (!files.includes(`${character}.json`)) continue;
      const c = cells.get(character) ?? { sources: {} };
      cells.set(character, c);
      readCharacterFile(join(stageDir, `${character}.json`), stage, c, team, character, ctx);
    }
  }
  const distinct = new Set(counts.values());
  if (distinct.size > 1) {
    const list = [...counts].map(([stage, n]) => `${stage} ${n}`).join(', ');
    ctx.warnings.push({
      code: 'file-count',
      message: `team ${team} has different numbers of files (${list}); the official script would stop and write no result for anyone — here each missing file counts as 0`,
      file: ctx.show(join(dir, team)),
      team,
    });
  }
  return cells;
}

function warnExtraFiles(stageDir: string, files: readonly string[], team: string, ctx: LoadContext): void {
  for (const file of files) {
    if (!/^[A-Z]\.json$/.test(file)) {
      ctx.warnings.push({
        code: 'extra-file',
        message: `${ctx.show(join(stageDir, file))} is not a <A-Z>.json result file: ignored (the official script counts it when comparing file counts)`,
        file: ctx.show(join(stageDir, file)),
        team,
      });
    }
  }
}

/** Reads and hashes one `<C>.json` into its character's input; an unreadable file becomes a warning (its values count as 0). */
function readCharacterFile(path: string, stage: ResultStage, c: CharacterInput, team: string, character: string, ctx: LoadContext): void {
  const label = ctx.show(path);
  c.sources = { ...c.sources, [stage]: label };
  try {
    const bytes = readFileSync(path);
    ctx.read.set(path, sha256(bytes));
    parseStageFile(stage, bytes.toString('utf8'), label, c);
  } catch (error) {
    throwIfStorageFault(error); // a forbidden or failing disk must not count as a team's zero
    ctx.warnings.push({
      code: 'unreadable',
      message: `${(error as Error).message} — the file is treated as missing (its values count as 0)`,
      file: label,
      team,
      character,
    });
  }
}

function parseStageFile(stage: ResultStage, text: string, label: string, c: CharacterInput): void {
  if (stage === 'stability') {
    c.stability = parseStabilityJson(text, label).raws.map(
      (r): TrialValue => ({
        trial: trialIndexFromName(r.tag),
        name: r.tag,
        value: r.score,
        ...(r.startingObjects !== undefined ? { startingObjects: r.startingObjects } : {}),
      }),
    );
  } else if (stage === 'similarity') {
    c.similarity = parseSimilarityJson(text, label).trials.map((t): TrialValue => ({ trial: trialIndexFromName(t.id), name: t.id, value: t.similarity }));
  } else {
    const diversity = parseDiversityJson(text, label);
    c.diversityRate = diversity.diversityRate;
    // Kept for the uncertainty bootstrap, which recomputes each resample's diversity from them.
    c.vectors = diversity.trials.map((t): TrialVector => ({ trial: trialIndexFromName(t.trial), name: t.trial, vector: t.vector }));
  }
}

/** Word counts of the prompt files `<team>.<ext>` (prefers `.txt`), counted as the 2023 rules count. */
function readPromptWords(promptsDir: string, teams: readonly string[]): { words: Map<string, number>; warnings: ScoreWarning[] } {
  const words = new Map<string, number>();
  const warnings: ScoreWarning[] = [];
  if (!existsSync(promptsDir)) throw new SbevalError('input', `prompts folder ${promptsDir} does not exist`);
  const files = listFiles(promptsDir);
  for (const team of teams) {
    const candidates = files
      .filter((f) => f === team || f.startsWith(`${team}.`))
      .sort((a, b) => Number(!a.endsWith('.txt')) - Number(!b.endsWith('.txt')) || compareNames(a, b));
    const file = candidates[0];
    if (file === undefined) {
      warnings.push({ code: 'missing-file', message: `no prompt file for ${team} in ${promptsDir}: its prompt length is unknown for tie-breaks`, team });
      continue;
    }
    words.set(team, countWords(readFileSync(join(promptsDir, file), 'utf8')));
  }
  return { words, warnings };
}

function logResult(log: StageLog, result: ScoreResult, warnings: readonly ScoreWarning[]): void {
  for (const w of warnings) log.line(`Warning - ${w.code} - ${w.file ? `${w.file} - ` : ''}${w.message}`);
  for (const w of result.weights) {
    log.line(
      `character: ${w.character} - weight: ${plain(w.weight)} - weightStability: ${plain(w.weightStability)} - weightSimilarity: ${plain(w.weightSimilarity)} - weightDiversity: ${plain(w.weightDiversity)}`,
    );
  }
  for (const t of result.trials) {
    log.line(
      `Calculating trial score - prompt: ${t.team} - character: ${t.character} - trial: ${t.trial} - stability: ${plain(t.stability)} - similarity: ${plain(t.similarity)} - trial_score: ${plain(t.trialScore)}`,
    );
  }
  for (const c of result.characters) {
    log.line(
      `Calculating average stability and similarity - prompt: ${c.team} - character: ${c.character} - stability: ${plain(c.averageStability)} - similarity: ${plain(c.averageSimilarity)}`,
    );
    log.line(`Calculating character score - prompt: ${c.team} - character: ${c.character} - character_score: ${plain(c.characterScore)}`);
  }
  for (const [team, score] of result.prompts) log.line(`Calculating prompt score - prompt: ${team} - prompt_score: ${plain(score)}`);
  log.line(`Calculating competition score - competition_score: ${plain(result.competitionScore)}`);
  for (const r of result.ranking)
    log.line(`Calculating normalized prompt score - prompt: ${r.team} - normalized_prompt_score: ${plain(r.normalizedPromptScore)} - rank: ${r.rank}`);
}

export function rankingRows(result: ScoreResult): RankedRow[] {
  return result.ranking.map((r) => ({ team: r.team, normalizedPromptScore: plain(r.normalizedPromptScore), promptScore: plain(r.promptScore), rank: r.rank }));
}

/** Writes the four official files and the log of one competition folder; returns the files and the log. */
async function writeOfficial(dir: string, result: ScoreResult, warnings: readonly ScoreWarning[], eol: Eol): Promise<{ files: string[]; logFile: string }> {
  const log = new StageLog(dir, 'result');
  logResult(log, result, warnings);
  const files: Array<[string, string]> = [
    ['constants.json', constantsJson(result)],
    ['trial_scores.csv', trialScoresCsv(result, eol)],
    ['character_scores.csv', characterScoresCsv(result, eol)],
    ['prompt_scores_ranks.csv', promptScoresRanksCsv(result, eol)],
  ];
  const written: string[] = [];
  for (const [name, text] of files) written.push(await writeScoreFile(dir, name, text));
  return { files: written, logFile: log.file };
}

export function roleOf(options: ScoreStageOptions): (team: string) => string {
  const others = new Set(options.nonCompeting ?? []);
  return (team) => (team === options.baseline ? 'zero-shot baseline' : others.has(team) ? 'not competing' : 'team');
}

function checkNamedTeams(options: ScoreStageOptions, teams: readonly string[], warnings: ScoreWarning[]): void {
  for (const name of [...(options.baseline !== undefined ? [options.baseline] : []), ...(options.nonCompeting ?? [])]) {
    if (!teams.includes(name))
      warnings.push({ code: 'missing-file', message: `"${name}" was named as a baseline/non-competing entry but there is no such team folder`, team: name });
  }
}

function winnerOptions(options: ScoreStageOptions, mustBeatBaseline: boolean, words: ReadonlyMap<string, number> | undefined) {
  return {
    ...(options.baseline !== undefined ? { baseline: options.baseline } : {}),
    nonCompeting: options.nonCompeting ?? [],
    mustBeatBaseline,
    ...(words ? { words } : {}),
  };
}

/** What the bootstrap needs beyond the scores: its settings, who can win, the tie-break, the perturbed runs. */
function uncertaintyCommon(options: ScoreStageOptions, rules: RuleSet, eol: Eol, teams: readonly string[], words: ReadonlyMap<string, number> | undefined) {
  const excluded = new Set([...(options.baseline !== undefined ? [options.baseline] : []), ...(options.nonCompeting ?? [])]);
  const mustBeat = rules.mustBeatBaseline && options.baseline !== undefined && teams.includes(options.baseline) ? options.baseline : undefined;
  return {
    dir: options.root,
    eol,
    settings: options.uncertainty ?? DEFAULTS.uncertainty,
    trials: options.trials ?? DEFAULT_TRIALS,
    competing: teams.filter((team) => !excluded.has(team)),
    ...(mustBeat !== undefined ? { mustBeat } : {}),
    ...(words ? { words } : {}),
    ...(options.physics ? { physics: options.physics } : {}),
  };
}

/** Runs `work` while the bootstrap runs (uncertainty.ts); a failing `work` stops the bootstrap's thread. */
async function alongside<T>(pending: PendingUncertainty, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    pending.cancel();
    throw error;
  }
}

/**
 * A folder read for scoring, its bootstrap started (uncertainty.ts): `score` scores what was read and
 * writes the official files. `sbeval score` reads before its readiness check (orchestrator/result/step.ts),
 * so that the resamples run in their thread meanwhile (docs/uncertainty.md "Cost"); a folder the check
 * blocks is never scored, and `cancel` stops its thread.
 */
export interface ReadFolder {
  /** Each file the reading took (absolute path) → sha256 of its bytes (`assertReadAsRecorded`). */
  read: ReadonlyMap<string, string>;
  score(): Promise<Scored>;
  /** It will not be scored: stops the bootstrap's thread (nothing once `score` has been called). */
  cancel(): void;
}

function readFolder(pending: PendingUncertainty, read: ReadonlyMap<string, string>, score: () => Promise<Scored>): ReadFolder {
  let scoring = false;
  return {
    read,
    score: () => {
      scoring = true;
      return score();
    },
    cancel: () => {
      if (!scoring) pending.cancel();
    },
  };
}

/** Reads one competition folder (2023, 2024, or a single 2025 model); its `score` writes its official files. */
function readSingle(options: ScoreStageOptions, rules: RuleSet, eol: Eol, warnings: ScoreWarning[] = []): ReadFolder {
  const root = options.root;
  const loaded = loadCompetition(root, rules, { ...options, root });
  warnings.push(...loaded.warnings);
  const { input } = loaded;
  if (input.teams.length === 0)
    throw new SbevalError('input', `no team folders in ${root}`, 'the root must hold one folder per team (<root>/<team>/stability/<C>.json ...)');
  const promptWords = options.promptsDir ? readPromptWords(options.promptsDir, input.teams) : undefined;
  if (promptWords) warnings.push(...promptWords.warnings);
  checkNamedTeams(options, input.teams, warnings);
  // Beside the official files, never changing them: result/score_intervals.csv, result/rank_probabilities.csv.
  const pending = startUncertainty({
    ...uncertaintyCommon(options, rules, eol, input.teams, promptWords?.words),
    competitions: [{ key: undefined, label: '', input, rules }],
  });
  return readFolder(pending, loaded.read, () => scoreSingle({ options, rules, eol, warnings, input, promptWords: promptWords?.words, pending }));
}

/** What `readSingle` read, and the bootstrap it started. */
interface SingleRead {
  options: ScoreStageOptions;
  rules: RuleSet;
  eol: Eol;
  warnings: ScoreWarning[];
  input: ScoreInput;
  promptWords: ReadonlyMap<string, number> | undefined;
  pending: PendingUncertainty;
}

/** Scores one competition folder as read and writes its official files. */
async function scoreSingle({ options, rules, eol, warnings, input, promptWords, pending }: SingleRead): Promise<Scored> {
  const root = options.root;
  const { result, written } = await alongside(pending, async () => {
    const result = scoreCompetition(input, rules, promptWords ? { words: promptWords } : {});
    return { result, written: await writeOfficial(root, result, warnings, eol) };
  });
  const winners = decideWinners(input.teams, result.prompts, winnerOptions(options, rules.mustBeatBaseline, promptWords));
  const ranking = rankingRows(result);
  const uncertainty = await pending.finish({ ranking });
  return {
    options,
    rules,
    eol,
    dir: root,
    teams: [...input.teams],
    warnings,
    winners,
    ranking,
    competitionScore: plain(result.competitionScore),
    promptWords: promptWords,
    notes: [],
    single: result,
    input,
    files: [...written.files, ...uncertainty.files],
    logFiles: [written.logFile],
    uncertainty,
  };
}

/**
 * The model folders of a 2025 root: named by `--models`, else those of the one layout reading
 * (layout/root-check.ts), which also refuses a team folder beside model folders or one nested too deep.
 */
function modelFolders(options: ScoreStageOptions, layout: RootLayout): { folders: string[]; labels: Map<string, string> } {
  const root = options.root;
  const labels = new Map<string, string>();
  if (options.models && options.models.length > 0) {
    const folders = options.models.map((model) => {
      const folder = modelFolderName(model);
      labels.set(folder, model);
      if (!existsSync(join(root, folder)))
        throw new SbevalError(
          'input',
          `model folder ${join(root, folder)} (model "${model}") does not exist`,
          'each model needs its own competition folder <root>/<model-folder>/<team>/...',
        );
      return folder;
    });
    return { folders, labels };
  }
  return { folders: layout.kind === 'models' ? [...layout.models] : [], labels };
}

/** One model folder as read, before scoring. */
interface LoadedModel {
  folder: string;
  label: string;
  dir: string;
  input: ScoreInput;
  warnings: ScoreWarning[];
  read: Map<string, string>;
}

/** Reads one model folder; undefined (and a warning) when it has no team folders. */
function loadModelFolder(options: ScoreStageOptions, rules: RuleSet, folder: string, label: string, warnings: ScoreWarning[]): LoadedModel | undefined {
  const dir = join(options.root, folder);
  const loaded = loadCompetition(dir, rules, { ...options, root: options.root });
  if (loaded.input.teams.length === 0) {
    warnings.push({ code: 'model', message: `model folder ${folder} has no team folders: its scores are 0 for everyone`, file: folder });
  }
  warnings.push(...loaded.warnings.map((w) => ({ ...w, message: `[${label}] ${w.message}` })));
  if (loaded.input.teams.length === 0) return undefined;
  return { folder, label, dir, input: loaded.input, warnings: loaded.warnings, read: loaded.read };
}

/** One model folder: its own official files, its own (per-model) ranking. */
async function scoreModelFolder(
  options: ScoreStageOptions,
  rules: RuleSet,
  eol: Eol,
  model: LoadedModel,
): Promise<{ scored: ScoredModel; files: string[]; logFile: string }> {
  const result = scoreCompetition(model.input, rules);
  const written = await writeOfficial(model.dir, result, model.warnings, eol);
  const winners = decideWinners(result.teams, result.prompts, winnerOptions(options, false, undefined));
  winners.notes.unshift('Per-model view only: the 2025 winner is decided on the sum over models (see the aggregate report).');
  return { scored: { ...model, result, winners }, files: written.files, logFile: written.logFile };
}

/** The aggregate result folder: the official rank file over totals, constants, and the detailed table. */
async function writeAggregate(
  root: string,
  agg: AggregateResult,
  models: readonly ScoredModel[],
  scored: Pick<Scored, 'warnings' | 'winners' | 'promptWords' | 'eol' | 'options'>,
): Promise<{ files: string[]; logFile: string; rows: RankedRow[] }> {
  const labelOf = (folder: string) => models.find((m) => m.folder === folder)?.label ?? folder;
  const log = new StageLog(root, 'result');
  for (const w of scored.warnings) log.line(`Warning - ${w.code} - ${w.file ? `${w.file} - ` : ''}${w.message}`);
  for (const r of agg.ranking) {
    log.line(
      `Calculating total prompt score - prompt: ${r.team} - ${agg.models.map((m) => `${labelOf(m)}: ${plain(r.perModel.get(m) ?? ZERO)}`).join(' - ')} - total_prompt_score: ${plain(r.total)}`,
    );
  }
  log.line(`Calculating competition score - competition_score: ${plain(agg.grandTotal)}`);
  for (const r of agg.ranking)
    log.line(`Calculating normalized prompt score - prompt: ${r.team} - normalized_prompt_score: ${plain(r.normalized)} - rank: ${r.rank}`);
  const rows: RankedRow[] = agg.ranking.map((r) => ({ team: r.team, normalizedPromptScore: plain(r.normalized), promptScore: plain(r.total), rank: r.rank }));
  const constants = JSON.stringify({
    competitionScore: plain(agg.grandTotal),
    models: models.map(({ folder, label, result }) => ({ model: label, folder, competitionScore: plain(result.competitionScore) })),
  });
  const detailHeader = ['team', 'rank', 'normalizedPromptScore', 'promptScore'];
  for (const m of agg.models) detailHeader.push(`promptScore:${labelOf(m)}`, `normalizedPromptScore:${labelOf(m)}`);
  detailHeader.push('words', 'role', 'winner');
  const roles = roleOf(scored.options);
  const detail = toCsv(
    detailHeader,
    agg.ranking.map((r) => {
      const row: Array<string | number> = [r.team, r.rank, plain(r.normalized), plain(r.total)];
      for (const m of agg.models) row.push(plain(r.perModel.get(m) ?? ZERO), plain(r.perModelNormalized.get(m) ?? ZERO));
      row.push(scored.promptWords?.get(r.team) ?? '', roles(r.team), scored.winners.winners.includes(r.team) ? 'yes' : 'no');
      return row;
    }),
    scored.eol,
  );
  const files: string[] = [];
  const aggregateFiles: Array<[string, string]> = [
    ['constants.json', constants],
    [
      'prompt_scores_ranks.csv',
      toCsv(
        ['team', 'normalizedPromptScore', 'promptScore', 'rank'],
        rows.map((r) => [r.team, r.normalizedPromptScore, r.promptScore, r.rank]),
        scored.eol,
      ),
    ],
    ['final_team_rankings.csv', detail],
  ];
  for (const [name, text] of aggregateFiles) files.push(await writeScoreFile(root, name, text));
  return { files, logFile: log.file, rows };
}

/** 2025: one competition per model folder, read; its `score` scores each, then the published aggregation. */
function readModels(options: ScoreStageOptions, rules: RuleSet, eol: Eol, layout: RootLayout): ReadFolder {
  const root = options.root;
  const warnings: ScoreWarning[] = [];
  const { folders, labels } = modelFolders(options, layout);
  if (folders.length === 0) {
    if (layout.kind !== 'teams')
      throw new SbevalError(
        'input',
        `no model or team folders in ${root}`,
        `for --rules ${rules.name} use <root>/<model-folder>/<team>/{stability,similarity,diversity}/<C>.json`,
      );
    // One competition folder without a model level: one model (the 2025 competition summed three).
    const single = readSingle(options, rules, eol, warnings);
    return {
      read: single.read,
      score: async () => {
        const scored = await single.score();
        scored.notes.push(
          'One competition folder, no model folders: scored as one model (the 2025 competition summed the prompt scores of three, <root>/<model>/<team>/…)',
        );
        return scored;
      },
      cancel: () => single.cancel(),
    };
  }
  // About the root as a whole: no path in it, so the result files do not depend on where the folder is.
  if (folders.length !== 3)
    warnings.push({ code: 'model', message: `${folders.length} model folder(s) (${folders.join(', ')}); the 2025 competition used 3 models` });

  const loaded = folders.map((folder) => loadModelFolder(options, rules, folder, labels.get(folder) ?? folder, warnings)).filter((m) => m !== undefined);
  const teams = orderTeams([...new Set(loaded.flatMap((m) => m.input.teams))], options.teamOrder ?? 'name');
  const promptWords = options.promptsDir ? readPromptWords(options.promptsDir, teams) : undefined;
  if (promptWords) warnings.push(...promptWords.warnings);
  checkNamedTeams(options, teams, warnings);
  // Beside the official files, never changing them: result/score_intervals.csv, result/rank_probabilities.csv (and each model folder's own).
  const pending = startUncertainty({
    ...uncertaintyCommon(options, rules, eol, teams, promptWords?.words),
    competitions: loaded.map((m) => ({ key: m.folder, dir: m.dir, label: m.label, input: m.input, rules })),
  });
  return readFolder(pending, new Map(loaded.flatMap((m) => [...m.read])), () =>
    scoreModels({ options, rules, eol, warnings, loaded, teams, labels, promptWords: promptWords?.words, pending }),
  );
}

/** What `readModels` read, and the bootstrap it started. */
interface ModelsRead extends Omit<SingleRead, 'input'> {
  loaded: LoadedModel[];
  teams: string[];
  labels: ReadonlyMap<string, string>;
}

/** Scores each model folder as read into its own result folder, then the aggregate into the root's. */
async function scoreModels({ options, rules, eol, warnings, loaded, teams, labels, promptWords, pending }: ModelsRead): Promise<Scored> {
  const root = options.root;
  const { models, files, logFiles, agg, winners, written } = await alongside(pending, async () => {
    const models: ScoredModel[] = [];
    const files: string[] = [];
    const logFiles: string[] = [];
    for (const model of loaded) {
      const one = await scoreModelFolder(options, rules, eol, model);
      models.push(one.scored);
      files.push(...one.files);
      logFiles.push(one.logFile);
    }
    const agg = aggregateModels(
      models.map((m) => ({ model: m.folder, result: m.result })),
      promptWords ? { words: promptWords } : {},
    );
    for (const { team, model } of agg.missing) {
      warnings.push({
        code: 'missing-file',
        message: `team ${team} has no folder in model ${labels.get(model) ?? model}: its prompt score there counts 0`,
        file: join(model, team),
        team,
      });
    }
    const winners = decideWinners(agg.teams, new Map(agg.ranking.map((r) => [r.team, r.total])), winnerOptions(options, rules.mustBeatBaseline, promptWords));
    const written = await writeAggregate(root, agg, models, { warnings, winners, promptWords: promptWords, eol, options });
    return { models, files, logFiles, agg, winners, written };
  });
  const uncertainty = await pending.finish({ ranking: written.rows, perModel: models.map((m) => rankingRows(m.result)) });
  return {
    options,
    rules,
    eol,
    dir: root,
    teams,
    warnings,
    winners,
    ranking: written.rows,
    competitionScore: plain(agg.grandTotal),
    promptWords: promptWords,
    notes: [],
    models,
    aggregate: agg,
    files: [...files, ...written.files, ...uncertainty.files],
    logFiles: [...logFiles, written.logFile],
    uncertainty,
  };
}

/**
 * Reads a root for scoring and starts its bootstrap (see `ReadFolder`). What reading finds wrong (no
 * team folders, an unknown rule set, …) is thrown by `score`, where scoring would have met it: a
 * folder the readiness check blocks reports its blockers, as before the read moved ahead of it.
 */
export function readScoreFolder(options: ScoreStageOptions): ReadFolder {
  try {
    return readRoot(options);
  } catch (error) {
    return {
      read: new Map(),
      score: async () => {
        throw error;
      },
      cancel: () => undefined,
    };
  }
}

/**
 * The manifest is made after the folder was read (`sbeval score` reads before its check, `run` in its
 * score step, after it): a file the reading took whose bytes the manifest's record does not have was
 * changed or removed in between, by another process, and the scores would not be of the folder the
 * manifest describes. Then this stops the read's bootstrap and throws, naming the files.
 */
export function assertReadAsRecorded(read: ReadFolder, root: string, recorded: Readonly<Record<string, string>>): void {
  const changed = changedSinceRead(root, recorded, read.read);
  if (changed.length === 0) return;
  read.cancel();
  const named = changed.length > 3 ? `${changed.slice(0, 3).join(', ')} and ${changed.length - 3} more` : changed.join(', ');
  throw new SbevalError('input', `the folder changed while it was scored: ${named}`, 'another process wrote these files meanwhile; run the command again');
}

function readRoot(options: ScoreStageOptions): ReadFolder {
  const rules = RULE_SETS[options.rules];
  if (!rules) throw new SbevalError('config', `unknown rule set "${options.rules}"`, `use ${ruleSetChoice()}`);
  const trials = options.trials ?? DEFAULT_TRIALS;
  if (!Number.isSafeInteger(trials) || trials < 1) throw new SbevalError('config', `--trials must be a positive integer, got ${options.trials}`);
  if (!existsSync(options.root)) throw new SbevalError('input', `competition root ${options.root} does not exist`);
  // json2csv, which the official script writes with, ends lines with os.EOL.
  const eol = options.eol ?? (EOL as Eol);
  // The one reading of the folder (layout/root-check.ts) the folder check and every stage share.
  const layout = checkCompetitionRoot(options.root, { command: 'score', modelFolders: (options.models ?? []).map(modelFolderName) });
  if (!rules.multiModel && layout.kind === 'models') {
    const multiModel = ruleSetChoice((r) => r.multiModel);
    throw new SbevalError(
      'config',
      `${options.root} holds one competition folder per model (${layout.models.join(', ')}), which only the ${multiModel} rules score`,
      `use --rules ${multiModel}, or give one model folder as the root`,
    );
  }
  return rules.multiModel ? readModels(options, rules, eol, layout) : readSingle(options, rules, eol);
}
