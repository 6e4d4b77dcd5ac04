import { bootstrapInterval, type Interval } from './bootstrap.js';
import { type RankScores, rankScore } from './order.js';

/**
 * Aggregates of the ordering judge (reference/judges/ordering-judge.md) from the questions it
 * answered. A question is one group of teams for one letter and trial; its presentations are the
 * judge calls. Per question, a team's rank is the mean of its ranks over the presentations, and its
 * score the mean of the presentations' scores (rankScore on the chosen scale).
 *
 * The failure rule (the same for the rubric judge, docs/judges.md): a level the judge could not
 * score counts as the worst result and stays in every denominator. Here: a group member with no level
 * to show is ranked last (rank = the number of teams in the group, whatever the others had), and a
 * presentation whose answer never parsed (refused after the retries) ranks every member of the group
 * last — no team gains from the judge's failure, and every question keeps its weight. The summary
 * counts both.
 */
export interface Presentation {
  /** Teams in the order shown (Assistant 1 first): the group's teams that have a level to show. */
  order: string[];
  /** Ranks in that order; undefined when the judge gave no usable ordering (refused). */
  ranks: number[] | undefined;
}

export interface Question {
  id: number;
  letter: string;
  trial: number;
  /** Every team of the group, in the group's order. */
  teams: string[];
  /** The settled presentations (answered or refused); none yet → the question is not counted. */
  presentations: Presentation[];
}

export interface QuestionResult {
  question: Question;
  /** team → mean rank over the presentations; empty when none is settled. */
  ranks: Map<string, number>;
  scores: Map<string, number>;
}

/** A member's rank in one presentation under the failure rule. */
export function presentedRank(p: Presentation, team: string, groupSize: number): number {
  if (!p.ranks) return groupSize;
  const at = p.order.indexOf(team);
  return at >= 0 ? p.ranks[at]! : groupSize;
}

export function combineQuestion(question: Question, scale: RankScores = 'table'): QuestionResult {
  const ranks = new Map<string, number>();
  const scores = new Map<string, number>();
  const settled = question.presentations;
  if (settled.length === 0) return { question, ranks, scores };
  const k = question.teams.length;
  for (const team of question.teams) {
    let rankSum = 0;
    let scoreSum = 0;
    for (const p of settled) {
      const r = presentedRank(p, team, k);
      rankSum += r;
      scoreSum += rankScore(r, scale);
    }
    ranks.set(team, rankSum / settled.length);
    scores.set(team, scoreSum / settled.length);
  }
  return { question, ranks, scores };
}

export interface TeamSummary {
  team: string;
  questions: number;
  meanRank: number;
  meanScore: number;
  /** Bootstrap 95 % interval of the mean score (questions resampled); null with fewer than 2 questions. */
  scoreInterval: Interval | null;
}

export interface VersusReference {
  team: string;
  reference: string;
  /** Questions where both were ranked. */
  compared: number;
  referenceWins: number;
  ties: number;
  teamWins: number;
  referenceMeanRank: number;
  teamMeanRank: number;
  referenceMeanScore: number;
  teamMeanScore: number;
  /** Bootstrap 95 % intervals (questions resampled) of the share won and of the score ratio (%model). */
  winShareInterval: Interval | null;
  scoreRatioInterval: Interval | null;
}

const mean = (values: readonly number[]) => (values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length);

export function teamSummaries(results: readonly QuestionResult[], teams: readonly string[], seed = 0): TeamSummary[] {
  return teams.map((team) => {
    const ranked = results.filter((r) => r.ranks.has(team));
    const scores = ranked.map((r) => r.scores.get(team)!);
    return {
      team,
      questions: ranked.length,
      meanRank: mean(ranked.map((r) => r.ranks.get(team)!)),
      meanScore: mean(scores),
      scoreInterval: bootstrapInterval(scores.length, (s) => mean(s.map((i) => scores[i]!)), { seed }),
    };
  });
}

/** Win / tie / lose of `team` against `reference` over the questions that ranked both. */
export function versusReference(results: readonly QuestionResult[], team: string, reference: string, seed = 0): VersusReference {
  const both = results.filter((r) => r.ranks.has(team) && r.ranks.has(reference));
  const outcome = both.map((r) => Math.sign(r.ranks.get(team)! - r.ranks.get(reference)!));
  const refScores = both.map((r) => r.scores.get(reference)!);
  const teamScores = both.map((r) => r.scores.get(team)!);
  const ratio = (s: readonly number[]) => {
    const ref = s.reduce((a, i) => a + refScores[i]!, 0);
    return ref > 0 ? s.reduce((a, i) => a + teamScores[i]!, 0) / ref : null;
  };
  return {
    team,
    reference,
    compared: both.length,
    referenceWins: outcome.filter((o) => o > 0).length,
    ties: outcome.filter((o) => o === 0).length,
    teamWins: outcome.filter((o) => o < 0).length,
    referenceMeanRank: mean(both.map((r) => r.ranks.get(reference)!)),
    teamMeanRank: mean(both.map((r) => r.ranks.get(team)!)),
    referenceMeanScore: mean(refScores),
    teamMeanScore: mean(teamScores),
    winShareInterval: bootstrapInterval(both.length, (s) => s.filter((i) => outcome[i]! < 0).length / s.length, { seed }),
    scoreRatioInterval: bootstrapInterval(both.length, ratio, { seed }),
  };
}

/** A number for JSON (NaN → null). */
export const num = (v: number): number | null => (Number.isFinite(v) ? v : null);

