import { rankScore } from './order.js';

/**
 * Aggregates of the ordering judge (reference/judges/ordering-judge.md) from the questions it
 * answered. A question is one group of teams for one letter and trial; its presentations are the
 * judge calls (two orders per group, schedule.ts). Per question, a team's rank is the mean of its
 * ranks over the presentations that gave an ordering (so 1.5 when the two orders disagree between
 * first and second), and its score the mean of the presentations' scores (rankScore).
 */
export interface Presentation {
  /**
   * Teams in the order shown (Assistant 1 first): the group's teams that have a level to show. A
   * group member without one (no level, or no image for `--view image`) is ranked after every shown
   * team, tied with the others without one — a missing level counts as the worst answer, as a
   * missing trial counts 0 in the official scores. With a single team to show there is no call: it
   * is ranked first.
   */
  order: string[];
  /** Ranks in that order, or undefined when the judge gave no usable ordering. */
  ranks: number[] | undefined;
}

export interface Question {
  id: number;
  letter: string;
  trial: number;
  /** Every team of the group, in the group's (alphabetical) order. */
  teams: string[];
  presentations: Presentation[];
}

export interface QuestionResult {
  question: Question;
  /** team → mean rank over the usable presentations; empty when none was usable. */
  ranks: Map<string, number>;
  scores: Map<string, number>;
}

export function combineQuestion(question: Question): QuestionResult {
  const ranks = new Map<string, number>();
  const scores = new Map<string, number>();
  const usable = question.presentations.filter((p) => p.ranks !== undefined);
  if (usable.length === 0) return { question, ranks, scores };
  for (const team of question.teams) {
    let rankSum = 0;
    let scoreSum = 0;
    for (const p of usable) {
      const at = p.order.indexOf(team);
      const r = at >= 0 ? p.ranks![at]! : p.order.length + 1;
      rankSum += r;
      scoreSum += rankScore(r);
    }
    ranks.set(team, rankSum / usable.length);
    scores.set(team, scoreSum / usable.length);
  }
  return { question, ranks, scores };
}

export interface TeamSummary {
  team: string;
  questions: number;
  meanRank: number;
  meanScore: number;
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
}

const mean = (values: readonly number[]) => (values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length);

export function teamSummaries(results: readonly QuestionResult[], teams: readonly string[]): TeamSummary[] {
  return teams.map((team) => {
    const ranked = results.filter((r) => r.ranks.has(team));
    return { team, questions: ranked.length, meanRank: mean(ranked.map((r) => r.ranks.get(team)!)), meanScore: mean(ranked.map((r) => r.scores.get(team)!)) };
  });
}

/** Win / tie / lose of `team` against `reference` over the questions that ranked both. */
export function versusReference(results: readonly QuestionResult[], team: string, reference: string): VersusReference {
  const both = results.filter((r) => r.ranks.has(team) && r.ranks.has(reference));
  let referenceWins = 0;
  let ties = 0;
  let teamWins = 0;
  for (const r of both) {
    const a = r.ranks.get(reference)!;
    const b = r.ranks.get(team)!;
    if (a < b) referenceWins += 1;
    else if (a > b) teamWins += 1;
    else ties += 1;
  }
  return {
    team,
    reference,
    compared: both.length,
    referenceWins,
    ties,
    teamWins,
    referenceMeanRank: mean(both.map((r) => r.ranks.get(reference)!)),
    teamMeanRank: mean(both.map((r) => r.ranks.get(team)!)),
    referenceMeanScore: mean(both.map((r) => r.scores.get(reference)!)),
    teamMeanScore: mean(both.map((r) => r.scores.get(team)!)),
  };
}

/** A number for JSON (NaN → null). */
const num = (v: number): number | null => (Number.isFinite(v) ? v : null);

/**
 * `metric.json` in the reference's shape. With a reference team, per other team:
 * `{winning: {<ref>: n, tie: n, model: n, "%model": share}, order: {<ref>: mean rank, model: mean
 * rank}, score: {<ref>: mean score, model: mean score, "%model": model/ref}}` over the questions that
 * ranked both (the reference's key is the reference team's name, as "gpt3.5" is in the brief's
 * example). "%model" of winning is the team's wins over the compared questions (the published script
 * divides by every question, skipped ones included). Without a reference, per team `{order, score}`
 * (the published script's `--horiz` form), plus `questions`.
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
      score: { [reference]: num(v.referenceMeanScore), model: num(v.teamMeanScore), '%model': v.compared === 0 || !(v.referenceMeanScore > 0) ? null : v.teamMeanScore / v.referenceMeanScore },
      questions: v.compared,
    };
  }
  return out;
}

/** `ordering.txt` as the reference lays it out: model, mean rank ("Ranking Score"), rank of that mean. */
export function orderingText(summaries: readonly TeamSummary[]): string {
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
  /** Questions whose two presentations both gave an ordering. */
  paired: number;
  /** …of which both orderings ranked every team the same. */
  identical: number;
  /** Mean share of team pairs whose relation (better, tie, worse) differs between the two orders. */
  pairDisagreement: number | null;
  /** Mean score of the team shown first minus the mean score of all shown teams (> 0: the judge favours the first). */
  firstPositionAdvantage: number | null;
  /** The same for the team shown last. */
  lastPositionAdvantage: number | null;
  /** Presentations whose ordering tied every assistant. */
  allTied: number;
  presentations: number;
}

function relation(a: number, b: number): number {
  return Math.sign(a - b);
}

/** How much the order of presentation changed the judge's answers. */
export function positionBias(questions: readonly Question[]): PositionBias {
  let paired = 0;
  let identical = 0;
  const disagreements: number[] = [];
  const first: number[] = [];
  const last: number[] = [];
  let allTied = 0;
  let count = 0;
  for (const q of questions) {
    for (const p of q.presentations) {
      if (!p.ranks || p.order.length < 2) continue;
      count += 1;
      if (p.ranks.every((r) => r === 1)) allTied += 1;
      const scores = p.ranks.map(rankScore);
      const avg = scores.reduce((a, b) => a + b, 0) / scores.length;
      first.push(scores[0]! - avg);
      last.push(scores.at(-1)! - avg);
    }
    const usable = q.presentations.filter((p) => p.ranks && p.order.length >= 2);
    if (usable.length < 2) continue;
    const [a, b] = usable as [Presentation, Presentation];
    const rank = (p: Presentation, team: string) => p.ranks![p.order.indexOf(team)]!;
    const shown = a.order;
    let pairs = 0;
    let differ = 0;
    for (let i = 0; i < shown.length; i += 1) {
      for (let j = i + 1; j < shown.length; j += 1) {
        pairs += 1;
        if (relation(rank(a, shown[i]!), rank(a, shown[j]!)) !== relation(rank(b, shown[i]!), rank(b, shown[j]!))) differ += 1;
      }
    }
    paired += 1;
    if (differ === 0) identical += 1;
    disagreements.push(pairs === 0 ? 0 : differ / pairs);
  }
  const m = (values: number[]) => (values.length === 0 ? null : values.reduce((x, y) => x + y, 0) / values.length);
  return { paired, identical, pairDisagreement: m(disagreements), firstPositionAdvantage: m(first), lastPositionAdvantage: m(last), allTied, presentations: count };
}
