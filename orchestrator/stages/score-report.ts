import { relative } from 'node:path';
import {
  buildReport,
  type ReportCompetition,
  type ReportFact,
  type ReportInput,
  type ReportSection,
  type ReportTable,
  rankingBars,
} from '../../scoring/report/build.js';
import { averageKey, type Gallery } from '../../scoring/report/index.js';
import type { AggregateResult } from '../../scoring/score/aggregate.js';
import type { ScoreWarning } from '../../scoring/score/checks.js';
import { plain, ZERO } from '../../scoring/score/decimal.js';
import type { Eol } from '../../scoring/score/outputs.js';
import { DEFAULT_TRIALS, type RuleSet } from '../../scoring/score/rules.js';
import type { ScoreResult } from '../../scoring/score/types.js';
import type { WinnerDecision } from '../../scoring/score/winner.js';
import { functionPrefix } from '../config/settings.js';
import { resultDir } from '../layout/competition.js';
import type { TrialFate } from '../report/fates.js';
import { collectGallery, rebaseGallery } from '../report/gallery.js';
import { softwareVersions } from '../report/versions.js';
import { writeScoreFile } from '../result/files.js';
import { type RankedRow, rankingRows, roleOf, type Scored, type ScoredModel, type ScoreStageOptions } from './score.js';
import { withUncertainty } from './uncertainty.js';

/**
 * The reports of a scored root, `result/report.md` and `result/report.html` (and one per model folder
 * in the 2025 layout), built from what scoring returned (score.ts `Scored`) plus what the caller adds:
 * sections (the run's failure accounting, the judges), the trial fates and settings of the stages
 * before scoring, and warnings (the run's own). Built last, so the report lists every warning the
 * command printed. The content (gallery, charts, settings, versions) is scoring/report's.
 */
interface ReportExtras {
  sections?: readonly ReportSection[];
  /** Warnings from outside scoring (e.g. the run's stages), listed after scoring's own. */
  warnings?: readonly ScoreWarning[];
  /** Every trial's fate from the run's accounting, for the gallery (default: read from the files). */
  trialFates?: ReadonlyArray<TrialFate & { model?: string }>;
  /** Settings of the stages before scoring (engine, model, …). */
  settings?: readonly ReportFact[];
  /** The competition's letters (default: the score options'); the per-letter parts show these and the letters with data. */
  letters?: readonly string[];
}

interface WrittenReports {
  files: string[];
  /** The reports' own warnings (images that cannot be read), as the top-level report lists them. */
  warnings: ScoreWarning[];
}

