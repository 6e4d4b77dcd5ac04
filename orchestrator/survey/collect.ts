import { join, resolve } from 'node:path';
import { finitePairs, krippendorffAlpha, pearson, spearman } from '../../scoring/judges/agreement.js';
import { writeFileAtomic } from '../layout/atomic.js';
import { compareNames } from '../layout/competition.js';
import { orderPerspectives, readLevelScores } from '../judges/level-scores.js';
import { checkAnswer, listRaters } from './answers.js';
import { readSurvey } from './build.js';
import { csvText } from '../../scoring/formats/text-escape.js';

/**
 * `sbeval survey collect`: every rater's answers → aggregates and agreement.
 * - `aggregates.csv`: per team × letter × metric, the ratings' count, the items rated, mean and SD;
 * - `agreement.csv`: per metric, Krippendorff's alpha over the items (units) and raters (coders).
 *   The headline is the INTERVAL alpha: the survey reports means of the ratings and correlates them
 *   with continuous scores, which already treats the scale's points as equally spaced, and the
 *   agreement figure should rest on the same assumption as the numbers it vouches for. The ordinal
 *   alpha (ranks only, no spacing) is given beside it; a large gap between the two says the raters
 *   agree on the order of levels but use the scale differently.
 * - `correlations.csv`: per metric, the items' mean rating against the level's official stability
 *   and similarity and against the judges' scores of the same level (rubric; each ordering
 *   perspective), Spearman's ρ (headline: ratings are ordinal in origin and the judges' scores come
 *   in coarse steps) and Pearson's r, with the number of items;
 * - `ratings.csv` (one row per rating) and `results.json` (all of it).
 * Ratings that do not fit the survey (unknown item or metric, value off the scale) are skipped and
 * counted, never silently.
 */
export interface CollectResult {
  raters: number;
  ratings: number;
  skipped: string[];
  agreement: Array<{ metric: string; interval: number | null; ordinal: number | null; units: number; pairable: number }>;
  files: string[];
}

// RFC 4180 with formula-leading text (team names, raters' input) neutralized: scoring/formats/text-escape.ts.
const csv = (rows: Array<Array<string | number | null>>) => csvText(rows);
const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
const sd = (v: number[]) => (v.length < 2 ? null : Math.sqrt(v.reduce((a, b) => a + (b - mean(v)) ** 2, 0) / (v.length - 1)));

