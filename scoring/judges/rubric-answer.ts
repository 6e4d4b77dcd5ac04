import { stripThinking } from './answer-text.js';
import { reachableScores, tierScore, TIERS, type Rubric, type Tier, type Verdicts } from './rubric.js';

/**
 * The rubric judge's answer: `<analysis>…</analysis>` then `<score>…</score>`, the number only
 * (reference/judges/rubric-judge.md). What counts as an answer:
 * - tags are matched case-insensitively, with white space inside them; text before, between and after
 *   the two blocks is ignored (judges preface and sign off);
 * - exactly one `<score>` value: several blocks must agree;
 * - the score block holds one number and nothing else (markdown emphasis and a trailing "/100" are
 *   tolerated), a whole multiple of 25 from 0 to 100 that this rubric can produce;
 * - an `<analysis>` block is required and must not be empty.
 * Anything else is a failure with its reason (the caller keeps the raw answer and may ask again).
 *
 * The analysis is asked to hold one line per item — `[50.2] met` / `[50.2] not met` — so the score
 * can be recomputed from the judge's own verdicts with the tier rules (`itemsScore`). A judge whose
 * stated score disagrees with its verdicts is recorded as inconsistent, not rejected: the score is
 * the judge's answer, as in the reference procedure.
 */
export type RubricAnswer =
  | {
      ok: true;
      score: number;
      analysis: string;
      /** Verdicts found in the analysis (undefined when not every item has one). */
      verdicts: Verdicts | undefined;
      /** The tier procedure applied to `verdicts`. */
      itemsScore: number | undefined;
      /** `score === itemsScore` when the verdicts were readable. */
      consistent: boolean | undefined;
    }
  | { ok: false; reason: string };

function blocks(text: string, tag: string): string[] {
  const re = new RegExp(`<\\s*${tag}\\s*>([\\s\\S]*?)<\\s*/\\s*${tag}\\s*>`, 'gi');
  return [...text.matchAll(re)].map((m) => m[1]!);
}

function hasOpening(text: string, tag: string): boolean {
  return new RegExp(`<\\s*${tag}\\s*>`, 'i').test(text);
}

/** The number of a score block, or why it is not one. */
export function readScoreValue(content: string): number | string {
  const cleaned = content.replace(/[*_`]/g, '').trim().replace(/\s*\/\s*100\s*$/, '').replace(/\s*(points?|pts)\.?$/i, '').replace(/\.$/, '').trim();
  if (cleaned === '') return 'the <score> block is empty';
  if (!/^[+-]?\d+(\.\d+)?$/.test(cleaned)) return `the <score> block is not a number alone: ${JSON.stringify(content.trim().slice(0, 80))}`;
  return Number(cleaned);
}

const VERDICT = /\[\s*(100|50|25)\s*[.\-:]\s*(\d+)\s*\]\s*[:\-–—]?\s*(not\s+met|unmet|met|yes|no)\b/gi;

/** `[100.1] met`, `[50.2] not met`, … → verdicts, when every item of the rubric has exactly one. */
export function readVerdicts(analysis: string, rubric: Rubric): Verdicts | undefined {
  const found = new Map<string, boolean[]>();
  for (const m of analysis.matchAll(VERDICT)) {
    const key = `${m[1]}.${m[2]}`;
    const word = m[3]!.toLowerCase().replace(/\s+/g, ' ');
    const met = word === 'met' || word === 'yes';
    found.set(key, [...(found.get(key) ?? []), met]);
  }
  const verdicts: Verdicts = { 100: [], 50: [], 25: [] };
  for (const tier of TIERS) {
    for (let i = 1; i <= rubric.levels[tier].length; i += 1) {
      const values = found.get(`${tier}.${i}`);
      if (!values || new Set(values).size !== 1) return undefined;
      verdicts[tier as Tier].push(values[0]!);
    }
  }
  return verdicts;
}

export function parseRubricAnswer(raw: string, rubric: Rubric): RubricAnswer {
  const text = stripThinking(raw);
  const scores = blocks(text, 'score');
  if (scores.length === 0) {
    return { ok: false, reason: hasOpening(text, 'score') ? 'the <score> tag is never closed' : 'no <score>…</score> in the answer' };
  }
  const values = scores.map(readScoreValue);
  const bad = values.find((v): v is string => typeof v === 'string');
  if (bad !== undefined) return { ok: false, reason: bad };
  const numbers = [...new Set(values as number[])];
  if (numbers.length > 1) return { ok: false, reason: `${scores.length} <score> blocks disagree (${numbers.join(', ')})` };
  const score = numbers[0]!;
  if (score < 0 || score > 100) return { ok: false, reason: `score ${score} is outside 0–100` };
  if (score % 25 !== 0) return { ok: false, reason: `score ${score} is not a multiple of 25` };
  const reachable = reachableScores(rubric);
  if (!reachable.includes(score)) return { ok: false, reason: `score ${score} cannot come from this rubric (possible: ${reachable.join(', ')})` };
  const analyses = blocks(text, 'analysis');
  if (analyses.length === 0) {
    return { ok: false, reason: hasOpening(text, 'analysis') ? 'the <analysis> tag is never closed' : 'no <analysis>…</analysis> in the answer' };
  }
  const analysis = analyses.join('\n\n').trim();
  if (analysis === '') return { ok: false, reason: 'the <analysis> block is empty' };
  const verdicts = readVerdicts(analysis, rubric);
  const itemsScore = verdicts ? tierScore(verdicts).score : undefined;
  return { ok: true, score, analysis, verdicts, itemsScore, consistent: itemsScore === undefined ? undefined : itemsScore === score };
}
