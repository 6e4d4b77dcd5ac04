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
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { countWords } from '../../levels/rules-2023.js';
import { parseDiversityJson, parseSimilarityJson, parseStabilityJson } from '../../scoring/formats/index.js';
import { aggregateModels, type AggregateResult } from '../../scoring/score/aggregate.js';
import { checkInputs, type ScoreWarning } from '../../scoring/score/checks.js';
import { scoreCompetition } from '../../scoring/score/compute.js';
import { plain, ZERO } from '../../scoring/score/decimal.js';
import { characterScoresCsv, constantsJson, promptScoresRanksCsv, toCsv, trialScoresCsv, type Eol } from '../../scoring/score/outputs.js';
import { CHARACTERS, DEFAULT_TRIALS, RULE_SETS, type RuleSet, type RuleSetName } from '../../scoring/score/rules.js';
import type { CharacterInput, ScoreInput, ScoreResult, TrialValue } from '../../scoring/score/types.js';
import { decideWinners, type WinnerDecision } from '../../scoring/score/winner.js';
import { buildReport, rankingBars, type ReportCompetition, type ReportFact, type ReportSection, type ReportTable } from '../../scoring/report/build.js';
import { collectGallery, rebaseGallery } from '../report/gallery.js';
import type { TrialFate } from '../report/fates.js';
import { softwareVersions } from '../report/versions.js';
import { functionPrefix } from '../config/resolve.js';
import { SbevalError } from '../../core/errors.js';
import { throwIfStorageFault } from '../../core/storage.js';
import { writeFileAtomic } from '../layout/atomic.js';
import { compareNames, listDirs, listFiles, listTeams, NON_TEAM_DIRS, resultDir, trialIndexFromName } from '../layout/competition.js';
import { modelFolderName } from '../layout/names.js';
import { StageLog } from '../layout/stage-log.js';
import { SILENT_PROGRESS, type ProgressSink } from '../progress/types.js';

/** `name`: case-insensitive alphabetical (the published files' order); `bytes`: code-point order. */
export type TeamOrder = 'name' | 'bytes';

export interface ScoreStageOptions {
  root: string;
  rules: RuleSetName;
  /** Line end of the CSV files; default the rule set's published one (2023 LF, 2024/2025 CRLF). */
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
  progress?: ProgressSink;
}

export interface RankedRow {
  team: string;
  normalizedPromptScore: string;
  promptScore: string;
  rank: number;
}

export interface ScoreStageResult {
  rules: RuleSetName;
  resultDir: string;
  /** Every file written, absolute paths. */
  files: string[];
  warnings: ScoreWarning[];
  winners: WinnerDecision;
  ranking: RankedRow[];
  competitionScore: string;
  /** 2025: the model folders scored. */
  models?: string[];
  logFiles: string[];
}

const STAGE_FOLDERS = ['raw', 'intermediate', 'levels', 'images', 'stability', 'similarity', 'diversity'];

function codePointCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function orderTeams(teams: string[], order: TeamOrder): string[] {
  return [...teams].sort(order === 'bytes' ? codePointCompare : compareNames);
}

function isTeamDir(dir: string): boolean {
  return STAGE_FOLDERS.some((stage) => existsSync(join(dir, stage)));
}

interface LoadedCompetition {
  input: ScoreInput;
  warnings: ScoreWarning[];
}