export async function collectSurvey(outArg: string): Promise<CollectResult> {
  const out = resolve(outArg);
  const survey = readSurvey(out);
  const root = resolve(out, survey.root);
  const raters = listRaters(out);
  const items = new Map(survey.items.map((i) => [i.id, i]));
  const rows: Array<{ rater: string; item: string; metric: string; value: number }> = [];
  const skipped: string[] = [];
  for (const r of raters) {
    for (const [itemId, answer] of Object.entries(r.answers)) {
      const problem = checkAnswer(survey, itemId, answer);
      if (problem) {
        skipped.push(`${r.rater} ${itemId}: ${problem}`);
        continue;
      }
      for (const metric of survey.metrics) {
        const value = answer.values[metric.id];
        if (typeof value === 'number') rows.push({ rater: r.rater, item: itemId, metric: metric.id, value });
      }
    }
  }

  const ratingsRows: Array<Array<string | number | null>> = [['rater', 'item', 'team', 'letter', 'trial', 'metric', 'value']];
  for (const row of rows) {
    const item = items.get(row.item)!;
    ratingsRows.push([row.rater, row.item, item.team, item.letter, item.trial, row.metric, row.value]);
  }

  const aggregates: Array<Array<string | number | null>> = [['team', 'letter', 'metric', 'ratings', 'items', 'mean', 'sd']];
  const cells = new Map<string, { team: string; letter: string; metric: string; values: number[]; items: Set<string> }>();
  for (const row of rows) {
    const item = items.get(row.item)!;
    const key = `${item.team}\u0000${item.letter}\u0000${row.metric}`;
    const c = cells.get(key) ?? { team: item.team, letter: item.letter, metric: row.metric, values: [], items: new Set() };
    c.values.push(row.value);
    c.items.add(row.item);
    cells.set(key, c);
  }
  const metricIndex = new Map(survey.metrics.map((m, i) => [m.id, i]));
  for (const c of [...cells.values()].sort((a, b) => compareNames(a.team, b.team) || compareNames(a.letter, b.letter) || metricIndex.get(a.metric)! - metricIndex.get(b.metric)!)) {
    aggregates.push([c.team, c.letter, c.metric, c.values.length, c.items.size, mean(c.values), sd(c.values)]);
  }

  const agreement: CollectResult['agreement'] = [];
  const agreementRows: Array<Array<string | number | null>> = [['metric', 'alpha_interval', 'alpha_ordinal', 'units', 'pairable_values', 'raters']];
  const scores = readLevelScores(root);
  const perspectives = orderPerspectives(root);
  const correlationRows: Array<Array<string | number | null>> = [['metric', 'against', 'items', 'spearman', 'pearson']];
  const correlations: Array<{ metric: string; against: string; items: number; spearman: number | null; pearson: number | null }> = [];
  for (const metric of survey.metrics) {
    const byItem = new Map<string, number[]>();
    for (const row of rows) if (row.metric === metric.id) byItem.set(row.item, [...(byItem.get(row.item) ?? []), row.value]);
    const units = [...byItem.values()];
    const interval = krippendorffAlpha(units, 'interval');
    const ordinal = krippendorffAlpha(units, 'ordinal');
    const ratersOf = new Set(rows.filter((r) => r.metric === metric.id).map((r) => r.rater)).size;
    agreement.push({ metric: metric.id, interval: interval.alpha, ordinal: ordinal.alpha, units: interval.units, pairable: interval.pairable });
    agreementRows.push([metric.id, interval.alpha, ordinal.alpha, interval.units, interval.pairable, ratersOf]);
    const against: Array<[string, (key: string) => number | undefined]> = [
      ['stability', (k) => scores.get(k)?.stability],
      ['similarity', (k) => scores.get(k)?.similarity],
      ['judge-rubric', (k) => scores.get(k)?.rubric],
      ...perspectives.map((p): [string, (key: string) => number | undefined] => [`judge-order:${p}`, (k) => scores.get(k)?.order[p]]),
    ];
    for (const [name, pick] of against) {
      const pairs = [...byItem].map(([itemId, values]) => {
        const item = items.get(itemId)!;
        return [mean(values), pick(`${item.team}/${item.letter}/${item.name}`)] as const;
      });
      const { x, y } = finitePairs(pairs);
      const s = x.length >= 3 ? spearman(x, y) : null;
      const p = x.length >= 3 ? pearson(x, y) : null;
      correlations.push({ metric: metric.id, against: name, items: x.length, spearman: s, pearson: p });
      correlationRows.push([metric.id, name, x.length, s, p]);
    }
  }

  const files = [join(out, 'ratings.csv'), join(out, 'aggregates.csv'), join(out, 'agreement.csv'), join(out, 'correlations.csv'), join(out, 'results.json')];
  await writeFileAtomic(files[0]!, csv(ratingsRows));
  await writeFileAtomic(files[1]!, csv(aggregates));
  await writeFileAtomic(files[2]!, csv(agreementRows));
  await writeFileAtomic(files[3]!, csv(correlationRows));
  await writeFileAtomic(
    files[4]!,
    `${JSON.stringify(
      {
        raters: raters.map((r) => r.rater),
        ratings: rows.length,
        skipped,
        alphaHeadline: 'interval',
        agreement,
        correlations,
        aggregates: aggregates.slice(1).map(([team, letter, metric, ratings, itemsRated, m, s]) => ({ team, letter, metric, ratings, items: itemsRated, mean: m, sd: s })),
      },
      null,
      2,
    )}\n`,
  );
  return { raters: raters.length, ratings: rows.length, skipped, agreement, files };
}
