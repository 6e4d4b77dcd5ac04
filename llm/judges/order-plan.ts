import { SbevalError } from '../../core/errors.js';
import { compareNames } from '../../orchestrator/layout/competition.js';
import type { JudgeStageOptions } from './judge-run.js';
import { type JudgedLevel, loadView } from './levels.js';
import { type JudgeSettings, type JudgeTask, promptDigest, requestFingerprint } from './runner.js';
import { type ChainPick, parseOrder, type RankScores, TABLE_MAX_RANK } from './scoring/order.js';
import { buildOrderPrompt } from './scoring/order-prompt.js';
import { balancedOrders, coveringGroups, mixSeed, referenceGroups } from './scoring/schedule.js';
import type { LevelView, ViewKind } from './scoring/views.js';

/**
 * The ordering judge's questions and calls, per protocol (`--protocol`):
 * - `sbeval`: per letter and trial, groups of at most 4 teams (all of them, a covering of every pair,
 *   or — with `--reference` and more than 4 teams — groups that all hold the reference:
 *   llm/judges/scoring/schedule.ts); each group's m shown levels asked m times in the rotations of a
 *   seeded order, so every team is in every position once; the last complete chain is the answer;
 * - `document`: per letter and trial, one question of every team, asked once, in one fixed order —
 *   the reference first, then the other teams in name order — as the document's reviews list their
 *   models; the first complete chain is the answer.
 * A team of the group with nothing to show (no level, no image) is not shown; it is ranked last
 * (order-metrics.ts, the failure rule). A group with one level to show needs no call (it is first).
 */
export type OrderProtocol = 'sbeval' | 'document';

export interface PlannedQuestion {
  id: number;
  letter: string;
  trial: number;
  /** Every team of the question, in the group's order (document: reference first). */
  teams: string[];
  levels: Map<string, JudgedLevel>;
  /** Presentations: the orders shown, and each one's task key (undefined when no call is needed). */
  orders: Array<{ order: string[]; key: string | undefined }>;
}

/** What `sbeval judge order` is asked to do: order-stage.ts runs it, order-outputs.ts writes its files. */
export interface OrderJudgeOptions extends JudgeStageOptions {
  perspective: string;
  reference: string | undefined;
  protocol: OrderProtocol;
  rankScores: RankScores;
}

interface OrderPlanOptions {
  protocol: OrderProtocol;
  view: ViewKind;
  perspectiveText: string;
  reference: string | undefined;
  rankScores: RankScores;
  prefix: string;
  judge: JudgeSettings;
}

export function questionText(letter: string): string {
  return `Build a Science Birds level whose structure looks like the upper-case letter "${letter}" and stays standing under gravity.`;
}

export const chainPick = (protocol: OrderProtocol): ChainPick => (protocol === 'document' ? 'first' : 'last');

/** The teams in the order questions list them. */
export function teamOrder(teams: readonly string[], reference: string | undefined, protocol: OrderProtocol): string[] {
  const sorted = [...teams].sort(compareNames);
  if (protocol !== 'document' || reference === undefined) return sorted;
  return [reference, ...sorted.filter((t) => t !== reference)];
}

function groupsOf(teams: readonly string[], options: OrderPlanOptions, letter: string, trial: number): string[][] {
  if (options.protocol === 'document') return [[...teams]];
  const seed = mixSeed(options.judge.seed, letter, trial);
  const ref = options.reference === undefined ? -1 : teams.indexOf(options.reference);
  const groups = ref >= 0 ? referenceGroups(teams.length, ref, seed) : coveringGroups(teams.length, seed);
  return groups.map((g) => g.map((i) => teams[i]!));
}

export function checkRankScale(options: Pick<OrderPlanOptions, 'protocol' | 'rankScores'>, teams: number): void {
  if (options.protocol === 'document' && options.rankScores === 'table' && teams > TABLE_MAX_RANK) {
    throw new SbevalError(
      'config',
      `--rank-scores table scores ranks 1–${TABLE_MAX_RANK}, and the document's protocol shows all ${teams} teams in one question`,
      "use --rank-scores reciprocal (10 / rank, the document's compute script), or --protocol sbeval (groups of 4)",
    );
  }
}

export async function planQuestions(
  levels: readonly JudgedLevel[],
  teams: readonly string[],
  options: OrderPlanOptions,
): Promise<{ questions: PlannedQuestion[]; tasks: JudgeTask[] }> {
  const byCell = new Map(levels.map((l) => [`${l.team}/${l.character}/${l.trial}`, l] as const));
  const cells = [...new Set(levels.map((l) => `${l.character}/${l.trial}`))]
    .map((c) => ({ letter: c.split('/')[0]!, trial: Number(c.split('/')[1]) }))
    .sort((a, b) => compareNames(a.letter, b.letter) || a.trial - b.trial);
  const questions: PlannedQuestion[] = [];
  const tasks: JudgeTask[] = [];
  for (const { letter, trial } of cells) {
    for (const group of groupsOf(teams, options, letter, trial)) {
      const views = new Map<string, LevelView>();
      const groupLevels = new Map<string, JudgedLevel>();
      for (const team of group) {
        const level = byCell.get(`${team}/${letter}/${trial}`);
        if (!level) continue;
        groupLevels.set(team, level);
        const view = await loadView(level, options.view, options.prefix);
        if (!('missing' in view)) views.set(team, view);
      }
      const q: PlannedQuestion = { id: questions.length + 1, letter, trial, teams: group, levels: groupLevels, orders: [] };
      questions.push(q);
      const shown = group.filter((t) => views.has(t));
      if (shown.length < 2) {
        q.orders = [{ order: shown, key: undefined }];
        continue;
      }
      const orders = options.protocol === 'document' ? [shown] : balancedOrders(shown, mixSeed(options.judge.seed, letter, trial, group.join('+')));
      orders.forEach((order, p) => {
        const key = `${options.protocol === 'document' ? 'document/' : ''}${letter}/${trial}/${group.join('+')}/p${p + 1}`;
        q.orders.push({ order, key });
        tasks.push(orderTask(key, order, views, options, letter, trial));
      });
    }
  }
  return { questions, tasks };
}

function orderTask(key: string, order: string[], views: ReadonlyMap<string, LevelView>, options: OrderPlanOptions, letter: string, trial: number): JudgeTask {
  const prompt = buildOrderPrompt(
    options.perspectiveText,
    questionText(letter),
    letter,
    order.map((t) => views.get(t)!),
  );
  const pick = chainPick(options.protocol);
  return {
    key,
    fingerprint: requestFingerprint(options.judge, prompt),
    promptDigest: promptDigest(prompt),
    label: `${letter} trial ${trial}: ${order.join(', ')}`,
    prompt,
    parse: (content) => {
      const parsed = parseOrder(content, order.length, pick);
      return parsed.ok ? { ok: true } : { ok: false, reason: parsed.reason };
    },
  };
}