/** Reads every per-character file of one competition folder. Problems become warnings, never silence. */
export function loadCompetition(dir: string, rules: RuleSet, options: { trials?: number; teamOrder?: TeamOrder; progress?: ProgressSink; root?: string } = {}): LoadedCompetition {
  const root = options.root ?? dir;
  const show = (path: string) => relative(root, path) || path;
  const teams = orderTeams(listTeams(dir), options.teamOrder ?? 'name');
  const warnings: ScoreWarning[] = [];
  const inputs = new Map<string, Map<string, CharacterInput>>();
  const stages = rules.diversity ? (['stability', 'similarity', 'diversity'] as const) : (['stability', 'similarity'] as const);
  const progress = options.progress ?? SILENT_PROGRESS;
  progress.start('score', teams.length);
  for (const team of teams) {
    const cells = new Map<string, CharacterInput>();
    const counts = new Map<string, number>();
    for (const stage of stages) {
      const stageDir = join(dir, team, stage);
      const files = listFiles(stageDir);
      counts.set(stage, files.length);
      for (const file of files) {
        if (!/^[A-Z]\.json$/.test(file)) {
          warnings.push({ code: 'extra-file', message: `${show(join(stageDir, file))} is not a <A-Z>.json result file: ignored (the official script counts it when comparing file counts)`, file: show(join(stageDir, file)), team });
        }
      }
      for (const character of CHARACTERS) {
        const path = join(stageDir, `${character}.json`);
        if (!files.includes(`${character}.json`)) continue;
        const c = cells.get(character) ?? { sources: {} };
        cells.set(character, c);
        const label = show(path);
        c.sources = { ...c.sources, [stage]: label };
        try {
          const text = readFileSync(path, 'utf8');
          if (stage === 'stability') {
            c.stability = parseStabilityJson(text, label).raws.map((r): TrialValue => ({ trial: trialIndexFromName(r.tag), name: r.tag, value: r.score }));
          } else if (stage === 'similarity') {
            c.similarity = parseSimilarityJson(text, label).trials.map((t): TrialValue => ({ trial: trialIndexFromName(t.id), name: t.id, value: t.similarity }));
          } else {
            c.diversityRate = parseDiversityJson(text, label).diversityRate;
          }
        } catch (error) {
          throwIfStorageFault(error); // a forbidden or failing disk must not count as a team's zero
          warnings.push({ code: 'unreadable', message: `${(error as Error).message} — the file is treated as missing (its values count as 0)`, file: label, team, character });
        }
      }
    }
    const distinct = new Set(counts.values());
    if (distinct.size > 1) {
      const list = [...counts].map(([stage, n]) => `${stage} ${n}`).join(', ');
      warnings.push({
        code: 'file-count',
        message: `team ${team} has different numbers of files (${list}); the official script would stop and write no result for anyone — here each missing file counts as 0`,
        file: show(join(dir, team)),
        team,
      });
    }
    inputs.set(team, cells);
    progress.tick('score', 'ok', team);
  }
  progress.end('score');
  const input: ScoreInput = { teams, inputs, trials: options.trials ?? DEFAULT_TRIALS };
  warnings.push(...checkInputs(input, rules));
  return { input, warnings };
}

/** Word counts of the prompt files `<team>.<ext>` (prefers `.txt`), counted as the 2023 rules count. */
export function readPromptWords(promptsDir: string, teams: readonly string[]): { words: Map<string, number>; warnings: ScoreWarning[] } {
  const words = new Map<string, number>();
  const warnings: ScoreWarning[] = [];
  if (!existsSync(promptsDir)) throw new SbevalError('input', `prompts folder ${promptsDir} does not exist`);
  const files = listFiles(promptsDir);
  for (const team of teams) {
    const candidates = files.filter((f) => f === team || f.startsWith(`${team}.`)).sort((a, b) => Number(!a.endsWith('.txt')) - Number(!b.endsWith('.txt')) || compareNames(a, b));
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
    log.line(`character: ${w.character} - weight: ${plain(w.weight)} - weightStability: ${plain(w.weightStability)} - weightSimilarity: ${plain(w.weightSimilarity)} - weightDiversity: ${plain(w.weightDiversity)}`);
  }
  for (const t of result.trials) {
    log.line(`Calculating trial score - prompt: ${t.team} - character: ${t.character} - trial: ${t.trial} - stability: ${plain(t.stability)} - similarity: ${plain(t.similarity)} - trial_score: ${plain(t.trialScore)}`);
  }
  for (const c of result.characters) {
    log.line(`Calculating average stability and similarity - prompt: ${c.team} - character: ${c.character} - stability: ${plain(c.averageStability)} - similarity: ${plain(c.averageSimilarity)}`);
    log.line(`Calculating character score - prompt: ${c.team} - character: ${c.character} - character_score: ${plain(c.characterScore)}`);
  }
  for (const [team, score] of result.prompts) log.line(`Calculating prompt score - prompt: ${team} - prompt_score: ${plain(score)}`);
  log.line(`Calculating competition score - competition_score: ${plain(result.competitionScore)}`);
  for (const r of result.ranking) log.line(`Calculating normalized prompt score - prompt: ${r.team} - normalized_prompt_score: ${plain(r.normalizedPromptScore)} - rank: ${r.rank}`);
}

