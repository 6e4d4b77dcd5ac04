import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { describeIssue } from '../../orchestrator/config/load.js';
import { compareNames, listFiles, listTeams } from '../../orchestrator/layout/competition.js';
import { defaultSurveyDir } from '../survey/build.js';
import { orderRoot, promptsDir } from './paths.js';
import { type RubricTrialRecord, readRubricFile } from './rubric-record.js';
import { type Interval, meanInterval } from './scoring/bootstrap.js';
import type { ScoredSource } from './scoring/judge-agreement.js';

/**
 * The judges' results as every reader takes them — the report's Judges section, `survey collect`,
 * the agreement between judges — one reading and one validation: the rubric judges' letter files
 * (rubric-record.ts) and the ordering judges' `summary.json` (order-outputs.ts), per judge. A file that
 * does not have its shape (an older sbeval's layout, a hand edit, a torn copy) is skipped with a
 * warning that names it.
 */
interface LevelScore {
  team: string;
  letter: string;
  name: string;
  score: number;
  /** No level to judge: the score is the failure rule's. */
  missing?: boolean;
}

export interface JudgeResult {
  /** `rubric:<judge>` or `order:<judge>:<perspective>`. */
  name: string;
  kind: 'rubric' | 'order';
  judge: string;
  model: string;
  perspective?: string;
  complete: boolean;
  seed: number;
  /** The range of its scores (rubric 0–100; ordering from its lowest score to 10). */
  scale: { min: number; max: number };
  /** level key → score under the failure rule. */
  levels: Map<string, LevelScore>;
  /** team → mean score and its bootstrap 95 % interval. */
  teams: Map<string, { mean: number | null; interval: Interval | null; levels: number }>;
}

export interface JudgeResults {
  judges: JudgeResult[];
  warnings: string[];
}

const key = (l: { team: string; letter: string; name: string }) => `${l.team}/${l.letter}/${l.name}`;
const isDir = (path: string) => existsSync(path) && statSync(path).isDirectory();
const subdirs = (dir: string) =>
  isDir(dir)
    ? readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
        .map((e) => e.name)
        .sort(compareNames)
    : [];

function rubricJudges(root: string, warnings: string[]): JudgeResult[] {
  const byJudge = new Map<string, JudgeResult>();
  for (const team of listTeams(root)) {
    const dir = join(root, team, 'judge-rubric');
    if (listFiles(dir, '.json').length > 0) warnings.push(`${dir}: letter files outside a judge folder (an older sbeval's layout); skipped — judge again`);
    for (const judge of subdirs(dir)) {
      for (const name of listFiles(join(dir, judge), '.json')) {
        const read = readRubricFile(join(dir, judge, name));
        if (!read) continue;
        if ('problem' in read) {
          warnings.push(`${read.problem}; skipped`);
          continue;
        }
        const file = read.file;
        let result = byJudge.get(judge);
        if (!result)
          byJudge.set(
            judge,
            (result = {
              name: `rubric:${judge}`,
              kind: 'rubric',
              judge,
              model: file.settings.model,
              complete: true,
              seed: file.settings.seed,
              scale: { min: 0, max: 100 },
              levels: new Map(),
              teams: new Map(),
            }),
          );
        result.complete &&= file.complete;
        for (const t of file.trials as RubricTrialRecord[])
          result.levels.set(key({ team, letter: file.character, name: t.name }), {
            team,
            letter: file.character,
            name: t.name,
            score: t.score,
            ...(t.status === 'missing' ? { missing: true } : {}),
          });
      }
    }
  }
  for (const r of byJudge.values()) r.teams = teamMeans(r);
  return [...byJudge.values()];
}

const nullableNumber = z.number().nullable();
const orderSummarySchema = z.object({
  judge: z.literal('order'),
  id: z.string(),
  model: z.string(),
  perspective: z.string(),
  protocol: z.string(),
  scale: z.object({ min: z.number(), max: z.number() }),
  complete: z.boolean(),
  teams: z.array(
    z.object({ team: z.string(), meanScore: nullableNumber, questions: z.number(), interval: z.object({ low: z.number(), high: z.number() }).nullable() }),
  ),
  levels: z.array(z.object({ team: z.string(), letter: z.string(), name: z.string(), score: z.number(), missing: z.boolean().optional() })),
});

