import { join } from 'node:path';
import { writeFileAtomic } from '../../orchestrator/layout/atomic.js';
import { compareNames } from '../../orchestrator/layout/competition.js';
import { csvText } from '../../scoring/formats/text-escape.js';
import type { Attempt, Journal } from './journal.js';
import type { FailureCounts } from './judge-run.js';
import { type OrderJudgeOptions, type PlannedQuestion, questionText } from './order-plan.js';
import { orderRoot } from './paths.js';
import { callRecord } from './runner.js';
import type { Interval } from './scoring/bootstrap.js';
import { type DocumentReview, documentMetrics } from './scoring/document-metrics.js';
import { rankScore } from './scoring/order.js';
import {
  combineQuestion,
  metricJson,
  num,
  orderingText,
  positionBias,
  presentedRank,
  type Question,
  type QuestionResult,
  teamSummaries,
  versusReference,
} from './scoring/order-metrics.js';

/**
 * The ordering judge's files in `<root>/result/judge-order/<judge>/<perspective>/`:
 * - both protocols: `metric.json` (the reference's shape), `ordering.txt` (mean ranks), `scores.csv`
 *   (per team: mean score with its bootstrap 95 % interval, mean rank, and against `--reference` the
 *   win / tie / lose counts, share won and score ratio with intervals), `levels.csv` (per level: its
 *   mean score and rank over the questions it was in, for the report's agreement figures),
 *   `summary.json` (all of it, with the failure counts and the score scale), `settings.json`;
 * - `sbeval`: `presentations.jsonl` (one line per judge call: the teams in the order shown, their ranks
 *   or -1s when refused, the answer, the refused attempts, the call's cost) and `position-bias.json`
 *   (per presentation size, each position's mean score advantage);
 * - `document`: `questions.jsonl` and `review.jsonl` in the document's format — one review per
 *   question, every review listing all teams in one order, the reference first, with `order` the rank
 *   of each (-1s when the answer never parsed), so the document's published compute script reads them
 *   as it reads its own.
 * Intervals resample questions (seeded with the judge's seed).
 */
export interface OrderOutputSummary {
  teams: Array<{ team: string; meanScore: number | null; meanRank: number | null; questions: number; interval: Interval | null }>;
  /** With a reference: every other team's win / tie / lose against it (metric.json's counts). */
  versus: Array<{ team: string } & VersusRow>;
}

interface OutputInput {
  root: string;
  outDir: string;
  options: OrderJudgeOptions;
  teams: string[];
  planned: readonly PlannedQuestion[];
  questions: readonly Question[];
  attemptsOf: ReadonlyMap<string, Attempt[]>;
  journal: Journal;
  settings: Record<string, unknown>;
  failures: FailureCounts;
}

type Row = Array<string | number | null>;
const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const mean = (v: readonly number[]) => v.reduce((a, b) => a + b, 0) / v.length;
const low = (i: Interval | null) => i?.low ?? null;
const high = (i: Interval | null) => i?.high ?? null;

export async function writeOrderOutputs(input: OutputInput): Promise<OrderOutputSummary> {
  const written = input.options.protocol === 'document' ? await writeDocument(input) : await writeSbeval(input);
  await writeFileAtomic(join(input.outDir, 'settings.json'), json(input.settings));
  await writeFileAtomic(join(orderRoot(input.root), input.options.id, 'model.txt'), `${input.teams.join('\n')}\n`);
  return written;
}

function levelRows(input: OutputInput, perLevel: (q: Question, team: string) => { score: number; rank: number | null } | undefined): Row[] {
  const rows = new Map<string, { team: string; letter: string; trial: number; name: string; scores: number[]; ranks: number[] }>();
  const byId = new Map(input.planned.map((q) => [q.id, q]));
  for (const q of input.questions) {
    for (const team of q.teams) {
      const level = byId.get(q.id)!.levels.get(team);
      const value = level && perLevel(q, team);
      if (!level || !value) continue;
      const key = `${team}/${q.letter}/${q.trial}`;
      const entry = rows.get(key) ?? { team, letter: q.letter, trial: q.trial, name: level.name, scores: [], ranks: [] };
      entry.scores.push(value.score);
      if (value.rank !== null) entry.ranks.push(value.rank);
      rows.set(key, entry);
    }
  }
  const out: Row[] = [['team', 'letter', 'trial', 'name', 'questions', 'mean_score', 'mean_rank']];
  for (const e of [...rows.values()].sort((a, b) => compareNames(a.team, b.team) || compareNames(a.letter, b.letter) || a.trial - b.trial)) {
    out.push([e.team, e.letter, e.trial, e.name, e.scores.length, mean(e.scores), e.ranks.length === 0 ? null : mean(e.ranks)]);
  }
  return out;
}

/** A team against the reference, as scores.csv and summary.json give it. */
interface VersusRow {
  compared: number;
  referenceWins: number;
  ties: number;
  teamWins: number;
  winShare: number | null;
  winShareInterval: Interval | null;
  scoreRatio: number | null;
  scoreRatioInterval: Interval | null;
}

