import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { compareNames, listTeams } from '../../orchestrator/layout/competition.js';
import type { ProgressSink } from '../../orchestrator/progress/types.js';
import { removeStaleTemps } from '../generate/write.js';
import { fingerprint } from './fingerprint.js';
import { type Attempt, Journal, journalPath } from './journal.js';
import { type FailureCounts, failureCounts, runJudge } from './judge-run.js';
import { type JudgedLevel, listJudgedLevels } from './levels.js';
import { type OrderOutputSummary, writeOrderOutputs } from './order-outputs.js';
import { chainPick, checkRankScale, type OrderJudgeOptions, type OrderProtocol, type PlannedQuestion, planQuestions, teamOrder } from './order-plan.js';
import { orderDir, storePrompt } from './paths.js';
import type { RunnerCounts } from './runner.js';
import { parseOrder } from './scoring/order.js';
import type { Presentation, Question } from './scoring/order-metrics.js';
import { ORDER_PROMPT_VERSION, PERSPECTIVES } from './scoring/order-prompt.js';

/**
 * `sbeval judge order`: the teams' levels ordered by an LLM judge per letter and trial, after the
 * document's ordering judge (reference/judges/ordering-judge.md), under sbeval's protocol or the
 * document's (order-plan.ts). Outputs in `<root>/result/judge-order/<judge>/<perspective>/` (written by
 * order-outputs.ts) and `<root>/result/judge-order/<judge>/model.txt`. Answers are journaled by the
 * content of each request (journal.ts): a killed run resumes without asking again, and a question
 * whose levels changed is asked again.
 */
export interface OrderJudgeSummary extends OrderOutputSummary {
  counts: RunnerCounts;
  failures: FailureCounts;
  questions: number;
  outDir: string;
  logFile: string;
  stopped: string | undefined;
}

export const ORDER_STAGE = 'judge order';

function checkSettings(outDir: string, print: string, id: string, force: boolean): void {
  const settingsFile = join(outDir, 'settings.json');
  if (force || !existsSync(settingsFile)) return;
  let earlier: { fingerprint?: string; model?: string; protocol?: string } = {};
  try {
    earlier = JSON.parse(readFileSync(settingsFile, 'utf8')) as typeof earlier;
  } catch {
    // unreadable: replaced below
  }
  if (earlier.fingerprint !== undefined && earlier.fingerprint !== print) {
    throw new SbevalError(
      'config',
      `${outDir} holds an ordering by "${id}" with other settings (model ${earlier.model}, protocol ${earlier.protocol ?? 'sbeval'})`,
      'pass --label <name> to keep both judges side by side, --force to replace it, or use another --perspective',
    );
  }
}

/** Each planned question with its settled presentations (answered or refused). */
function settledQuestions(
  planned: readonly PlannedQuestion[],
  attemptsOf: ReadonlyMap<string, Attempt[]>,
  journal: Journal,
  protocol: OrderProtocol,
): Question[] {
  const pick = chainPick(protocol);
  const out: Question[] = [];
  for (const q of planned) {
    const presentations: Presentation[] = [];
    for (const { order, key } of q.orders) {
      if (key === undefined) {
        presentations.push({ order, ranks: order.map(() => 1) });
        continue;
      }
      const attempts = attemptsOf.get(key) ?? [];
      if (attempts.length === 0) continue;
      const good = attempts.find((a) => a.ok);
      const parsed = good ? parseOrder(journal.content(good), order.length, pick) : undefined;
      presentations.push({ order, ranks: parsed?.ok ? parsed.ranks : undefined });
    }
    // A question counts once every presentation is settled: a part of its rotation would not be balanced.
    if (presentations.length === q.orders.length) out.push({ id: q.id, letter: q.letter, trial: q.trial, teams: q.teams, presentations });
  }
  return out;
}

