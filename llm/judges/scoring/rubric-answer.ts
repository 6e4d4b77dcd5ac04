import { hasWordAt, quote, skipSpace, stripThinking } from './answer-text.js';
import { type LowTier, type Rubric, reachableScores, TIERS, type Tier, tierScore, type Verdicts } from './rubric.js';

/**
 * The rubric judge's answer: `<analysis>…</analysis>` then `<score>…</score>`, the number only
 * (reference/judges/rubric-judge.md). What counts as an answer:
 * - tags are matched case-insensitively, with white space inside them; text before, between and after
 *   the two blocks is ignored (judges preface and sign off);
 * - exactly one `<score>` value: several blocks must agree;
 * - the score block holds one number and nothing else (markdown emphasis and a trailing "/100" are
 *   tolerated), a whole number from 0 to 100 that this rubric can produce (with the default 25-point
 *   low tier: a multiple of 25);
 * - an `<analysis>` block is required and must not be empty.
 * Anything else is a failure with its reason (the caller keeps the raw answer and may ask again).
 *
 * The analysis is asked to hold one line per item — `[50.2] met` / `[50.2] not met` — so the score
 * can be recomputed from the judge's own verdicts with the tier rules (`itemsScore`). A judge whose
 * stated score disagrees with its verdicts is recorded as inconsistent, not rejected: the score is
 * the judge's answer, as in the reference procedure.
 *
 * Every reader here is one forward pass over the answer (answer-text.ts says why).
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

/**
 * The tag `< tag >` or `< / tag >` at `i` (a `<`), case-insensitive, white space inside allowed: where
 * it ends, negated for a closing tag; 0 when there is none.
 */
function tagAt(text: string, i: number, tag: string): number {
  let j = skipSpace(text, i + 1);
  const closing = text.charCodeAt(j) === 0x2f;
  if (closing) j = skipSpace(text, j + 1);
  if (!hasWordAt(text, j, tag)) return 0;
  j = skipSpace(text, j + tag.length);
  if (text.charCodeAt(j) !== 0x3e) return 0;
  return closing ? -(j + 1) : j + 1;
}

/** Contents of every `<tag>…</tag>` (an opening pairs with the next closing tag), and whether any opening tag exists. */
function blocks(text: string, tag: string): { contents: string[]; opened: boolean } {
  const contents: string[] = [];
  let opened = false;
  let openEnd = -1;
  for (let i = text.indexOf('<'); i >= 0; i = text.indexOf('<', i + 1)) {
    const end = tagAt(text, i, tag);
    if (end > 0) {
      opened = true;
      if (openEnd < 0) openEnd = end;
    } else if (end < 0 && openEnd >= 0) {
      contents.push(text.slice(openEnd, i));
      openEnd = -1;
    }
  }
  return { contents, opened };
}

/** Longer than any number with its decorations: read no further. */
const MAX_SCORE_TEXT = 200;