function scoreRows(teams: OrderOutputSummary['teams'], reference: string | undefined, versus: ReadonlyMap<string, VersusRow>): Row[] {
  const head: Row = ['team', 'questions', 'mean_score', 'score_low', 'score_high', 'mean_rank'];
  if (reference)
    head.push(
      'reference',
      'compared',
      'reference_wins',
      'ties',
      'team_wins',
      'share_won',
      'share_won_low',
      'share_won_high',
      'score_ratio',
      'score_ratio_low',
      'score_ratio_high',
    );
  const rows: Row[] = [head];
  for (const t of teams) {
    const row: Row = [t.team, t.questions, t.meanScore, low(t.interval), high(t.interval), t.meanRank];
    const v = versus.get(t.team);
    if (reference) {
      if (v)
        row.push(
          reference,
          v.compared,
          v.referenceWins,
          v.ties,
          v.teamWins,
          v.winShare,
          low(v.winShareInterval),
          high(v.winShareInterval),
          v.scoreRatio,
          low(v.scoreRatioInterval),
          high(v.scoreRatioInterval),
        );
      else row.push(reference, null, null, null, null, null, null, null, null, null, null);
    }
    rows.push(row);
  }
  return rows;
}

async function writeCommon(
  input: OutputInput,
  files: { metric: unknown; summaries: OrderOutputSummary['teams']; scores: Row[]; levels: Row[]; scaleMin: number; extra: Record<string, unknown> },
): Promise<void> {
  const { outDir, options } = input;
  await writeFileAtomic(join(outDir, 'metric.json'), `${JSON.stringify(files.metric, null, 4)}\n`);
  await writeFileAtomic(
    join(outDir, 'ordering.txt'),
    orderingText(files.summaries.map((s) => ({ team: s.team, questions: s.questions, meanRank: s.meanRank ?? NaN }))),
  );
  await writeFileAtomic(join(outDir, 'scores.csv'), csvText(files.scores));
  await writeFileAtomic(join(outDir, 'levels.csv'), csvText(files.levels));
  // Levels with no level file: scored by the failure rule; agreement leaves them out when every judge has them missing (judge-agreement.ts).
  const missing = new Set(
    input.planned.flatMap((q) => [...q.levels.values()].filter((l) => l.level === undefined).map((l) => `${l.team}/${q.letter}/${q.trial}`)),
  );
  const summary = {
    judge: 'order',
    id: options.id,
    model: options.judge.model,
    perspective: options.perspective,
    protocol: options.protocol,
    rankScores: options.rankScores,
    reference: options.reference ?? null,
    scale: { min: files.scaleMin, max: 10 },
    complete: input.failures.unfinished === 0,
    failures: input.failures,
    teams: files.summaries,
    levels: files.levels.slice(1).map(([team, letter, trial, name, questions, score, rank]) => ({
      team,
      letter,
      trial,
      name,
      questions,
      score,
      rank,
      ...(missing.has(`${team}/${letter}/${trial}`) ? { missing: true } : {}),
    })),
    ...files.extra,
  };
  await writeFileAtomic(join(outDir, 'summary.json'), json(summary));
}

function callFields(attempts: readonly Attempt[], journal: Journal) {
  const good = attempts.find((a) => a.ok);
  const last = good ?? attempts.at(-1)!;
  return {
    text: journal.content(last),
    ok: good !== undefined,
    ...(good ? {} : { reason: last.reason ?? 'refused' }),
    seed: last.seed,
    prompt: last.prompt ?? null,
    refused: attempts.filter((a) => !a.ok).map((a) => ({ seed: a.seed, reason: a.reason, raw: journal.content(a) })),
    calls: attempts.map(callRecord),
  };
}