function eolName(eol: Eol): string {
  return eol === '\r\n' ? 'CRLF' : 'LF';
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

/**
 * The ranking and the winner as the command summaries print them (`score`, and last in `run`'s), with
 * the similarity model the scores came from as the report names it (`model`, when known).
 */
export function rankingLines(rows: readonly RankedRow[], winners: WinnerDecision, model?: string): string[] {
  const lines = rows.map((r) => `  ${String(r.rank).padStart(2)}. ${r.team}  ${r.normalizedPromptScore}`);
  lines.push(winners.winners.length === 0 ? '  no winner' : `  ${winners.winners.length > 1 ? 'co-winners' : 'winner'}: ${winners.winners.join(', ')}`);
  for (const note of winners.notes) lines.push(`  ${note}`);
  if (model !== undefined) lines.push(`  similarity model: ${model}`);
  return lines;
}

function commonFacts(rules: RuleSet, p: number, t: number, eol: Eol, options: ScoreStageOptions): string[] {
  const published =
    rules.publishedEol === eol
      ? 'as published'
      : `the published ${rules.name} files are ${eolName(rules.publishedEol)}: --eol ${eolName(rules.publishedEol).toLowerCase()}`;
  return [
    `Rules: ${rules.name} (${rules.diversity ? 'weight = w_sta·w_sim·w_div, character score = div·Σtrial/T' : 'weight = w_sta·w_sim, character score = Σtrial/T'}; every division to 20 decimals HALF_UP)`,
    `Teams (P): ${p} — every team folder counts, baselines and teams without files included`,
    `Trials per character (T): ${t}; trials joined by the trial number in the file name / tag; a missing trial counts 0`,
    `CSV line ends: ${eolName(eol)} (${published}); team order: ${options.teamOrder === 'bytes' ? 'code points' : 'case-insensitive by name'}; equal scores ranked by ${options.promptsDir ? 'shorter prompt, then ' : ''}folder order`,
    `Zero-shot baseline: ${options.baseline ?? 'none given'}${options.nonCompeting && options.nonCompeting.length > 0 ? `; not competing: ${options.nonCompeting.join(', ')}` : ''}`,
  ];
}

/** The settings the score used, then the caller's (the stages before it). */
function settingsTable(scored: Scored, extras: ReportExtras): ReportFact[] {
  const { rules, eol, options } = scored;
  return [
    { name: 'rules', value: rules.name },
    { name: 'trials per letter (T)', value: String(options.trials ?? DEFAULT_TRIALS) },
    { name: 'CSV line ends', value: eolName(eol) },
    { name: 'team order', value: options.teamOrder === 'bytes' ? 'code points' : 'case-insensitive by name' },
    { name: 'zero-shot baseline', value: options.baseline ?? 'none' },
    { name: 'not competing', value: options.nonCompeting && options.nonCompeting.length > 0 ? options.nonCompeting.join(', ') : 'none' },
    { name: 'prompts (tie-break)', value: options.promptsDir ?? 'none' },
    ...(extras.settings ?? options.settings ?? []),
  ];
}

/** The scoring's per-letter averages (the official Σ/T ones) for the gallery's rows. */
function averagesOf(result: ScoreResult): Map<string, { stability: number; similarity: number }> {
  return new Map(
    result.characters.map((c) => [
      averageKey(c.team, c.character),
      { stability: Number(plain(c.averageStability)), similarity: Number(plain(c.averageSimilarity)) },
    ]),
  );
}

/** The gallery of one competition folder; unreadable images become warnings (and blanks in the gallery). */
async function pictures(
  scored: Scored,
  extras: ReportExtras,
  dir: string,
  teams: readonly string[],
  model: string | undefined,
  result: ScoreResult,
): Promise<{ gallery: Gallery; warnings: ScoreWarning[] }> {
  const { options, rules } = scored;
  const root = options.root;
  const fates = (extras.trialFates ?? options.trialFates)?.filter((f) => (f.model ?? '') === (model ?? ''));
  const { gallery, unreadable } = await collectGallery(dir, {
    teams,
    trials: options.trials ?? DEFAULT_TRIALS,
    prefix: options.prefix ?? functionPrefix(rules.name),
    reportDir: resultDir(dir),
    cacheRoot: root,
    ...(fates ? { fates } : {}),
  });
  const warnings: ScoreWarning[] = unreadable.map((u) => ({
    code: 'unreadable',
    message: `image ${relative(root, u.path) || u.path} cannot be read (${u.message}): a blank in the report's gallery`,
    file: relative(root, u.path) || u.path,
  }));
  return { gallery: { ...gallery, averages: averagesOf(result) }, warnings };
}

function aggregateTable(
  agg: AggregateResult,
  models: readonly ScoredModel[],
  roles: (team: string) => string,
  words?: ReadonlyMap<string, number>,
): ReportTable {
  const labelOf = (folder: string) => models.find((m) => m.folder === folder)?.label ?? folder;
  const header = ['rank', 'team', 'normalizedPromptScore', 'totalPromptScore', ...agg.models.map((m) => `promptScore ${labelOf(m)}`), 'role'];
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

/** Each model's share of the normalised total in the ranking chart: its prompt score / grand total · 100. */
function aggregateBars(agg: AggregateResult, models: readonly ScoredModel[], roles: (team: string) => string, winners: readonly string[]) {
  const labelOf = (folder: string) => models.find((m) => m.folder === folder)?.label ?? folder;
  return rankingBars(
    agg.ranking.map((r) => ({
      team: r.team,
      rank: r.rank,
      normalizedPromptScore: plain(r.normalized),
      role: roles(r.team),
      segments: agg.models.map((m) => ({
        name: labelOf(m),
        value: agg.grandTotal.isZero() ? 0 : Number(plain((r.perModel.get(m) ?? ZERO).dividedBy(agg.grandTotal).times(100))),
      })),
    })),
    winners,
  );
}

/** The top-level report's input: a single competition, or the 2025 aggregate over model folders. */
function topReportInput(scored: Scored, extras: ReportExtras, competitions: ReportCompetition[], warnings: readonly ScoreWarning[]): ReportInput {
  const { rules, eol, options } = scored;
  const roles = roleOf(options);
  const common = {
    winners: scored.winners,
    competitions,
    warnings,
    settings: settingsTable(scored, extras),
    versions: softwareVersions(),
    sections: extras.sections ?? [],
  };
  if (scored.single) {
    const result = scored.single;
    return {
      title: `sbeval score — ${rules.name} rules`,
      facts: [
        ...commonFacts(rules, scored.teams.length, result.trialsPerCharacter, eol, options),
        ...scored.notes,
        `Competition score: ${plain(result.competitionScore)}`,
      ],
      ranking: rankingTable(scored.ranking, roles, scored.promptWords),
      rankingBars: rankingBars(
        scored.ranking.map((r) => ({ ...r, role: roles(r.team) })),
        scored.winners.winners,
      ),
      ...common,
    };
  }
  const models = scored.models ?? [];
  const agg = scored.aggregate as AggregateResult;
  return {
    title: `sbeval score — ${rules.name} rules — ${models.length} models`,
    facts: [
      ...commonFacts(rules, scored.teams.length, options.trials ?? DEFAULT_TRIALS, eol, options),
      `Models: ${models.map((m) => `${m.label} (competition score ${plain(m.result.competitionScore)})`).join(', ')}`,
      `Total per program = Σ over models of its prompt score; normalised = total / ${plain(agg.grandTotal)} (sum over all programs, baselines included) · 100`,
      ...scored.notes,
    ],
    ranking: aggregateTable(agg, models, roles, scored.promptWords),
    rankingBars: aggregateBars(agg, models, roles, scored.winners.winners),
    ...common,
  };
}

/** One model folder's own report (2025): its ranking by its own total, its own warnings. */
function modelReportInput(scored: Scored, extras: ReportExtras, model: ScoredModel, gallery: Gallery, warnings: readonly ScoreWarning[]): ReportInput {
  const { rules, eol, options } = scored;
  const rows = rankingRows(model.result);
  const roles = roleOf(options);
  return {
    title: `sbeval score — ${rules.name} rules — model ${model.label}`,
    facts: [
      ...commonFacts(rules, model.result.teams.length, model.result.trialsPerCharacter, eol, options),
      `Competition score of this model: ${plain(model.result.competitionScore)} (normalised here by this model's own total, as the official script does per folder)`,
    ],
    ranking: rankingTable(rows, roles),
    rankingBars: rankingBars(
      rows.map((r) => ({ ...r, role: roles(r.team) })),
      model.winners.winners,
    ),
    winners: model.winners,
    competitions: [{ label: model.label, result: model.result, input: model.input, gallery, ...lettersOf(scored, extras) }],
    warnings,
    settings: settingsTable(scored, extras),
    versions: softwareVersions(),
  };
}

/** The competition's letters for the report's per-letter parts, when the caller knows them. */
function lettersOf(scored: Scored, extras: ReportExtras): { letters?: readonly string[] } {
  const letters = extras.letters ?? scored.options.letters;
  return letters ? { letters } : {};
}

async function writeReport(dir: string, input: ReportInput): Promise<string[]> {
  const report = buildReport(input);
  return [await writeScoreFile(dir, 'report.md', report.markdown), await writeScoreFile(dir, 'report.html', report.html)];
}

/** Writes every report of a scored root (per model folder first, then the top level); returns the files and the reports' own warnings. */
export async function writeScoreReports(scored: Scored, extras: ReportExtras = {}): Promise<WrittenReports> {
  const files: string[] = [];
  const own: ScoreWarning[] = [];
  const competitions: ReportCompetition[] = [];
  if (scored.single) {
    const pics = await pictures(scored, extras, scored.dir, scored.teams, undefined, scored.single);
    own.push(...pics.warnings);
    competitions.push({
      label: '',
      result: scored.single,
      ...(scored.input ? { input: scored.input } : {}),
      gallery: pics.gallery,
      ...lettersOf(scored, extras),
    });
  }
  for (const model of scored.models ?? []) {
    // One gallery per model folder, linked from its own report and (rebased) from the aggregate one.
    const pics = await pictures(scored, extras, model.dir, model.result.teams, model.folder, model.result);
    own.push(...pics.warnings.map((w) => ({ ...w, message: `[${model.label}] ${w.message}` })));
    // Its own ranking's intervals (from the same resamples as the aggregate's), or why there are none.
    const uncertainty = scored.uncertainty.perModel?.find((m) => m.key === model.folder) ?? { message: scored.uncertainty.message };
    files.push(
      ...(await writeReport(
        model.dir,
        withUncertainty(modelReportInput(scored, extras, model, pics.gallery, [...model.warnings, ...pics.warnings]), uncertainty),
      )),
    );
    competitions.push({
      label: model.label,
      result: model.result,
      input: model.input,
      gallery: rebaseGallery(pics.gallery, resultDir(model.dir), resultDir(scored.dir)),
      ...lettersOf(scored, extras),
    });
  }
  const top = withUncertainty(topReportInput(scored, extras, competitions, [...scored.warnings, ...own, ...(extras.warnings ?? [])]), scored.uncertainty);
  files.push(...(await writeReport(scored.dir, top)));
  return { files, warnings: own };
}