function eolName(eol: Eol): string {
  return eol === '\r\n' ? 'CRLF' : 'LF';
}

function rankingRows(result: ScoreResult): RankedRow[] {
  return result.ranking.map((r) => ({ team: r.team, normalizedPromptScore: plain(r.normalizedPromptScore), promptScore: plain(r.promptScore), rank: r.rank }));
}

function rankingTable(rows: readonly RankedRow[], roles: (team: string) => string, words?: ReadonlyMap<string, number>): ReportTable {
  const header = ['rank', 'team', 'normalizedPromptScore', 'promptScore', 'role'];
  if (words && words.size > 0) header.push('words');
  return {
    header,
    rows: rows.map((r) => {
      const row = [String(r.rank), r.team, r.normalizedPromptScore, r.promptScore, roles(r.team)];
      if (words && words.size > 0) row.push(words.get(r.team)?.toString() ?? '');
      return row;
    }),
  };
}

interface Written {
  files: string[];
  logFile: string;
}

/** Writes the four official files, the log and (optionally) the report of one competition folder. */
async function writeOfficial(dir: string, result: ScoreResult, warnings: readonly ScoreWarning[], eol: Eol): Promise<Written> {
  const out = resultDir(dir);
  const log = new StageLog(dir, 'result');
  logResult(log, result, warnings);
  const files: Array<[string, string]> = [
    ['constants.json', constantsJson(result)],
    ['trial_scores.csv', trialScoresCsv(result, eol)],
    ['character_scores.csv', characterScoresCsv(result, eol)],
    ['prompt_scores_ranks.csv', promptScoresRanksCsv(result, eol)],
  ];
  const written: string[] = [];
  for (const [name, text] of files) {
    const path = join(out, name);
    await writeFileAtomic(path, text);
    written.push(path);
  }
  return { files: written, logFile: log.file };
}

async function writeReport(dir: string, report: { markdown: string; html: string }): Promise<string[]> {
  const md = join(resultDir(dir), 'report.md');
  const html = join(resultDir(dir), 'report.html');
  await writeFileAtomic(md, report.markdown);
  await writeFileAtomic(html, report.html);
  return [md, html];
}

/** Detects model folders of a 2025 root: sub-folders whose own sub-folders are team folders. */
export function detectModelFolders(root: string): { models: string[]; teamLike: string[] } {
  const models: string[] = [];
  const teamLike: string[] = [];
  for (const name of listDirs(root, NON_TEAM_DIRS)) {
    const dir = join(root, name);
    if (isTeamDir(dir)) teamLike.push(name);
    else if (listDirs(dir, NON_TEAM_DIRS).some((team) => isTeamDir(join(dir, team)))) models.push(name);
  }
  return { models, teamLike };
}

function roleOf(options: ScoreStageOptions): (team: string) => string {
  const others = new Set(options.nonCompeting ?? []);
  return (team) => (team === options.baseline ? 'zero-shot baseline' : others.has(team) ? 'not competing' : 'team');
}

function checkNamedTeams(options: ScoreStageOptions, teams: readonly string[], warnings: ScoreWarning[]): void {
  for (const name of [...(options.baseline !== undefined ? [options.baseline] : []), ...(options.nonCompeting ?? [])]) {
    if (!teams.includes(name)) warnings.push({ code: 'missing-file', message: `"${name}" was named as a baseline/non-competing entry but there is no such team folder`, team: name });
  }
}

