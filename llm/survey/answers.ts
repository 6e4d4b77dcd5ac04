import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { SbevalError } from '../../core/errors.js';
import { describeIssue } from '../../orchestrator/config/load.js';
import { mixSeed, seededShuffle } from '../judges/scoring/schedule.js';
import type { SurveyFile } from './build.js';

/**
 * A rater's answers: one file per item, `<survey>/answers/<rater>/<item>.json`, rewritten atomically
 * on every change (the server saves each click), so a reload, a crash or a closed laptop loses nothing:
 *   {level, values: {<metric id>: n}, comment?, at}
 * One file per answer keeps every file the size of one answer however many items a rater rates: a
 * single file per rater outgrew any reader's cap on a large survey (700 items with 5,000-character
 * comments pass 16 MiB). The cap is checked when an answer is saved (answerText: the server answers
 * 413), and the reader's cap is the same number, so nothing saved is ever unreadable.
 * Each rater sees the items in their own seeded order (survey seed × rater id), the same on every
 * visit, so order effects average out across raters.
 *
 * Read back only through `listRaters` (by `survey collect`, the report and the server) and
 * `readRater`: a file that is not JSON, does not have this shape, or is above the cap is skipped with a
 * warning that names it — one bad file never stops the others from being counted.
 *
 * Surveys saved before kept a rater's answers in one file, `<survey>/answers/<rater>.json`
 * ({rater, updated, answers: {<item id>: answer}}): it is read as that rater's answers beneath their
 * per-item files (an item's own file is newer: the server writes no other), so the rater sees them
 * and every save moves one into its own file. Such a file that cannot be read is refused with its name
 * and what to do, never skipped: it holds all of a rater's answers.
 */
export interface ItemAnswer {
  values: Record<string, number>;
  comment?: string;
  at: string;
  /** The level rated (`team/C/name`), so answers never attach to another level if the survey is rebuilt. Never sent to a rater. */
  level?: string;
}

interface RaterFile {
  rater: string;
  answers: Record<string, ItemAnswer>;
}

const RATER_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** Item ids are file names too (build.ts writes `item-NN`). */
const ITEM_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const MAX_COMMENT = 5000;
/**
 * One answer's file, at most: a 5,000-character comment of characters JSON escapes as six-character `\u` sequences is
 * 30,000 bytes, the values of a survey's metrics a few hundred more; a survey with so many metrics
 * that an answer passes this is refused at save time, not after.
 */
const MAX_ANSWER_BYTES = 64 * 1024;

const answerSchema = z.object({
  values: z.record(z.string(), z.number()),
  comment: z.string().max(MAX_COMMENT).optional(),
  at: z.string(),
  level: z.string().optional(),
});

/** A rater's file of the one-file-per-rater layout (`answers/<rater>.json`); its items are checked as files are. */
const oldRaterSchema = z.object({ rater: z.string(), answers: z.record(z.string(), answerSchema) });
/**
 * The largest one-file-per-rater file read: that layout's server wrote files of any size (its reader
 * stopped at 16 MiB); 702 items with 5,000-character comments of escaped characters are 21 MB, so this
 * holds more than ten times a survey's worth.
 */
const MAX_OLD_RATER_BYTES = 256 * 1024 * 1024;

function checkRaterId(rater: string): string {
  if (!RATER_ID.test(rater) || rater.includes('..')) throw new SbevalError('survey', `rater id "${rater}" is not 1–64 letters, digits, _ . -`);
  return rater;
}

/** The file of one rater's answer to one item; undefined for an item id that cannot be a file name. */
export function answerPath(out: string, rater: string, itemId: string): string | undefined {
  if (!ITEM_ID.test(itemId)) return undefined;
  return join(out, 'answers', checkRaterId(rater), `${itemId}.json`);
}

/** An answer as its file holds it, or why it cannot be saved (larger than the reader takes). */
export function answerText(answer: ItemAnswer): { text: string } | { problem: string } {
  const text = `${JSON.stringify(answer, null, 2)}\n`;
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_ANSWER_BYTES) return { problem: `this answer is ${bytes} bytes; an answer holds at most ${MAX_ANSWER_BYTES}` };
  return { text };
}

/** One answer's file, or why it cannot be read. */
function readAnswerFile(path: string): ItemAnswer | { problem: string } {
  const size = statSync(path).size;
  if (size > MAX_ANSWER_BYTES) return { problem: `${size} bytes, more than an answer can be (${MAX_ANSWER_BYTES})` };
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    return { problem: `not JSON (${(error as Error).message.split('\n')[0]})` };
  }
  const parsed = answerSchema.safeParse(data);
  if (!parsed.success) return { problem: `not an answer (${parsed.error.issues.slice(0, 3).map(describeIssue).join('; ')})` };
  return parsed.data;
}

/** The organizer's line for an answer file that is left out. */
const skipped = (shown: string, problem: string): string => `${shown}: ${problem}; skipped`;

/** One rater's answers so far (none yet: no folder), and the files that could not be read. */
function readRaterDir(dir: string, rater: string): { file: RaterFile; warnings: string[] } {
  const answers: Record<string, ItemAnswer> = {};
  const warnings: string[] = [];
  if (!existsSync(dir)) return { file: { rater, answers }, warnings };
  for (const name of readdirSync(dir)
    .filter((f) => !f.startsWith('.'))
    .sort()) {
    const shown = join('answers', rater, name);
    const itemId = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
    const answer = ITEM_ID.test(itemId) ? readAnswerFile(join(dir, name)) : { problem: 'the file name is not <item>.json' };
    if ('problem' in answer) warnings.push(skipped(shown, answer.problem));
    else answers[itemId] = answer;
  }
  return { file: { rater, answers }, warnings };
}

