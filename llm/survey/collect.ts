import { join, resolve } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { writeFileAtomic } from '../../orchestrator/layout/atomic.js';
import { compareNames } from '../../orchestrator/layout/competition.js';
import { csvText } from '../../scoring/formats/text-escape.js';
import { readLevelScores } from '../judges/level-scores.js';
import { type JudgeResult, loadJudgeResults, scoredSource } from '../judges/results.js';
import { finitePairs, intervalAlpha, krippendorffAlpha, pearson, spearman } from '../judges/scoring/agreement.js';
import { bootstrapInterval, type Interval } from '../judges/scoring/bootstrap.js';
import { agreementTable, type PairAgreement } from '../judges/scoring/judge-agreement.js';
import { loadSurveyRatings, meanRatings, type Rating, type SurveyRatings } from './ratings.js';

/**
 * `sbeval survey collect`: every rater's answers (read and checked by ratings.ts, as the report reads
 * them) → aggregates and agreement.
 * - `aggregates.csv`: per team × letter × metric, the ratings' count, the items rated, mean and SD;
 * - `agreement.csv`: per metric, Krippendorff's alpha over the items (units) and raters (coders),
 *   with a bootstrap 95 % interval (items resampled, seeded with the survey's seed). The headline is
 *   the INTERVAL alpha: the survey reports means of the ratings and correlates them with continuous
 *   scores, which already treats the scale's points as equally spaced, and the agreement figure
 *   should rest on the same assumption as the numbers it vouches for. The ordinal alpha (ranks only,
 *   no spacing) is given beside it; a large gap between the two says the raters agree on the order of
 *   levels but use the scale differently.
 * - `judge-agreement.csv`: every LLM judge in the folder against every metric (and against each
 *   other): interval α on one scale, Spearman's ρ across scales, on the levels both scored (judge-agreement.ts) with its interval;
 * - `correlations.csv`: per metric, the items' mean rating against the level's official stability
 *   and similarity and against each judge's score of the same level, Spearman's ρ (headline) and
 *   Pearson's r, with the number of items;
 * - `ratings.csv` (one row per rating), `comments.csv` (one row per comment) and `results.json`.
 * Ratings that do not fit the survey, and files that are not a rater's answers, are skipped and
 * listed, never silently.
 */
interface CollectResult {
  raters: number;
  ratings: number;
  comments: number;
  skipped: string[];
  warnings: string[];
  agreement: Array<{
    metric: string;
    interval: number | null;
    low: number | null;
    high: number | null;
    ordinal: number | null;
    units: number;
    pairable: number;
  }>;
  judges: PairAgreement[];
  files: string[];
}

type Row = Array<string | number | null>;
const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
const sd = (v: number[]) => (v.length < 2 ? null : Math.sqrt(v.reduce((a, b) => a + (b - mean(v)) ** 2, 0) / (v.length - 1)));
const bound = (i: Interval | null, side: 'low' | 'high') => i?.[side] ?? null;

function aggregateRows(data: SurveyRatings): Row[] {
  const rows: Row[] = [['team', 'letter', 'metric', 'ratings', 'items', 'mean', 'sd']];
  const cells = new Map<string, { team: string; letter: string; metric: string; values: number[]; items: Set<string> }>();
  for (const r of data.ratings) {
    const key = `${r.item.team}\u0000${r.item.letter}\u0000${r.metric}`;
    const c = cells.get(key) ?? { team: r.item.team, letter: r.item.letter, metric: r.metric, values: [], items: new Set() };
    c.values.push(r.value);
    c.items.add(r.item.id);
    cells.set(key, c);
  }
  const metricIndex = new Map(data.survey.metrics.map((m, i) => [m.id, i]));
  for (const c of [...cells.values()].sort(
    (a, b) => compareNames(a.team, b.team) || compareNames(a.letter, b.letter) || metricIndex.get(a.metric)! - metricIndex.get(b.metric)!,
  )) {
    rows.push([c.team, c.letter, c.metric, c.values.length, c.items.size, mean(c.values), sd(c.values)]);
  }
  return rows;
}

