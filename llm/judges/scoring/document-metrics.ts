import { bootstrapInterval, type Interval } from './bootstrap.js';
import { type RankScores, rankScore } from './order.js';

/**
 * The ordering judge's figures under the document's protocol (`--protocol document`), computed the way
 * the document's published compute script computes them from `review.jsonl` (facts of that script,
 * reference/judges/ordering-judge.md): one review per question, every review listing the same models
 * in the same order, the reference first; a review whose `order` holds -1 (the judge's answer never
 * parsed) adds nothing to any sum but still counts in every denominator N (the number of questions);
 * per model, the mean rank and mean score are sums over N, win / tie / lose compares the review's
 * ranks of the reference and the model, "%model" of winning is wins / N, and "%model" of score is the
 * model's score sum over the reference's. Scores: `table` or `reciprocal` (order.ts; the script and
 * the document's worked example use 10 / rank).
 */
export interface DocumentReview {
  /** Ranks per model, in the fixed model order (reference first); undefined when refused. */
  ranks: number[] | undefined;
}

export interface DocumentTeam {
  team: string;
  /** N: every question, refused ones included. */
  questions: number;
  meanRank: number;
  meanScore: number;
  scoreInterval: Interval | null;
}

export interface DocumentVersus {
  team: string;
  referenceWins: number;
  ties: number;
  teamWins: number;
  winShare: number;
  scoreRatio: number | null;
  winShareInterval: Interval | null;
  scoreRatioInterval: Interval | null;
}

export interface DocumentMetrics {
  teams: DocumentTeam[];
  /** Per non-reference team, against the reference (empty without one). */
  versus: DocumentVersus[];
  metric: Record<string, unknown>;
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

export function documentMetrics(
  reviews: readonly DocumentReview[],
  models: readonly string[],
  hasReference: boolean,
  scale: RankScores,
  seed = 0,
): DocumentMetrics {
  const n = reviews.length;
  // Per review and model: the rank and score it adds to the sums (0 for a refused review).
  const rankAt = (r: DocumentReview, m: number) => (r.ranks ? r.ranks[m]! : 0);
  const scoreAt = (r: DocumentReview, m: number) => (r.ranks ? rankScore(r.ranks[m]!, scale) : 0);
  const meanOver = (sample: readonly number[], f: (r: DocumentReview) => number) => sum(sample.map((i) => f(reviews[i]!))) / sample.length;
  const teams: DocumentTeam[] = models.map((team, m) => ({
    team,
    questions: n,
    meanRank: n === 0 ? NaN : sum(reviews.map((r) => rankAt(r, m))) / n,
    meanScore: n === 0 ? NaN : sum(reviews.map((r) => scoreAt(r, m))) / n,
    scoreInterval: bootstrapInterval(n, (s) => meanOver(s, (r) => scoreAt(r, m)), { seed }),
  }));
  const versus: DocumentVersus[] = [];
  const metric: Record<string, unknown> = {};
  if (!hasReference) {
    for (const t of teams) metric[t.team] = { order: t.meanRank, score: t.meanScore };
    return { teams, versus, metric };
  }
  const reference = models[0]!;
  for (let m = 1; m < models.length; m += 1) {
    const outcome = reviews.map((r) => (r.ranks ? Math.sign(r.ranks[m]! - r.ranks[0]!) : undefined));
    const refSum = sum(reviews.map((r) => scoreAt(r, 0)));
    const teamSum = sum(reviews.map((r) => scoreAt(r, m)));
    const ratio = (s: readonly number[]) => {
      const ref = sum(s.map((i) => scoreAt(reviews[i]!, 0)));
      return ref > 0 ? sum(s.map((i) => scoreAt(reviews[i]!, m))) / ref : null;
    };
    const v: DocumentVersus = {
      team: models[m]!,
      referenceWins: outcome.filter((o) => o === 1).length,
      ties: outcome.filter((o) => o === 0).length,
      teamWins: outcome.filter((o) => o === -1).length,
      winShare: n === 0 ? NaN : outcome.filter((o) => o === -1).length / n,
      scoreRatio: refSum > 0 ? teamSum / refSum : null,
      winShareInterval: bootstrapInterval(n, (s) => s.filter((i) => outcome[i] === -1).length / s.length, { seed }),
      scoreRatioInterval: bootstrapInterval(n, ratio, { seed }),
    };
    versus.push(v);
    metric[v.team] = {
      winning: { [reference]: v.referenceWins, tie: v.ties, model: v.teamWins, '%model': v.winShare },
      order: { [reference]: teams[0]!.meanRank, model: teams[m]!.meanRank },
      score: { [reference]: teams[0]!.meanScore, model: teams[m]!.meanScore, '%model': v.scoreRatio },
    };
  }
  return { teams, versus, metric };
}