/** The answers of a one-file-per-rater file (`answers/<rater>.json`), none when there is none; throws when it cannot be read. */
function readOldRaterFile(out: string, rater: string): Record<string, ItemAnswer> {
  const path = join(out, 'answers', `${rater}.json`);
  if (!existsSync(path) || !statSync(path).isFile()) return {};
  const shown = join('answers', `${rater}.json`);
  const todo = `move its answers to ${join('answers', rater)}/<item>.json, one {values, comment?, at, level} each, or the file out of answers/`;
  const size = statSync(path).size;
  if (size > MAX_OLD_RATER_BYTES)
    throw new SbevalError('survey', `${shown}: rater ${rater}'s answers in the one-file-per-rater layout, ${size} bytes: more than sbeval reads`, todo);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new SbevalError(
      'survey',
      `${shown}: rater ${rater}'s answers in the one-file-per-rater layout are not JSON (${(error as Error).message.split('\n')[0]})`,
      todo,
    );
  }
  const parsed = oldRaterSchema.safeParse(data);
  if (!parsed.success)
    throw new SbevalError(
      'survey',
      `${shown}: not a rater's answers of the one-file-per-rater layout (${parsed.error.issues.slice(0, 3).map(describeIssue).join('; ')})`,
      todo,
    );
  return Object.fromEntries(Object.entries(parsed.data.answers).filter(([item]) => ITEM_ID.test(item)));
}

/** A rater's answers: their per-item files over their one-file-per-rater file, when they have one. */
function readRaterAnswers(out: string, rater: string): { file: RaterFile; warnings: string[] } {
  const old = readOldRaterFile(out, rater);
  const read = readRaterDir(join(out, 'answers', rater), rater);
  return { file: { rater, answers: { ...old, ...read.file.answers } }, warnings: read.warnings };
}

/** The rater's answers so far, and the files of theirs that could not be read (the server logs them; the rater is told nothing of paths). */
export function readRater(out: string, rater: string): { file: RaterFile; warnings: string[] } {
  return readRaterAnswers(out, checkRaterId(rater));
}

/**
 * One item's answer of a rater, as `readRater` would give it (the item's own file before the
 * one-file-per-rater layout), reading only that item's file: a save reads one answer, not all of them.
 */
export function readRaterItem(out: string, rater: string, itemId: string): { answer: ItemAnswer | undefined; warnings: string[] } {
  const path = answerPath(out, rater, itemId);
  const old = () => readOldRaterFile(out, rater)[itemId];
  if (path === undefined || !existsSync(path)) return { answer: old(), warnings: [] };
  const answer = readAnswerFile(path);
  if ('problem' in answer) return { answer: old(), warnings: [skipped(join('answers', rater, `${itemId}.json`), answer.problem)] };
  return { answer, warnings: [] };
}

/** Every rater with a folder in `answers/`; what is not a rater's folder or answer is named in `warnings`. */
export function listRaters(out: string): { raters: RaterFile[]; warnings: string[]; entries: number } {
  const dir = join(out, 'answers');
  const raters: RaterFile[] = [];
  const warnings: string[] = [];
  if (!existsSync(dir)) return { raters, warnings, entries: 0 };
  const names = readdirSync(dir)
    .filter((f) => !f.startsWith('.'))
    .sort();
  const found = new Set<string>();
  for (const name of names) {
    const path = join(dir, name);
    const directory = statSync(path).isDirectory();
    // A rater's folder, or their file of the one-file-per-rater layout (read with it: readRaterAnswers).
    const rater = directory ? name : name.endsWith('.json') ? name.slice(0, -'.json'.length) : undefined;
    if (rater === undefined) {
      warnings.push(`${join('answers', name)}: not a rater's folder (answers are answers/<rater>/<item>.json); skipped`);
      continue;
    }
    if (!RATER_ID.test(rater) || rater.includes('..')) {
      warnings.push(`${join('answers', name)}: the ${directory ? 'folder' : 'file'} name is not a rater id; skipped`);
      continue;
    }
    if (found.has(rater)) continue;
    found.add(rater);
    const read = readRaterAnswers(out, rater);
    warnings.push(...read.warnings);
    raters.push(read.file);
  }
  return { raters, warnings, entries: names.length };
}

export function itemOrder(survey: SurveyFile, rater: string): string[] {
  return seededShuffle(
    survey.items.map((i) => i.id),
    mixSeed(survey.seed, 'rater', rater),
  );
}

export function levelOf(item: { team: string; letter: string; name: string }): string {
  return `${item.team}/${item.letter}/${item.name}`;
}

/** Checks one item's answer against the survey; returns the problem or undefined. */
export function checkAnswer(survey: SurveyFile, itemId: string, answer: { values?: unknown; comment?: unknown; level?: unknown }): string | undefined {
  const item = survey.items.find((i) => i.id === itemId);
  if (!item) return `no item ${itemId}`;
  if (answer.level !== undefined && answer.level !== levelOf(item)) return `${itemId} was another level when rated; the survey was rebuilt since`;
  if (!answer.values || typeof answer.values !== 'object' || Array.isArray(answer.values)) return 'values missing';
  for (const [metricId, value] of Object.entries(answer.values as Record<string, unknown>)) {
    const metric = survey.metrics.find((m) => m.id === metricId);
    if (!metric) return `no metric ${metricId}`;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < metric.scale.min || value > metric.scale.max)
      return `${metricId}: ${String(value)} is not a whole number from ${metric.scale.min} to ${metric.scale.max}`;
  }
  if (answer.comment !== undefined && (typeof answer.comment !== 'string' || answer.comment.length > MAX_COMMENT))
    return `comment must be text of at most ${MAX_COMMENT} characters`;
  return undefined;
}