/** The teams to compare, in the protocol's order, and their levels to judge; a setting that cannot be judged throws. */
function teamsAndLevels(options: OrderJudgeOptions): { teams: string[]; levels: JudgedLevel[] } {
  const { root } = options;
  const found = (options.filter.teams && options.filter.teams.length > 0 ? [...options.filter.teams] : listTeams(root)).sort(compareNames);
  if (found.length < 2) throw new SbevalError('input', `the ordering judge compares teams: ${root} has ${found.length}`, 'it needs at least two team folders');
  if (options.reference !== undefined && !found.includes(options.reference))
    throw new SbevalError('config', `--reference ${options.reference} is not one of the teams (${found.join(', ')})`);
  checkRankScale(options, found.length);
  const teams = teamOrder(found, options.reference, options.protocol);
  const levels = listJudgedLevels(root, { ...options.filter, teams });
  if (levels.length === 0) throw new SbevalError('input', `no levels to judge in ${root}`, 'run `sbeval run` (or extract, convert, simulate) first');
  return { teams, levels };
}

/** The settings an ordering depends on: their fingerprint tells whether an earlier ordering can be resumed. */
function orderSettings(options: OrderJudgeOptions, teams: string[]) {
  const { judge } = options;
  return {
    api: judge.api,
    model: judge.model,
    view: options.view,
    perspective: options.perspective,
    protocol: options.protocol,
    rankScores: options.rankScores,
    reference: options.reference ?? null,
    temperature: judge.temperature,
    seed: judge.seed,
    maxTokens: judge.maxTokens,
    prompt: ORDER_PROMPT_VERSION,
    teams,
  };
}

function orderFailures(planned: readonly PlannedQuestion[], attemptsOf: ReadonlyMap<string, Attempt[]>, unfinished: number): FailureCounts {
  const calls = [...attemptsOf.values()];
  return failureCounts({
    judged: calls.filter((a) => a.some((x) => x.ok)).length,
    refused: calls.filter((a) => a.length > 0 && !a.some((x) => x.ok)).length,
    missing: planned.reduce((n, q) => n + q.teams.filter((t) => !q.orders.some((o) => o.order.includes(t))).length, 0),
    unfinished,
  });
}

export async function runOrderJudge(options: OrderJudgeOptions, progress: ProgressSink, cancel?: AbortSignal): Promise<OrderJudgeSummary> {
  const { root, judge } = options;
  const perspectiveText = PERSPECTIVES[options.perspective];
  if (!perspectiveText)
    throw new SbevalError('config', `unknown perspective "${options.perspective}"`, `choose one of ${Object.keys(PERSPECTIVES).join(', ')}`);
  const { teams, levels } = teamsAndLevels(options);

  const settings = orderSettings(options, teams);
  const settingsPrint = fingerprint(settings);
  const outDir = orderDir(root, options.id, options.perspective);
  checkSettings(outDir, settingsPrint, options.id, options.force);

  const { questions: planned, tasks } = await planQuestions(levels, teams, { ...options, perspectiveText });
  for (const t of tasks) await storePrompt(root, t.promptDigest, t.prompt);
  await removeStaleTemps(outDir);
  const journal = new Journal(journalPath(root, options.id, `order-${options.perspective}`));
  const prints = new Map(tasks.map((t) => [t.key, t.fingerprint]));
  const previous = journal.read((key) => prints.get(key)).attempts;
  const attemptsOf = new Map<string, Attempt[]>();
  const start = {
    judge: 'order',
    id: options.id,
    view: options.view,
    perspective: options.perspective,
    protocol: options.protocol,
    reference: options.reference ?? null,
    teams,
    questions: planned.length,
  };
  const run = await runJudge(
    root,
    'judge-order',
    ORDER_STAGE,
    start,
    { tasks, journal, previous, judge, backend: options.backend, startedAt: options.startedAt },
    progress,
    (r) => {
      attemptsOf.set(r.task.key, r.attempts);
    },
    cancel,
  );

  const questions = settledQuestions(planned, attemptsOf, journal, options.protocol);
  const failures = orderFailures(planned, attemptsOf, run.counts.unfinished);
  const complete = run.counts.unfinished === 0;
  const written = await writeOrderOutputs({
    root,
    outDir,
    options,
    teams,
    planned,
    questions,
    attemptsOf,
    journal,
    settings: { ...settings, retries: judge.retries, fingerprint: settingsPrint, complete, questions: planned.length },
    failures,
  });
  return { ...written, counts: run.counts, failures, questions: planned.length, outDir, logFile: run.logFile, stopped: run.stopped };
}