/** The gallery of one competition folder; unreadable images become warnings (and blanks in the gallery). */
async function pictures(dir: string, teams: readonly string[], options: ScoreStageOptions, rules: RuleSet, model: string | undefined, reportDir: string, root: string) {
  const fates = options.trialFates?.filter((f) => (f.model ?? '') === (model ?? ''));
  const { gallery, unreadable } = await collectGallery(dir, {
    teams,
    trials: options.trials ?? DEFAULT_TRIALS,
    prefix: options.prefix ?? functionPrefix(rules.name),
    reportDir,
    cacheRoot: root,
    ...(fates ? { fates } : {}),
  });
  const warnings: ScoreWarning[] = unreadable.map((u) => ({ code: 'unreadable', message: `image ${relative(root, u.path) || u.path} cannot be read (${u.message}): a blank in the report's gallery`, file: relative(root, u.path) || u.path }));
  return { gallery, warnings };
}

/** The settings the score used, then the caller's (the stages before it). */
function settingsTable(rules: RuleSet, eol: Eol, options: ScoreStageOptions): ReportFact[] {
  return [
    { name: 'rules', value: rules.name },
    { name: 'trials per letter (T)', value: String(options.trials ?? DEFAULT_TRIALS) },
    { name: 'CSV line ends', value: eolName(eol) },
    { name: 'team order', value: options.teamOrder === 'bytes' ? 'code points' : 'case-insensitive by name' },
    { name: 'zero-shot baseline', value: options.baseline ?? 'none' },
    { name: 'not competing', value: options.nonCompeting && options.nonCompeting.length > 0 ? options.nonCompeting.join(', ') : 'none' },
    { name: 'prompts (tie-break)', value: options.promptsDir ?? 'none' },
    ...(options.settings ?? []),
  ];
}

/** Scores one competition folder (2023, 2024, or a single 2025 model) and writes its result folder. */
async function scoreSingle(options: ScoreStageOptions, rules: RuleSet, eol: Eol): Promise<ScoreStageResult> {
  const root = options.root;
  const { input, warnings } = loadCompetition(root, rules, { ...options, root });
  if (input.teams.length === 0) throw new SbevalError('input', `no team folders in ${root}`, 'the root must hold one folder per team (<root>/<team>/stability/<C>.json ...)');
  const promptWords = options.promptsDir ? readPromptWords(options.promptsDir, input.teams) : undefined;
  if (promptWords) warnings.push(...promptWords.warnings);
  checkNamedTeams(options, input.teams, warnings);
  const ranking = promptWords ? { words: promptWords.words } : {};
  const result = scoreCompetition(input, rules, ranking);
  const winners = decideWinners(input.teams, result.prompts, {
    ...(options.baseline !== undefined ? { baseline: options.baseline } : {}),
    nonCompeting: options.nonCompeting ?? [],
    mustBeatBaseline: rules.mustBeatBaseline,
    ...(promptWords ? { words: promptWords.words } : {}),
  });
  const pics = await pictures(root, input.teams, options, rules, undefined, resultDir(root), root);
  warnings.push(...pics.warnings);
  const written = await writeOfficial(root, result, warnings, eol);
  const rows = rankingRows(result);
  const roles = roleOf(options);
  const report = buildReport({
    title: `sbeval score — ${rules.name} rules`,
    facts: [
      ...commonFacts(rules, input.teams.length, result.trialsPerCharacter, eol, options),
      `Competition score: ${plain(result.competitionScore)}`,
    ],
    ranking: rankingTable(rows, roles, promptWords?.words),
    rankingBars: rankingBars(rows.map((r) => ({ ...r, role: roles(r.team) })), winners.winners),
    winners,
    competitions: [{ label: '', result, input, gallery: pics.gallery }],
    warnings,
    settings: settingsTable(rules, eol, options),
    versions: softwareVersions(),
    sections: options.sections ?? [],
  });
  const reportFiles = await writeReport(root, report);
  return {
    rules: rules.name,
    resultDir: resultDir(root),
    files: [...written.files, ...reportFiles],
    warnings,
    winners,
    ranking: rows,
    competitionScore: plain(result.competitionScore),
    logFiles: [written.logFile],
  };
}