function unitsOf(ratings: readonly Rating[], metric: string): number[][] {
  const byItem = new Map<string, number[]>();
  for (const r of ratings) {
    if (r.metric !== metric) continue;
    const list = byItem.get(r.item.id) ?? [];
    list.push(r.value);
    byItem.set(r.item.id, list);
  }
  return [...byItem.values()];
}

/** Answers that are there but none readable is not "0 raters": it is a survey whose answers were lost to the reader. */
function checkSomeReadable(out: string, data: SurveyRatings): void {
  if (data.ratings.length === 0 && data.warnings.length > 0) {
    throw new SbevalError(
      'survey',
      `no rating could be read from ${join(out, 'answers')}: ${data.warnings.length} entr${data.warnings.length === 1 ? 'y' : 'ies'} skipped, the first: ${data.warnings[0]!}`,
      'answers are answers/<rater>/<item>.json as `sbeval survey serve` writes them',
    );
  }
}

/** Per metric, the raters' Krippendorff's alpha (interval, with its bootstrap interval, and ordinal). */
function raterAgreement(data: SurveyRatings): { agreement: CollectResult['agreement']; rows: Row[] } {
  const { survey, ratings } = data;
  const agreement: CollectResult['agreement'] = [];
  const rows: Row[] = [['metric', 'alpha_interval', 'alpha_low', 'alpha_high', 'alpha_ordinal', 'units', 'pairable_values', 'raters']];
  for (const metric of survey.metrics) {
    const units = unitsOf(ratings, metric.id);
    const interval = krippendorffAlpha(units, 'interval');
    const ordinal = krippendorffAlpha(units, 'ordinal');
    const ci = bootstrapInterval(units.length, (s) => intervalAlpha(s.map((i) => units[i]!)), { seed: survey.seed });
    agreement.push({
      metric: metric.id,
      interval: interval.alpha,
      low: bound(ci, 'low'),
      high: bound(ci, 'high'),
      ordinal: ordinal.alpha,
      units: interval.units,
      pairable: interval.pairable,
    });
    rows.push([
      metric.id,
      interval.alpha,
      bound(ci, 'low'),
      bound(ci, 'high'),
      ordinal.alpha,
      interval.units,
      interval.pairable,
      new Set(ratings.filter((r) => r.metric === metric.id).map((r) => r.rater)).size,
    ]);
  }
  return { agreement, rows };
}

type SurveySource = { name: string; scale: { min: number; max: number }; scores: Map<string, number> };
type Correlation = { metric: string; against: string; items: number; spearman: number | null; pearson: number | null };

/** Each metric's mean ratings per level, as a scored source; metrics nobody rated are left out. */
function surveySources(data: SurveyRatings): SurveySource[] {
  return data.survey.metrics
    .map((m) => ({ name: `survey:${m.id}`, scale: { min: m.scale.min, max: m.scale.max }, scores: meanRatings(data.ratings, m.id) }))
    .filter((s) => s.scores.size > 0);
}

function judgeAgreementRows(judgeAgreement: readonly PairAgreement[]): Row[] {
  return [
    ['a', 'b', 'levels', 'statistic', 'value', 'low', 'high'],
    ...judgeAgreement.map((a) => [a.a, a.b, a.units, a.statistic, a.value, bound(a.interval, 'low'), bound(a.interval, 'high')]),
  ];
}

