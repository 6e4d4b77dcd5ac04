import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { SbevalError } from '../../core/errors.js';
import { mixSeed, seededShuffle } from '../judges/scoring/schedule.js';
import { describeIssue } from '../../orchestrator/config/load.js';
import type { SurveyFile } from './build.js';

/**
 * A rater's answers: `<survey>/answers/<rater>.json`, rewritten atomically on every change (the
 * server saves each click), so a reload, a crash or a closed laptop loses nothing:
 *   {rater, updated, answers: {<item id>: {values: {<metric id>: n}, comment?, at, level}}}
 * Each rater sees the items in their own seeded order (survey seed × rater id), the same on every
 * visit, so order effects average out across raters.
 *
 * Read back only through `listRaters` (by `survey collect`, the report and the server): a file that is
 * not JSON, does not have this shape, or is larger than any real rater's file is skipped with a
 * warning that names it — one bad file never stops the others from being counted.
 */
export interface ItemAnswer {
  values: Record<string, number>;
  comment?: string;
  at: string;
  /** The level rated (`team/C/name`), so answers never attach to another level if the survey is rebuilt. Never sent to a rater. */
  level?: string;
}

export interface RaterFile {
  rater: string;
  updated: string;
  answers: Record<string, ItemAnswer>;
}

const RATER_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const MAX_COMMENT = 5000;
/** A rater's file above this is not one the server wrote (items × metrics × a 5,000-character comment stay far below). */
const MAX_RATER_FILE_BYTES = 16 * 1024 * 1024;

const answerSchema = z.object({
  values: z.record(z.string(), z.number()),
  comment: z.string().max(MAX_COMMENT).optional(),
  at: z.string(),
  level: z.string().optional(),
});
const raterSchema = z.object({ rater: z.string(), updated: z.string(), answers: z.record(z.string(), answerSchema) });

export function raterPath(out: string, rater: string): string {
  if (!RATER_ID.test(rater) || rater.includes('..')) throw new SbevalError('survey', `rater id "${rater}" is not 1–64 letters, digits, _ . -`);
  return join(out, 'answers', `${rater}.json`);
}

/** One rater's file, or why it cannot be read. */
function readRaterFile(path: string, rater: string): RaterFile | { problem: string } {
  const size = statSync(path).size;
  if (size > MAX_RATER_FILE_BYTES) return { problem: `${size} bytes, more than any rater's file can be` };
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    return { problem: `not JSON (${(error as Error).message.split('\n')[0]})` };
  }
  const parsed = raterSchema.safeParse(data);
  if (!parsed.success) return { problem: `not a rater's answers (${parsed.error.issues.slice(0, 3).map(describeIssue).join('; ')})` };
  return { ...parsed.data, rater };
}

/** The rater's answers so far (none yet: an empty file); a file that cannot be read is an error here. */
export function readRater(out: string, rater: string): RaterFile {
  const path = raterPath(out, rater);
  if (!existsSync(path)) return { rater, updated: '', answers: {} };
  const file = readRaterFile(path, rater);
  if ('problem' in file) throw new SbevalError('survey', `${path}: ${file.problem}`, 'move the file aside; the rater starts again');
  return file;
}

export function listRaters(out: string): { raters: RaterFile[]; warnings: string[] } {
  const dir = join(out, 'answers');
  const raters: RaterFile[] = [];
  const warnings: string[] = [];
  if (!existsSync(dir)) return { raters, warnings };
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.json') && !f.startsWith('.')).sort()) {
    const rater = name.slice(0, -'.json'.length);
    const path = join(dir, name);
    const file = RATER_ID.test(rater) ? readRaterFile(path, rater) : { problem: 'the file name is not a rater id' };
    if ('problem' in file) warnings.push(`${join('answers', name)}: ${file.problem}; skipped`);
    else raters.push(file);
  }
  return { raters, warnings };
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
    if (typeof value !== 'number' || !Number.isInteger(value) || value < metric.scale.min || value > metric.scale.max) return `${metricId}: ${String(value)} is not a whole number from ${metric.scale.min} to ${metric.scale.max}`;
  }
  if (answer.comment !== undefined && (typeof answer.comment !== 'string' || answer.comment.length > MAX_COMMENT)) return `comment must be text of at most ${MAX_COMMENT} characters`;
  return undefined;
}
