/**
 * The bootstrap's two result files (sbeval's own, beside the official ones, which they do not change):
 * - `score_intervals.csv`: `team,promptScore,low,high,normalizedPromptScore,normLow,normHigh`, one row
 *   per team in official rank order; `promptScore` and `normalizedPromptScore` are the official exact
 *   values as `prompt_scores_ranks.csv` prints them, the bounds are the resamples' 2.5 % and 97.5 %
 *   quantiles (doubles, 10 significant digits);
 * - `rank_probabilities.csv`: `team,rank,probability`, one row per team × rank (P² rows), in official
 *   rank order then rank; the share of resamples, rounded to 6 decimals.
 * RFC 4180 cells, team names neutralised against spreadsheet formulas (scoring/formats/text-escape.ts).
 */
import { csvText } from '../formats/text-escape.js';
import { Decimal } from '../score/decimal.js';
import type { UncertaintySummary } from './summary.js';

export const INTERVALS_FILE = 'score_intervals.csv';
export const RANK_PROBABILITIES_FILE = 'rank_probabilities.csv';
const INTERVAL_COLUMNS = ['team', 'promptScore', 'low', 'high', 'normalizedPromptScore', 'normLow', 'normHigh'] as const;
const RANK_COLUMNS = ['team', 'rank', 'probability'] as const;

/** A double in plain notation with 10 significant digits (no exponent, no trailing zeros). */
function formatBound(value: number): string {
  if (!Number.isFinite(value)) return '';
  return value === 0 ? '0' : new Decimal(value.toPrecision(10)).toFixed();
}

/** A share rounded to 6 decimals, plain notation. */
function formatShare(share: number): string {
  return new Decimal(share.toFixed(6)).toFixed();
}

export function intervalsCsv(summary: UncertaintySummary, eol = '\n'): string {
  return csvText(
    [[...INTERVAL_COLUMNS], ...summary.teams.map((t) => [t.team, t.promptScore, formatBound(t.low), formatBound(t.high), t.normalizedPromptScore, formatBound(t.normLow), formatBound(t.normHigh)])],
    eol,
  );
}

export function rankProbabilitiesCsv(summary: UncertaintySummary, eol = '\n'): string {
  return csvText([[...RANK_COLUMNS], ...summary.teams.flatMap((t) => t.rankProbability.map((p, r) => [t.team, String(r + 1), formatShare(p)]))], eol);
}