/**
 * `metric.json` in the reference's shape (sbeval's protocol). With a reference team, per other team:
 * `{winning: {<ref>: n, tie: n, model: n, "%model": share}, order: {<ref>: mean rank, model: mean
 * rank}, score: {<ref>: mean score, model: mean score, "%model": model/ref}}` over the questions that
 * ranked both, win/tie/lose on the questions' mean ranks (the reference's key is the reference team's
 * name, as "gpt3.5" is in the brief's example). "%model" of winning is the team's wins over the
 * compared questions. Without a reference, per team `{order, score}` (the published script's
 * `--horiz` form), plus `questions`. The document's protocol has its own: documentMetricJson.
 */
export function metricJson(results: readonly QuestionResult[], teams: readonly string[], reference: string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (reference === undefined) {
    for (const s of teamSummaries(results, teams)) out[s.team] = { order: num(s.meanRank), score: num(s.meanScore), questions: s.questions };
    return out;
  }
  for (const team of teams) {
    if (team === reference) continue;
    const v = versusReference(results, team, reference);
    out[team] = {
      winning: { [reference]: v.referenceWins, tie: v.ties, model: v.teamWins, '%model': v.compared === 0 ? null : v.teamWins / v.compared },
      order: { [reference]: num(v.referenceMeanRank), model: num(v.teamMeanRank) },
      score: {
        [reference]: num(v.referenceMeanScore),
        model: num(v.teamMeanScore),
        '%model': v.compared === 0 || !(v.referenceMeanScore > 0) ? null : v.teamMeanScore / v.referenceMeanScore,
      },
      questions: v.compared,
    };
  }
  return out;
}

/** `ordering.txt` as the reference lays it out: model, mean rank ("Ranking Score"), rank of that mean. */
export function orderingText(summaries: ReadonlyArray<Pick<TeamSummary, 'team' | 'questions' | 'meanRank'>>): string {
  const ranked = summaries.filter((s) => s.questions > 0).sort((a, b) => a.meanRank - b.meanRank || (a.team < b.team ? -1 : 1));
  const col = (text: string) => text.padEnd(30);
  const lines = [`${col('Model')}${col('Ranking Score')}${col('Rank')}`.trimEnd()];
  ranked.forEach((s) => {
    const rank = 1 + ranked.filter((o) => o.meanRank < s.meanRank).length;
    lines.push(`${col(s.team)}${col(String(s.meanRank))}${String(rank)}`);
  });
  return `${lines.join('\n')}\n`;
}

export interface PositionBias {
  /** Questions with at least two presentations that gave an ordering. */
  paired: number;
  /** …of which every such presentation ranked every team the same. */
  identical: number;
  /** Mean, over pairs of presentations of one question, of the share of team pairs whose relation (better, tie, worse) differs. */
  pairDisagreement: number | null;
  /** Mean score of the team shown first minus the mean score of all shown teams (> 0: the judge favours the first). */
  firstPositionAdvantage: number | null;
  /** The same for the team shown last. */
  lastPositionAdvantage: number | null;
  /** Per number of teams shown (2, 3, 4 …): the mean advantage of each position, first to last. */
  byPosition: Record<string, Array<number | null>>;
  /** Presentations whose ordering tied every assistant. */
  allTied: number;
  presentations: number;
}

function disagreement(a: Presentation, b: Presentation): number {
  const rank = (p: Presentation, team: string) => p.ranks![p.order.indexOf(team)]!;
  const shown = a.order;
  let pairs = 0;
  let differ = 0;
  for (let i = 0; i < shown.length; i += 1) {
    for (let j = i + 1; j < shown.length; j += 1) {
      pairs += 1;
      if (Math.sign(rank(a, shown[i]!) - rank(a, shown[j]!)) !== Math.sign(rank(b, shown[i]!) - rank(b, shown[j]!))) differ += 1;
    }
  }
  return pairs === 0 ? 0 : differ / pairs;
}

/** How much the order of presentation changed the judge's answers. */
export function positionBias(questions: readonly Question[], scale: RankScores = 'table'): PositionBias {
  const m = (values: number[]) => (values.length === 0 ? null : values.reduce((x, y) => x + y, 0) / values.length);
  let paired = 0;
  let identical = 0;
  const disagreements: number[] = [];
  const positions = new Map<number, number[][]>();
  let allTied = 0;
  let count = 0;
  for (const q of questions) {
    const usable = q.presentations.filter((p) => p.ranks && p.order.length >= 2);
    for (const p of usable) {
      count += 1;
      if (p.ranks!.every((r) => r === 1)) allTied += 1;
      const scores = p.ranks!.map((r) => rankScore(r, scale));
      const avg = scores.reduce((a, b) => a + b, 0) / scores.length;
      const slots = positions.get(scores.length) ?? Array.from({ length: scores.length }, () => []);
      scores.forEach((s, i) => slots[i]!.push(s - avg));
      positions.set(scores.length, slots);
    }
    if (usable.length < 2) continue;
    const pairs: number[] = [];
    for (let i = 0; i < usable.length; i += 1) for (let j = i + 1; j < usable.length; j += 1) pairs.push(disagreement(usable[i]!, usable[j]!));
    paired += 1;
    if (pairs.every((d) => d === 0)) identical += 1;
    disagreements.push(m(pairs)!);
  }
  const byPosition: Record<string, Array<number | null>> = {};
  for (const [size, slots] of [...positions].sort((a, b) => a[0] - b[0])) byPosition[String(size)] = slots.map(m);
  const all = [...positions.values()];
  return {
    paired,
    identical,
    pairDisagreement: m(disagreements),
    firstPositionAdvantage: m(all.flatMap((slots) => slots[0]!)),
    lastPositionAdvantage: m(all.flatMap((slots) => slots.at(-1)!)),
    byPosition,
    allTied,
    presentations: count,
  };
}
