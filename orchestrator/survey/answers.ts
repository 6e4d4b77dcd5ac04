import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { mixSeed, seededShuffle } from '../../scoring/judges/schedule.js';
import type { SurveyFile } from './build.js';

/**
 * A rater's answers: `<survey>/answers/<rater>.json`, rewritten atomically on every change (the
 * server saves each click), so a reload, a crash or a closed laptop loses nothing:
 *   {rater, updated, answers: {<item id>: {values: {<metric id>: n}, comment?, at}}}
 * Each rater sees the items in their own seeded order (survey seed × rater id), the same on every
 * visit, so order effects average out across raters.
 */
export interface ItemAnswer {
  values: Record<string, number>;
  comment?: string;
  at: string;
  /** The level rated (`team/C/name`), so answers never attach to another level if the survey is rebuilt. */
  level?: string;
}

export interface RaterFile {
  rater: string;
  updated: string;
  answers: Record<string, ItemAnswer>;
}

export const RATER_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function raterPath(out: string, rater: string): string {
  if (!RATER_ID.test(rater) || rater.includes('..')) throw new SbevalError('survey', `rater id "${rater}" is not 1–64 letters, digits, _ . -`);
  return join(out, 'answers', `${rater}.json`);
}

export function readRater(out: string, rater: string): RaterFile {
  const path = raterPath(out, rater);
  if (!existsSync(path)) return { rater, updated: '', answers: {} };
  return JSON.parse(readFileSync(path, 'utf8')) as RaterFile;
}

export function listRaters(out: string): RaterFile[] {
  const dir = join(out, 'answers');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && !f.startsWith('.'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as RaterFile);
}

export function itemOrder(survey: SurveyFile, rater: string): string[] {
  return seededShuffle(
    survey.items.map((i) => i.id),
    mixSeed(survey.seed, 'rater', rater),
  );
}

/** Checks one item's answer against the survey; returns the problem or undefined. */
export function levelOf(item: { team: string; letter: string; name: string }): string {
  return `${item.team}/${item.letter}/${item.name}`;
}

export function checkAnswer(survey: SurveyFile, itemId: string, answer: { values?: unknown; comment?: unknown; level?: unknown }): string | undefined {
  const item = survey.items.find((i) => i.id === itemId);
  if (!item) return `no item ${itemId}`;
  if (answer.level !== undefined && answer.level !== levelOf(item)) return `${itemId} was ${String(answer.level)} when rated; the survey was rebuilt since`;
  if (!answer.values || typeof answer.values !== 'object') return 'values missing';
  for (const [metricId, value] of Object.entries(answer.values as Record<string, unknown>)) {
    const metric = survey.metrics.find((m) => m.id === metricId);
    if (!metric) return `no metric ${metricId}`;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < metric.scale.min || value > metric.scale.max) return `${metricId}: ${String(value)} is not a whole number from ${metric.scale.min} to ${metric.scale.max}`;
  }
  if (answer.comment !== undefined && (typeof answer.comment !== 'string' || answer.comment.length > 5000)) return 'comment must be text of at most 5000 characters';
  return undefined;
}
