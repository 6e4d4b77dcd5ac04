import { resolve } from 'node:path';
import { checkAnswer, listRaters } from './answers.js';
import { readSurvey, type SurveyFile, type SurveyItem } from './build.js';

/**
 * The survey's answers as every reader takes them — `survey collect`, the report's Judges section, the
 * agreement between judges and raters: one reading, one validation, so they never count differently. A rating
 * counts when its file is a rater's file (answers.ts) and its answer fits the survey as it is now
 * (the item exists and is still the level that was rated, the metric exists, the value is on its
 * scale); everything else is listed in `skipped` (an answer) or `warnings` (a whole file), never
 * silently dropped, never silently counted.
 */
export interface Rating {
  rater: string;
  item: SurveyItem;
  metric: string;
  value: number;
}

interface RaterComment {
  rater: string;
  item: SurveyItem;
  comment: string;
}

export interface SurveyRatings {
  survey: SurveyFile;
  /** The competition root the survey was built from. */
  root: string;
  raters: string[];
  ratings: Rating[];
  comments: RaterComment[];
  skipped: string[];
  warnings: string[];
}

export function loadSurveyRatings(outArg: string): SurveyRatings {
  const out = resolve(outArg);
  const survey = readSurvey(out);
  const items = new Map(survey.items.map((i) => [i.id, i]));
  const { raters, warnings } = listRaters(out);
  const ratings: Rating[] = [];
  const comments: RaterComment[] = [];
  const skipped: string[] = [];
  for (const r of raters) {
    for (const [itemId, answer] of Object.entries(r.answers)) {
      const problem = checkAnswer(survey, itemId, answer);
      if (problem) {
        skipped.push(`${r.rater} ${itemId}: ${problem}`);
        continue;
      }
      const item = items.get(itemId)!;
      for (const metric of survey.metrics) {
        const value = answer.values[metric.id];
        if (typeof value === 'number') ratings.push({ rater: r.rater, item, metric: metric.id, value });
      }
      if (answer.comment !== undefined && answer.comment.trim() !== '') comments.push({ rater: r.rater, item, comment: answer.comment });
    }
  }
  return { survey, root: resolve(out, survey.root), raters: raters.map((r) => r.rater), ratings, comments, skipped, warnings };
}

/** level key (`team/C/name`) → the mean rating of one metric. */
export function meanRatings(ratings: readonly Rating[], metric: string): Map<string, number> {
  const sums = new Map<string, { sum: number; n: number }>();
  for (const r of ratings) {
    if (r.metric !== metric) continue;
    const key = `${r.item.team}/${r.item.letter}/${r.item.name}`;
    const s = sums.get(key) ?? { sum: 0, n: 0 };
    s.sum += r.value;
    s.n += 1;
    sums.set(key, s);
  }
  return new Map([...sums].map(([k, s]) => [k, s.sum / s.n]));
}
