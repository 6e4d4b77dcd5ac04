import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { parseOrder } from '../../scoring/judges/order.js';
import { combineQuestion, metricJson, orderingText, positionBias, teamSummaries, type Presentation, type Question, type QuestionResult } from '../../scoring/judges/order-metrics.js';
import { buildOrderPrompt, ORDER_PROMPT_VERSION, PERSPECTIVES } from '../../scoring/judges/order-prompt.js';
import { coveringGroups, mixSeed, presentations } from '../../scoring/judges/schedule.js';
import type { LevelView, ViewKind } from '../../scoring/judges/views.js';
import { writeFileAtomic } from '../layout/atomic.js';
import { removeStaleTemps } from '../generate/write.js';
import { compareNames, listTeams, resultDir } from '../layout/competition.js';
import { HostPool, type HostPoolSettings } from '../generate/host-pool.js';
import { RunLog } from '../generate/run-log.js';
import type { ProgressSink } from '../progress/types.js';
import { fingerprint } from './fingerprint.js';
import { Journal, journalPath, type AttemptLine } from './journal.js';
import { listJudgedLevels, loadView, type JudgedLevel, type LevelFilter } from './levels.js';
import { preflight } from './rubric-stage.js';
import { runJudgeTasks, type JudgeSettings, type JudgeTask, type RunnerCounts } from './runner.js';
import { csvText } from '../../scoring/formats/text-escape.js';

/**
 * `sbeval judge order`: per letter and trial number, the teams' levels are one question (more than
 * 4 teams: a seeded schedule of groups of 4 covering every pair, scoring/judges/schedule.ts); each
 * group is asked twice, in a seeded order and in reverse, and the answers are combined per
 * scoring/judges/order-metrics.ts. Outputs in `<root>/result/judge-order/<perspective>/`:
 * - `review.jsonl`: one line per judge call in the reference's shape (reviewer_id, lang,
 *   question_id, answer_ids, category, metadata {question, answers, model_ids}, text, order — the
 *   rank of each shown answer, -1s when the answer never parsed), plus letter, trial, presentation,
 *   seed, ok, reason and the refused attempts;
 * - `metric.json` (per team, against `--reference`), `ordering.txt` (mean ranks), `scores.csv`
 *   (per team), `levels.csv` (per level: its mean score over the questions it was in, for the
 *   report's agreement with the ViT), `position-bias.json`, `settings.json`;
 * and `<root>/result/judge-order/model.txt`: the teams compared.
 * Answers are journaled (journal.ts): a killed run resumes without asking again.
 */
export interface OrderJudgeOptions {
  root: string;
  filter: LevelFilter;
  view: ViewKind;
  perspective: string;
  reference: string | undefined;
  prefix: string;
  hosts: string[];
  judge: JudgeSettings;
  pool: HostPoolSettings;
  force: boolean;
  startedAt?: Date;
}

export interface OrderJudgeSummary {
  counts: RunnerCounts;
  questions: number;
  outDir: string;
  teams: Array<{ team: string; meanScore: number | null; meanRank: number | null; questions: number }>;
  logFile: string;
  stopped: string | undefined;
}

export const ORDER_STAGE = 'judge order';

export function orderDir(root: string, perspective: string): string {
  return join(resultDir(root), 'judge-order', perspective);
}

interface PlannedQuestion {
  id: number;
  letter: string;
  trial: number;
  teams: string[];
  shown: string[];
  views: Map<string, LevelView>;
  levels: Map<string, JudgedLevel>;
  orders: string[][];
  keys: string[];
}

function question(letter: string): string {
  return `Build a Science Birds level whose structure looks like the upper-case letter "${letter}" and stays standing under gravity.`;
}

// RFC 4180 with formula-leading text neutralized (scoring/formats/text-escape.ts); level-scores.ts reads it back.
const csv = (rows: Array<Array<string | number | null>>) => csvText(rows);
const finite = (v: number) => (Number.isFinite(v) ? v : null);