function orderJudges(root: string, warnings: string[], seed: number): JudgeResult[] {
  const out: JudgeResult[] = [];
  const base = orderRoot(root);
  for (const judge of subdirs(base)) {
    for (const perspective of subdirs(join(base, judge))) {
      const file = join(base, judge, perspective, 'summary.json');
      if (!existsSync(file)) {
        warnings.push(`${join(base, judge, perspective)}: no summary.json (an older sbeval's layout, or a run that never finished); skipped`);
        continue;
      }
      let data: unknown;
      try {
        data = JSON.parse(readFileSync(file, 'utf8'));
      } catch (error) {
        warnings.push(`${file}: not JSON (${(error as Error).message.split('\n')[0]}); skipped`);
        continue;
      }
      const parsed = orderSummarySchema.safeParse(data);
      if (!parsed.success) {
        warnings.push(`${file}: not an ordering summary of this sbeval (${parsed.error.issues.slice(0, 3).map(describeIssue).join('; ')}); skipped`);
        continue;
      }
      const s = parsed.data;
      const levels = new Map(s.levels.map((l) => [key(l), l] as const));
      const teams = new Map(s.teams.map((t) => [t.team, { mean: t.meanScore, interval: t.interval, levels: t.questions }] as const));
      out.push({
        name: `order:${judge}:${perspective}`,
        kind: 'order',
        judge,
        model: s.model,
        perspective,
        complete: s.complete,
        seed,
        scale: s.scale,
        levels,
        teams,
      });
    }
  }
  return out;
}

/** Team means of a judge's level scores (every level counts, failures as the worst score), with intervals. */
function teamMeans(result: JudgeResult): JudgeResult['teams'] {
  const byTeam = new Map<string, number[]>();
  for (const l of result.levels.values()) {
    const list = byTeam.get(l.team) ?? [];
    list.push(l.score);
    byTeam.set(l.team, list);
  }
  return new Map([...byTeam].map(([team, scores]) => [team, { ...meanInterval(scores, { seed: result.seed }), levels: scores.length }]));
}

export function loadJudgeResults(root: string, seed = 6280): JudgeResults {
  const warnings: string[] = [];
  const judges = [...rubricJudges(root, warnings), ...orderJudges(root, warnings, seed)];
  return { judges, warnings };
}

export function scoredSource(result: JudgeResult): ScoredSource {
  return {
    name: result.name,
    scale: result.scale,
    scores: new Map([...result.levels].map(([k, l]) => [k, l.score])),
    missing: new Set([...result.levels].flatMap(([k, l]) => (l.missing === true ? [k] : []))),
  };
}

/** Every file below `dir` (hidden names left out). */
function filesBelow(dir: string, into: string[]): void {
  if (!isDir(dir)) return;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue;
    const path = join(dir, e.name);
    if (e.isDirectory()) filesBelow(path, into);
    else if (e.isFile()) into.push(path);
  }
}

/** The judges' files that results depend on: rubric letter files, the ordering judges' outputs, the stored prompts. Absolute, sorted. */
export function judgeFiles(root: string): string[] {
  const files: string[] = [];
  for (const team of listTeams(root)) filesBelow(join(root, team, 'judge-rubric'), files);
  filesBelow(orderRoot(root), files);
  filesBelow(promptsDir(root), files);
  return files.sort();
}

/** The survey's files that results depend on: the survey, its invitations (digests) and the raters' answers. Absolute, sorted. */
export function surveyFiles(root: string): string[] {
  const files: string[] = [];
  const survey = defaultSurveyDir(root);
  for (const name of ['survey.json', 'invites.json']) if (existsSync(join(survey, name))) files.push(join(survey, name));
  filesBelow(join(survey, 'answers'), files);
  return files.sort();
}

/** Every judge and survey file that results depend on (for the result manifest). Absolute paths, sorted. */
export function judgeAndSurveyFiles(root: string): string[] {
  return [...judgeFiles(root), ...surveyFiles(root)].sort();
}