/** The number of a score block, or why it is not one. */
export function readScoreValue(content: string): number | string {
  const trimmed = content.trim();
  if (trimmed.length > MAX_SCORE_TEXT) return `the <score> block is not a number alone: ${JSON.stringify(quote(trimmed, 80))}`;
  let cleaned = trimmed.replace(/[*_`]/g, '').trim();
  const slash = /\/\s*100$/.exec(cleaned);
  if (slash) cleaned = cleaned.slice(0, slash.index).trim();
  cleaned = cleaned
    .replace(/(points?|pts)\.?$/i, '')
    .trim()
    .replace(/\.$/, '')
    .trim();
  if (cleaned === '') return 'the <score> block is empty';
  if (!/^[+-]?\d+(\.\d+)?$/.test(cleaned)) return `the <score> block is not a number alone: ${JSON.stringify(quote(trimmed, 80))}`;
  return Number(cleaned);
}

const VERDICT_WORDS: Array<[string[], boolean]> = [
  [['not', 'met'], false],
  [['unmet'], false],
  [['met'], true],
  [['yes'], true],
  [['no'], false],
];
/** `.`, `-`, `:` between the level and the item number. */
const isSeparator = (c: number) => c === 0x2e || c === 0x2d || c === 0x3a;
/** `:`, `-`, `–`, `—` before the verdict. */
const isDash = (c: number) => c === 0x3a || c === 0x2d || c === 0x2013 || c === 0x2014;
const isDigit = (c: number) => c >= 48 && c <= 57;
const isWordCode = (c: number) => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

/** The whole number at `i` (digits only) and where it ends; value -1 when there is none. */
function readNumber(text: string, i: number): { value: number; end: number } {
  let j = i;
  let value = 0;
  while (j < text.length && isDigit(text.charCodeAt(j))) {
    value = value * 10 + (text.charCodeAt(j) - 48);
    j += 1;
  }
  return { value: j === i ? -1 : value, end: j };
}

/** `not met` with any white space between the words, at `i`; the verdict and where it ends. */
function readVerdictWord(text: string, i: number): { met: boolean; end: number } | undefined {
  const first = text.charCodeAt(i) | 0x20;
  for (const [parts, met] of VERDICT_WORDS) {
    if (parts[0]!.charCodeAt(0) !== first) continue;
    let j = i;
    let ok = true;
    for (let k = 0; k < parts.length; k += 1) {
      const part = parts[k]!;
      if (k > 0) {
        const next = skipSpace(text, j);
        if (next === j) {
          ok = false;
          break;
        }
        j = next;
      }
      if (!hasWordAt(text, j, part)) {
        ok = false;
        break;
      }
      j += part.length;
    }
    if (ok && !(j < text.length && isWordCode(text.charCodeAt(j)))) return { met, end: j };
  }
  return undefined;
}

/** `[50.2] met` at `i`: the item and its verdict. */
function readVerdict(text: string, i: number): { key: string; met: boolean } | undefined {
  const tier = readNumber(text, skipSpace(text, i + 1));
  if (tier.value !== 100 && tier.value !== 50 && tier.value !== 25) return undefined;
  let j = skipSpace(text, tier.end);
  if (!isSeparator(text.charCodeAt(j))) return undefined;
  const item = readNumber(text, skipSpace(text, j + 1));
  if (item.value < 0) return undefined;
  j = skipSpace(text, item.end);
  if (text.charCodeAt(j) !== 0x5d) return undefined;
  j = skipSpace(text, j + 1);
  if (isDash(text.charCodeAt(j))) j = skipSpace(text, j + 1);
  const word = readVerdictWord(text, j);
  return word && { key: `${tier.value}.${item.value}`, met: word.met };
}

/** `[100.1] met`, `[50.2] not met`, … → verdicts, when every item of the rubric has exactly one. */
export function readVerdicts(analysis: string, rubric: Rubric): Verdicts | undefined {
  const found = new Map<string, boolean | 'conflict'>();
  for (let i = analysis.indexOf('['); i >= 0; i = analysis.indexOf('[', i + 1)) {
    const v = readVerdict(analysis, i);
    if (!v) continue;
    const before = found.get(v.key);
    found.set(v.key, before === undefined || before === v.met ? v.met : 'conflict');
  }
  const verdicts: Verdicts = { 100: [], 50: [], 25: [] };
  for (const tier of TIERS) {
    for (let i = 1; i <= rubric.levels[tier].length; i += 1) {
      const value = found.get(`${tier}.${i}`);
      if (value === undefined || value === 'conflict') return undefined;
      verdicts[tier as Tier].push(value);
    }
  }
  return verdicts;
}

export function parseRubricAnswer(raw: string, rubric: Rubric, lowTier: LowTier = 25): RubricAnswer {
  const text = stripThinking(raw);
  const scores = blocks(text, 'score');
  if (scores.contents.length === 0) {
    return { ok: false, reason: scores.opened ? 'the <score> tag is never closed' : 'no <score>…</score> in the answer' };
  }
  const values = scores.contents.map(readScoreValue);
  const bad = values.find((v): v is string => typeof v === 'string');
  if (bad !== undefined) return { ok: false, reason: bad };
  const numbers = [...new Set(values as number[])];
  if (numbers.length > 1) return { ok: false, reason: `${scores.contents.length} <score> blocks disagree (${numbers.slice(0, 8).join(', ')})` };
  const score = numbers[0]!;
  if (score < 0 || score > 100) return { ok: false, reason: `score ${score} is outside 0–100` };
  if (lowTier === 25 && score % 25 !== 0) return { ok: false, reason: `score ${score} is not a multiple of 25` };
  const reachable = reachableScores(rubric, lowTier);
  if (!reachable.includes(score)) return { ok: false, reason: `score ${score} cannot come from this rubric (possible: ${reachable.join(', ')})` };
  const analyses = blocks(text, 'analysis');
  if (analyses.contents.length === 0) {
    return { ok: false, reason: analyses.opened ? 'the <analysis> tag is never closed' : 'no <analysis>…</analysis> in the answer' };
  }
  const analysis = analyses.contents.join('\n\n').trim();
  if (analysis === '') return { ok: false, reason: 'the <analysis> block is empty' };
  const verdicts = readVerdicts(analysis, rubric);
  const itemsScore = verdicts ? tierScore(verdicts, lowTier).score : undefined;
  return { ok: true, score, analysis, verdicts, itemsScore, consistent: itemsScore === undefined ? undefined : itemsScore === score };
}