async function writeSbeval(input: OutputInput): Promise<OrderOutputSummary> {
  const { options, teams, questions, journal } = input;
  const scale = options.rankScores;
  const seed = options.judge.seed;
  const results: QuestionResult[] = questions.map((q) => combineQuestion(q, scale));
  const summaries = teamSummaries(results, teams, seed).map((s) => ({
    team: s.team,
    meanScore: num(s.meanScore),
    meanRank: num(s.meanRank),
    questions: s.questions,
    interval: s.scoreInterval,
  }));
  const versus = new Map<string, VersusRow>();
  if (options.reference) {
    for (const team of teams.filter((t) => t !== options.reference)) {
      const v = versusReference(results, team, options.reference, seed);
      const { compared, referenceWins, ties, teamWins, winShareInterval, scoreRatioInterval } = v;
      const winShare = compared === 0 ? null : teamWins / compared;
      const scoreRatio = compared === 0 || !(v.referenceMeanScore > 0) ? null : v.teamMeanScore / v.referenceMeanScore;
      versus.set(team, { compared, referenceWins, ties, teamWins, winShare, winShareInterval, scoreRatio, scoreRatioInterval });
    }
  }
  const byId = new Map(results.map((r) => [r.question.id, r]));
  const levels = levelRows(input, (q, team) => {
    const r = byId.get(q.id)!;
    return r.scores.has(team) ? { score: r.scores.get(team)!, rank: r.ranks.get(team)! } : undefined;
  });
  const lines: string[] = [];
  for (const q of input.planned) {
    q.orders.forEach(({ order, key }, p) => {
      const attempts = key === undefined ? [] : (input.attemptsOf.get(key) ?? []);
      if (attempts.length === 0) return;
      const settled = questions.find((x) => x.id === q.id)?.presentations[p];
      lines.push(
        JSON.stringify({
          question_id: q.id,
          letter: q.letter,
          trial: q.trial,
          group: q.teams,
          presentation: p + 1,
          model_ids: order,
          answer_ids: order.map((t) => q.levels.get(t)!.name),
          order: settled?.ranks ?? order.map(() => -1),
          ...callFields(attempts, journal),
        }),
      );
    });
  }
  await writeFileAtomic(join(input.outDir, 'presentations.jsonl'), lines.length === 0 ? '' : `${lines.join('\n')}\n`);
  const bias = positionBias(questions, scale);
  await writeFileAtomic(
    join(input.outDir, 'position-bias.json'),
    json({
      ...bias,
      note: 'paired: questions with two or more presentations that gave an ordering; pairDisagreement: mean share of team pairs ordered differently by two presentations of one question; byPosition: per number of teams shown, the mean score of each position minus the mean of its presentation (0 everywhere: no position bias)',
    }),
  );
  const maxGroup = Math.max(2, ...input.planned.map((q) => q.teams.length));
  await writeCommon(input, {
    metric: metricJson(results, teams, options.reference),
    summaries,
    scores: scoreRows(summaries, options.reference, versus),
    levels,
    scaleMin: rankScore(maxGroup, scale),
    extra: { versus: Object.fromEntries(versus), positionBias: bias },
  });
  return { teams: summaries, versus: [...versus].map(([team, v]) => ({ team, ...v })) };
}

async function writeDocument(input: OutputInput): Promise<OrderOutputSummary> {
  const { options, teams, questions, journal } = input;
  const n = teams.length;
  const reviews: DocumentReview[] = questions.map((q) => {
    const p = q.presentations[0]!;
    return { ranks: p.ranks === undefined ? undefined : teams.map((t) => presentedRank(p, t, n)) };
  });
  const metrics = documentMetrics(reviews, teams, options.reference !== undefined, options.rankScores, options.judge.seed);
  const summaries = metrics.teams.map((t) => ({
    team: t.team,
    meanScore: num(t.meanScore),
    meanRank: num(t.meanRank),
    questions: t.questions,
    interval: t.scoreInterval,
  }));
  const versus = new Map<string, VersusRow>(
    metrics.versus.map((v) => {
      const { referenceWins, ties, teamWins, winShare, winShareInterval, scoreRatio, scoreRatioInterval } = v;
      return [v.team, { compared: questions.length, referenceWins, ties, teamWins, winShare, winShareInterval, scoreRatio, scoreRatioInterval }];
    }),
  );
  const index = new Map(questions.map((q, i) => [q.id, i]));
  const levels = levelRows(input, (q, team) => {
    const r = reviews[index.get(q.id)!]!;
    const rank = r.ranks?.[teams.indexOf(team)];
    return { score: rank === undefined ? 0 : rankScore(rank, options.rankScores), rank: rank ?? null };
  });
  const planned = new Map(input.planned.map((q) => [q.id, q]));
  const questionLines = questions.map((q) =>
    JSON.stringify({ question_id: q.id, text: questionText(q.letter), category: q.letter, lang: 'en', trial: q.trial }),
  );
  const reviewLines = questions.map((q, i) => {
    const plan = planned.get(q.id)!;
    const key = plan.orders[0]!.key;
    const attempts = key === undefined ? [] : (input.attemptsOf.get(key) ?? []);
    return JSON.stringify({
      reviewer_id: options.judge.model,
      lang: 'en',
      question_id: q.id,
      answer_ids: teams.map((t) => plan.levels.get(t)?.name ?? null),
      category: q.letter,
      metadata: { question: questionText(q.letter), answers: teams.map((t) => plan.levels.get(t)?.name ?? null), model_ids: teams },
      order: reviews[i]!.ranks ?? teams.map(() => -1),
      letter: q.letter,
      trial: q.trial,
      shown: plan.orders[0]!.order,
      ...(attempts.length > 0 ? callFields(attempts, journal) : { text: '', ok: true }),
    });
  });
  await writeFileAtomic(join(input.outDir, 'questions.jsonl'), questionLines.length === 0 ? '' : `${questionLines.join('\n')}\n`);
  await writeFileAtomic(join(input.outDir, 'review.jsonl'), reviewLines.length === 0 ? '' : `${reviewLines.join('\n')}\n`);
  await writeCommon(input, {
    metric: metrics.metric,
    summaries,
    scores: scoreRows(summaries, options.reference, versus),
    levels,
    scaleMin: 0,
    extra: { versus: Object.fromEntries(versus) },
  });
  return { teams: summaries, versus: [...versus].map(([team, v]) => ({ team, ...v })) };
}