/** Each metric's mean ratings against the official stability and similarity and against each judge's score. */
function correlationsOf(root: string, sources: readonly SurveySource[], judges: readonly JudgeResult[]): { correlations: Correlation[]; rows: Row[] } {
  const scores = readLevelScores(root);
  const against: Array<[string, (key: string) => number | undefined]> = [
    ['stability', (k) => scores.get(k)?.stability],
    ['similarity', (k) => scores.get(k)?.similarity],
    ...judges.map((j): [string, (key: string) => number | undefined] => [j.name, (k) => j.levels.get(k)?.score]),
  ];
  const rows: Row[] = [['metric', 'against', 'items', 'spearman', 'pearson']];
  const correlations: Correlation[] = [];
  for (const source of sources) {
    for (const [name, pick] of against) {
      const { x, y } = finitePairs([...source.scores].map(([k, v]) => [v, pick(k)] as const));
      const s = x.length >= 3 ? spearman(x, y) : null;
      const p = x.length >= 3 ? pearson(x, y) : null;
      const metric = source.name.slice('survey:'.length);
      correlations.push({ metric, against: name, items: x.length, spearman: s, pearson: p });
      rows.push([metric, name, x.length, s, p]);
    }
  }
  return { correlations, rows };
}

function ratingRows(data: SurveyRatings): Row[] {
  return [
    ['rater', 'item', 'team', 'letter', 'trial', 'metric', 'value'],
    ...data.ratings.map((r) => [r.rater, r.item.id, r.item.team, r.item.letter, r.item.trial, r.metric, r.value]),
  ];
}

function commentRows(data: SurveyRatings): Row[] {
  return [
    ['rater', 'item', 'team', 'letter', 'trial', 'comment'],
    ...data.comments.map((c) => [c.rater, c.item.id, c.item.team, c.item.letter, c.item.trial, c.comment]),
  ];
}

/** The content of `results.json`: everything the CSV files hold, in one document. */
function resultsDocument(
  data: SurveyRatings,
  warnings: string[],
  agreement: CollectResult['agreement'],
  judgeAgreement: PairAgreement[],
  correlations: Correlation[],
  aggregates: Row[],
) {
  return {
    raters: data.raters,
    ratings: data.ratings.length,
    skipped: data.skipped,
    warnings,
    alphaHeadline: 'interval',
    agreement,
    judgeAgreement,
    correlations,
    comments: data.comments.map((c) => ({
      rater: c.rater,
      item: c.item.id,
      team: c.item.team,
      letter: c.item.letter,
      trial: c.item.trial,
      comment: c.comment,
    })),
    aggregates: aggregates
      .slice(1)
      .map(([team, letter, metric, count, itemsRated, m, s]) => ({ team, letter, metric, ratings: count, items: itemsRated, mean: m, sd: s })),
  };
}

export async function collectSurvey(outArg: string): Promise<CollectResult> {
  const out = resolve(outArg);
  const data = loadSurveyRatings(out);
  const { survey, ratings } = data;
  checkSomeReadable(out, data);
  const { agreement, rows: agreementRows } = raterAgreement(data);

  const { judges, warnings: judgeWarnings } = loadJudgeResults(data.root, survey.seed);
  const sources = surveySources(data);
  const judgeAgreement = agreementTable(judges.map(scoredSource), sources, survey.seed);
  const { correlations, rows: correlationRows } = correlationsOf(data.root, sources, judges);

  const aggregates = aggregateRows(data);
  const names = ['ratings.csv', 'comments.csv', 'aggregates.csv', 'agreement.csv', 'judge-agreement.csv', 'correlations.csv'];
  const contents = [ratingRows(data), commentRows(data), aggregates, agreementRows, judgeAgreementRows(judgeAgreement), correlationRows];
  const files = names.map((n) => join(out, n));
  for (const [i, rows] of contents.entries()) await writeFileAtomic(files[i]!, csvText(rows));
  const warnings = [...data.warnings, ...judgeWarnings];
  const results = resultsDocument(data, warnings, agreement, judgeAgreement, correlations, aggregates);
  files.push(join(out, 'results.json'));
  await writeFileAtomic(files.at(-1)!, `${JSON.stringify(results, null, 2)}\n`);
  return {
    raters: data.raters.length,
    ratings: ratings.length,
    comments: data.comments.length,
    skipped: data.skipped,
    warnings,
    agreement,
    judges: judgeAgreement,
    files,
  };
}