function commonFacts(rules: RuleSet, p: number, t: number, eol: Eol, options: ScoreStageOptions): string[] {
  return [
    `Rules: ${rules.name} (${rules.diversity ? 'weight = w_sta·w_sim·w_div, character score = div·Σtrial/T' : 'weight = w_sta·w_sim, character score = Σtrial/T'}; every division to 20 decimals HALF_UP)`,
    `Teams (P): ${p} — every team folder counts, baselines and teams without files included`,
    `Trials per character (T): ${t}; trials joined by the trial number in the file name / tag; a missing trial counts 0`,
    `CSV line ends: ${eolName(eol)}; team order: ${options.teamOrder === 'bytes' ? 'code points' : 'case-insensitive by name'}; equal scores ranked by ${options.promptsDir ? 'shorter prompt, then ' : ''}folder order`,
    `Zero-shot baseline: ${options.baseline ?? 'none given'}${options.nonCompeting && options.nonCompeting.length > 0 ? `; not competing: ${options.nonCompeting.join(', ')}` : ''}`,
  ];
}

function aggregateTable(agg: AggregateResult, labels: ReadonlyMap<string, string>, roles: (team: string) => string, words?: ReadonlyMap<string, number>): ReportTable {
  const header = ['rank', 'team', 'normalizedPromptScore', 'totalPromptScore', ...agg.models.map((m) => `promptScore ${labels.get(m) ?? m}`), 'role'];
  if (words && words.size > 0) header.push('words');
  return {
    header,
    rows: agg.ranking.map((r) => {
      const row = [String(r.rank), r.team, plain(r.normalized), plain(r.total), ...agg.models.map((m) => plain(r.perModel.get(m) ?? ZERO)), roles(r.team)];
      if (words && words.size > 0) row.push(words.get(r.team)?.toString() ?? '');
      return row;
    }),
  };
}