export async function runOrderJudge(options: OrderJudgeOptions, progress: ProgressSink, cancel?: AbortSignal): Promise<OrderJudgeSummary> {
  const { root, judge } = options;
  const perspectiveText = PERSPECTIVES[options.perspective];
  if (!perspectiveText) throw new SbevalError('config', `unknown perspective "${options.perspective}"`, `choose one of ${Object.keys(PERSPECTIVES).join(', ')}`);
  const teams = (options.filter.teams && options.filter.teams.length > 0 ? [...options.filter.teams] : listTeams(root)).sort(compareNames);
  if (teams.length < 2) throw new SbevalError('input', `the ordering judge compares teams: ${root} has ${teams.length}`, 'it needs at least two team folders');
  if (options.reference !== undefined && !teams.includes(options.reference)) throw new SbevalError('config', `--reference ${options.reference} is not one of the teams (${teams.join(', ')})`);
  const levels = listJudgedLevels(root, { ...options.filter, teams });
  if (levels.length === 0) throw new SbevalError('input', `no levels to judge in ${root}`, 'run `sbeval run` (or extract, convert, simulate) first');

  const settings = { model: judge.model, view: options.view, perspective: options.perspective, temperature: judge.temperature, seed: judge.seed, maxTokens: judge.maxTokens, prompt: ORDER_PROMPT_VERSION, teams };
  const settingsPrint = fingerprint(settings);
  const outDir = orderDir(root, options.perspective);
  const settingsFile = join(outDir, 'settings.json');
  if (!options.force && existsSync(settingsFile)) {
    let earlier: { fingerprint?: string; model?: string } = {};
    try {
      earlier = JSON.parse(readFileSync(settingsFile, 'utf8')) as typeof earlier;
    } catch {
      // unreadable: replaced below
    }
    if (earlier.fingerprint !== undefined && earlier.fingerprint !== settingsPrint) {
      throw new SbevalError('config', `${outDir} holds an ordering judged with other settings (model ${earlier.model})`, 'pass --force to replace it, or use another --perspective');
    }
  }

  // Questions: letter × trial number × group.
  const byCell = new Map<string, JudgedLevel>();
  for (const l of levels) byCell.set(`${l.team}/${l.character}/${l.trial}`, l);
  const cells = [...new Set(levels.map((l) => `${l.character}/${l.trial}`))]
    .map((c) => ({ letter: c.split('/')[0]!, trial: Number(c.split('/')[1]) }))
    .sort((a, b) => compareNames(a.letter, b.letter) || a.trial - b.trial);
  const planned: PlannedQuestion[] = [];
  const tasks: JudgeTask[] = [];
  const taskKeyOf = new Map<string, { q: PlannedQuestion; p: number }>();
  for (const { letter, trial } of cells) {
    const groups = coveringGroups(teams.length, mixSeed(judge.seed, letter, trial));
    for (const [g, members] of groups.entries()) {
      const group = members.map((i) => teams[i]!);
      const views = new Map<string, LevelView>();
      const groupLevels = new Map<string, JudgedLevel>();
      for (const team of group) {
        const level = byCell.get(`${team}/${letter}/${trial}`);
        if (!level) continue;
        groupLevels.set(team, level);
        const view = await loadView(level, options.view, options.prefix);
        if (!('missing' in view)) views.set(team, view);
      }
      const shown = group.filter((t) => views.has(t));
      if (shown.length === 0) continue;
      const q: PlannedQuestion = { id: planned.length + 1, letter, trial, teams: group, shown, views, levels: groupLevels, orders: [], keys: [] };
      planned.push(q);
      if (shown.length === 1) {
        q.orders = [shown];
        continue;
      }
      q.orders = presentations(shown, mixSeed(judge.seed, letter, trial, g));
      q.orders.forEach((order, p) => {
        const key = `${letter}/${trial}/${group.join('+')}/p${p + 1}`;
        q.keys.push(key);
        taskKeyOf.set(key, { q, p });
        tasks.push({
          key,
          fingerprint: fingerprint([settingsPrint, order]),
          label: `${letter} trial ${trial}: ${order.join(', ')}`,
          prompt: async () => buildOrderPrompt(perspectiveText, question(letter), letter, order.map((t) => views.get(t)!)),
          parse: (content) => {
            const parsed = parseOrder(content, order.length);
            return parsed.ok ? { ok: true } : { ok: false, reason: parsed.reason };
          },
        });
      });
    }
  }

  await removeStaleTemps(outDir);
  await removeStaleTemps(join(resultDir(root), 'judge-order'));
  const journal = new Journal(journalPath(root, `order-${options.perspective}`));
  const prints = new Map(tasks.map((t) => [t.key, t.fingerprint]));
  const previous = journal.read((key) => prints.get(key));
  const attemptsOf = new Map<string, AttemptLine[]>();
  const log = new RunLog(root, options.startedAt ?? new Date(), 'judge-order');
  log.write({ type: 'start', time: new Date().toISOString(), judge: 'order', model: judge.model, view: options.view, perspective: options.perspective, reference: options.reference ?? null, teams, questions: planned.length, tasks: tasks.length });
  const pool = new HostPool(options.hosts, options.pool, (event) => {
    log.write({ ...event, type: 'host', state: event.type, time: new Date().toISOString() });
    if (event.type !== 'back') progress.note(ORDER_STAGE, `host ${event.host}: ${event.type}${'reason' in event ? ` (${event.reason})` : ''}`);
  });
  const needsCalls = tasks.some((t) => {
    const a = previous.get(t.key) ?? [];
    return !a.some((x) => x.ok) && (a.length < judge.retries + 1 || judge.retryFailed);
  });
  if (needsCalls) await preflight(pool, judge.model, options.hosts);
  const result = await runJudgeTasks(tasks, { settings: judge, pool, journal, log, progress, stage: ORDER_STAGE, cancel }, previous, (r) => {
    attemptsOf.set(r.task.key, r.attempts);
  });

  // Every question with the presentations answered so far.
  const questions: Question[] = [];
  const reviews: string[] = [];
  for (const q of planned) {
    const shownPresentations: Presentation[] = q.orders.map((order, p) => {
      if (order.length === 1) return { order, ranks: [1] };
      const attempts = attemptsOf.get(q.keys[p]!) ?? [];
      const good = attempts.find((a) => a.ok);
      const parsed = good ? parseOrder(good.content, order.length) : undefined;
      return { order, ranks: parsed?.ok ? parsed.ranks : undefined };
    });
    // Only presentations that are settled count; an unfinished one is neither a ranking nor a failure.
    const settled = shownPresentations.filter((_, p) => q.orders[p]!.length === 1 || (attemptsOf.get(q.keys[p]!) ?? []).length > 0);
    if (settled.length > 0) questions.push({ id: q.id, letter: q.letter, trial: q.trial, teams: q.teams, presentations: settled });
    q.orders.forEach((order, p) => {
      if (order.length === 1) return;
      const attempts = attemptsOf.get(q.keys[p]!) ?? [];
      if (attempts.length === 0) return;
      const good = attempts.find((a) => a.ok);
      const last = good ?? attempts.at(-1)!;
      reviews.push(
        JSON.stringify({
          reviewer_id: judge.model,
          lang: 'en',
          question_id: q.id,
          answer_ids: order.map((t) => q.levels.get(t)!.name),
          category: q.letter,
          metadata: {
            question: question(q.letter),
            answers: order.map((t) => q.levels.get(t)!.name),
            model_ids: order,
          },
          text: last.content,
          order: shownPresentations[p]!.ranks ?? order.map(() => -1),
          letter: q.letter,
          trial: q.trial,
          group: q.teams,
          presentation: p + 1,
          seed: last.seed,
          ok: good !== undefined,
          ...(good ? {} : { reason: last.reason ?? 'refused' }),
          refused: attempts.filter((a) => !a.ok).map((a) => ({ seed: a.seed, reason: a.reason, raw: a.content })),
        }),
      );
    });
  }
  const results: QuestionResult[] = questions.map(combineQuestion);
  const summaries = teamSummaries(results, teams);
  const metric = metricJson(results, teams, options.reference);
  const bias = positionBias(questions);
  const perLevel = new Map<string, { team: string; letter: string; trial: number; name: string; scores: number[]; ranks: number[] }>();
  for (const r of results) {
    for (const [team, score] of r.scores) {
      const level = planned.find((q) => q.id === r.question.id)!.levels.get(team);
      const key = `${team}/${r.question.letter}/${r.question.trial}`;
      const entry = perLevel.get(key) ?? { team, letter: r.question.letter, trial: r.question.trial, name: level?.name ?? `${team}_${r.question.letter}_${r.question.trial}`, scores: [], ranks: [] };
      entry.scores.push(score);
      entry.ranks.push(r.ranks.get(team)!);
      perLevel.set(key, entry);
    }
  }
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const versus = options.reference;
  const scoreRows: Array<Array<string | number | null>> = [['team', 'questions', 'mean_score', 'mean_rank', ...(versus ? ['reference', 'compared', 'reference_wins', 'ties', 'team_wins', 'share_won', 'score_ratio'] : [])]];
  for (const s of summaries) {
    const row: Array<string | number | null> = [s.team, s.questions, finite(s.meanScore), finite(s.meanRank)];
    if (versus) {
      const m = metric[s.team] as { winning: Record<string, number | null>; score: Record<string, number | null>; questions: number } | undefined;
      if (m) row.push(versus, m.questions, m.winning[versus] ?? 0, m.winning.tie ?? 0, m.winning.model ?? 0, m.winning['%model'] ?? null, m.score['%model'] ?? null);
      else row.push(versus, '', '', '', '', '', '');
    }
    scoreRows.push(row);
  }
  const levelRows: Array<Array<string | number | null>> = [['team', 'letter', 'trial', 'name', 'questions', 'mean_score', 'mean_rank']];
  for (const e of [...perLevel.values()].sort((a, b) => compareNames(a.team, b.team) || compareNames(a.letter, b.letter) || a.trial - b.trial)) {
    levelRows.push([e.team, e.letter, e.trial, e.name, e.scores.length, mean(e.scores), mean(e.ranks)]);
  }
  await writeFileAtomic(join(outDir, 'review.jsonl'), reviews.length === 0 ? '' : `${reviews.join('\n')}\n`);
  await writeFileAtomic(join(outDir, 'metric.json'), `${JSON.stringify(metric, null, 4)}\n`);
  await writeFileAtomic(join(outDir, 'ordering.txt'), orderingText(summaries));
  await writeFileAtomic(join(outDir, 'scores.csv'), csv(scoreRows));
  await writeFileAtomic(join(outDir, 'levels.csv'), csv(levelRows));
  await writeFileAtomic(join(outDir, 'position-bias.json'), `${JSON.stringify({ ...bias, note: 'paired: questions whose two presentation orders both gave an ordering; pairDisagreement: mean share of team pairs ordered differently by the two; first/lastPositionAdvantage: mean score of the first/last shown answer minus the mean of its presentation' }, null, 2)}\n`);
  const complete = result.counts.unfinished === 0;
  await writeFileAtomic(settingsFile, `${JSON.stringify({ ...settings, reference: options.reference ?? null, retries: judge.retries, fingerprint: settingsPrint, complete, questions: planned.length }, null, 2)}\n`);
  await writeFileAtomic(join(resultDir(root), 'judge-order', 'model.txt'), `${teams.join('\n')}\n`);
  log.write({ type: 'end', time: new Date().toISOString(), counts: result.counts, stopped: result.stopped ?? null });
  return {
    counts: result.counts,
    questions: planned.length,
    outDir,
    teams: summaries.map((s) => ({ team: s.team, meanScore: finite(s.meanScore), meanRank: finite(s.meanRank), questions: s.questions })),
    logFile: log.file,
    stopped: result.stopped,
  };
}