/** 2025: one competition per model folder, then the published aggregation. */
async function scoreModels(options: ScoreStageOptions, rules: RuleSet, eol: Eol): Promise<ScoreStageResult> {
  const root = options.root;
  const warnings: ScoreWarning[] = [];
  let folders: string[];
  const labels = new Map<string, string>();
  if (options.models && options.models.length > 0) {
    folders = options.models.map((model) => {
      const folder = modelFolderName(model);
      labels.set(folder, model);
      if (!existsSync(join(root, folder))) throw new SbevalError('input', `model folder ${join(root, folder)} (model "${model}") does not exist`, 'each model needs its own competition folder <root>/<model-folder>/<team>/...');
      return folder;
    });
  } else {
    const detected = detectModelFolders(root);
    folders = detected.models;
    for (const team of detected.teamLike) {
      warnings.push({ code: 'model', message: `${team} looks like a team folder, but 2025 results need a folder per model (<root>/<model>/<team>/...): ignored`, file: team });
    }
  }
  if (folders.length === 0) {
    const teams = listTeams(root).filter((t) => isTeamDir(join(root, t)));
    if (teams.length === 0) throw new SbevalError('input', `no model or team folders in ${root}`, 'for --rules 2025 use <root>/<model-folder>/<team>/{stability,similarity,diversity}/<C>.json');
    // One competition folder without a model level: scored as a single model.
    const single = await scoreSingle(options, rules, eol);
    single.warnings.unshift({ code: 'model', message: `no model folders found in ${root}: scored as one model (2025 sums prompt scores over model folders <root>/<model>/<team>/...)`, file: root });
    return single;
  }
  if (folders.length !== 3) warnings.push({ code: 'model', message: `${folders.length} model folder(s) (${folders.join(', ')}); the 2025 competition used 3 models`, file: root });

  const perModel: Array<{ model: string; result: ScoreResult }> = [];
  const competitions: ReportCompetition[] = [];
  const files: string[] = [];
  const logFiles: string[] = [];
  const allTeams = new Set<string>();
  for (const folder of folders) {
    const dir = join(root, folder);
    const loaded = loadCompetition(dir, rules, { ...options, root });
    if (loaded.input.teams.length === 0) {
      warnings.push({ code: 'model', message: `model folder ${folder} has no team folders: its scores are 0 for everyone`, file: folder });
    }
    const modelWarnings = loaded.warnings.map((w) => ({ ...w, message: `[${labels.get(folder) ?? folder}] ${w.message}` }));
    warnings.push(...modelWarnings);
    loaded.input.teams.forEach((t) => allTeams.add(t));
    if (loaded.input.teams.length === 0) continue;
    const result = scoreCompetition(loaded.input, rules);
    perModel.push({ model: folder, result });
    // One gallery per model folder, linked from its own report and (rebased) from the aggregate one.
    const modelPics = await pictures(dir, loaded.input.teams, options, rules, folder, resultDir(dir), root);
    loaded.warnings.push(...modelPics.warnings);
    warnings.push(...modelPics.warnings.map((w) => ({ ...w, message: `[${labels.get(folder) ?? folder}] ${w.message}` })));
    competitions.push({ label: labels.get(folder) ?? folder, result, input: loaded.input, gallery: rebaseGallery(modelPics.gallery, resultDir(dir), resultDir(root)) });
    const written = await writeOfficial(dir, result, loaded.warnings, eol);
    files.push(...written.files);
    logFiles.push(written.logFile);
    const modelWinners = decideWinners(result.teams, result.prompts, { mustBeatBaseline: false, ...(options.baseline !== undefined ? { baseline: options.baseline } : {}), nonCompeting: options.nonCompeting ?? [] });
    modelWinners.notes.unshift('Per-model view only: the 2025 winner is decided on the sum over models (see the aggregate report).');
    const modelRows = rankingRows(result);
    const modelReport = buildReport({
      title: `sbeval score — ${rules.name} rules — model ${labels.get(folder) ?? folder}`,
      facts: [...commonFacts(rules, result.teams.length, result.trialsPerCharacter, eol, options), `Competition score of this model: ${plain(result.competitionScore)} (normalised here by this model's own total, as the official script does per folder)`],
      ranking: rankingTable(modelRows, roleOf(options)),
      rankingBars: rankingBars(modelRows.map((r) => ({ ...r, role: roleOf(options)(r.team) })), modelWinners.winners),
      winners: modelWinners,
      competitions: [{ label: labels.get(folder) ?? folder, result, input: loaded.input, gallery: modelPics.gallery }],
      warnings: loaded.warnings,
      settings: settingsTable(rules, eol, options),
      versions: softwareVersions(),
    });
    files.push(...(await writeReport(dir, modelReport)));
  }
  const teams = orderTeams([...allTeams], options.teamOrder ?? 'name');
  const promptWords = options.promptsDir ? readPromptWords(options.promptsDir, teams) : undefined;
  if (promptWords) warnings.push(...promptWords.warnings);
  checkNamedTeams(options, teams, warnings);
  const agg = aggregateModels(perModel, promptWords ? { words: promptWords.words } : {});
  for (const { team, model } of agg.missing) {
    warnings.push({ code: 'missing-file', message: `team ${team} has no folder in model ${labels.get(model) ?? model}: its prompt score there counts 0`, file: join(model, team), team });
  }
  const totals = new Map(agg.ranking.map((r) => [r.team, r.total]));
  const winners = decideWinners(agg.teams, totals, {
    ...(options.baseline !== undefined ? { baseline: options.baseline } : {}),
    nonCompeting: options.nonCompeting ?? [],
    mustBeatBaseline: rules.mustBeatBaseline,
    ...(promptWords ? { words: promptWords.words } : {}),
  });

  // The aggregate result folder: the official rank file over totals, constants, and the detailed table.
  const out = resultDir(root);
  const log = new StageLog(root, 'result');
  for (const w of warnings) log.line(`Warning - ${w.code} - ${w.file ? `${w.file} - ` : ''}${w.message}`);
  for (const r of agg.ranking) {
    log.line(`Calculating total prompt score - prompt: ${r.team} - ${agg.models.map((m) => `${labels.get(m) ?? m}: ${plain(r.perModel.get(m) ?? ZERO)}`).join(' - ')} - total_prompt_score: ${plain(r.total)}`);
  }
  log.line(`Calculating competition score - competition_score: ${plain(agg.grandTotal)}`);
  for (const r of agg.ranking) log.line(`Calculating normalized prompt score - prompt: ${r.team} - normalized_prompt_score: ${plain(r.normalized)} - rank: ${r.rank}`);
  logFiles.push(log.file);
  const rows: RankedRow[] = agg.ranking.map((r) => ({ team: r.team, normalizedPromptScore: plain(r.normalized), promptScore: plain(r.total), rank: r.rank }));
  const constants = JSON.stringify({
    competitionScore: plain(agg.grandTotal),
    models: perModel.map(({ model, result }) => ({ model: labels.get(model) ?? model, folder: model, competitionScore: plain(result.competitionScore) })),
  });
  const detailHeader = ['team', 'rank', 'normalizedPromptScore', 'promptScore'];
  for (const m of agg.models) detailHeader.push(`promptScore:${labels.get(m) ?? m}`, `normalizedPromptScore:${labels.get(m) ?? m}`);
  detailHeader.push('words', 'role', 'winner');
  const detail = toCsv(
    detailHeader,
    agg.ranking.map((r) => {
      const row: Array<string | number> = [r.team, r.rank, plain(r.normalized), plain(r.total)];
      for (const m of agg.models) row.push(plain(r.perModel.get(m) ?? ZERO), plain(r.perModelNormalized.get(m) ?? ZERO));
      row.push(promptWords?.words.get(r.team) ?? '', roleOf(options)(r.team), winners.winners.includes(r.team) ? 'yes' : 'no');
      return row;
    }),
    eol,
  );
  const aggregateFiles: Array<[string, string]> = [
    ['constants.json', constants],
    ['prompt_scores_ranks.csv', toCsv(['team', 'normalizedPromptScore', 'promptScore', 'rank'], rows.map((r) => [r.team, r.normalizedPromptScore, r.promptScore, r.rank]), eol)],
    ['final_team_rankings.csv', detail],
  ];
  for (const [name, text] of aggregateFiles) {
    const path = join(out, name);
    await writeFileAtomic(path, text);
    files.push(path);
  }
  const report = buildReport({
    title: `sbeval score — ${rules.name} rules — ${perModel.length} models`,
    facts: [
      ...commonFacts(rules, teams.length, options.trials ?? DEFAULT_TRIALS, eol, options),
      `Models: ${perModel.map(({ model, result }) => `${labels.get(model) ?? model} (competition score ${plain(result.competitionScore)})`).join(', ')}`,
      `Total per program = Σ over models of its prompt score; normalised = total / ${plain(agg.grandTotal)} (sum over all programs, baselines included) · 100`,
    ],
    ranking: aggregateTable(agg, labels, roleOf(options), promptWords?.words),
    rankingBars: rankingBars(
      agg.ranking.map((r) => ({
        team: r.team,
        rank: r.rank,
        normalizedPromptScore: plain(r.normalized),
        role: roleOf(options)(r.team),
        // Each model's share of the normalised total: its prompt score / grand total · 100.
        segments: agg.models.map((m) => ({ name: labels.get(m) ?? m, value: agg.grandTotal.isZero() ? 0 : Number(plain((r.perModel.get(m) ?? ZERO).dividedBy(agg.grandTotal).times(100))) })),
      })),
      winners.winners,
    ),
    winners,
    competitions,
    warnings,
    settings: settingsTable(rules, eol, options),
    versions: softwareVersions(),
    sections: options.sections ?? [],
  });
  files.push(...(await writeReport(root, report)));
  return { rules: rules.name, resultDir: out, files, warnings, winners, ranking: rows, competitionScore: plain(agg.grandTotal), models: folders, logFiles };
}

/** Runs the score stage; see the module comment. */
export async function runScoreStage(options: ScoreStageOptions): Promise<ScoreStageResult> {
  const rules = RULE_SETS[options.rules];
  if (!rules) throw new SbevalError('config', `unknown rule set "${options.rules}"`, 'use 2023, 2024 or 2025');
  const trials = options.trials ?? DEFAULT_TRIALS;
  if (!Number.isSafeInteger(trials) || trials < 1) throw new SbevalError('config', `--trials must be a positive integer, got ${options.trials}`);
  if (!existsSync(options.root)) throw new SbevalError('input', `competition root ${options.root} does not exist`);
  const eol = options.eol ?? rules.defaultEol;
  return rules.multiModel ? scoreModels(options, rules, eol) : scoreSingle(options, rules, eol);
}
