/**
 * The bootstrap's two result files (sbeval's own, beside the official ones, which they do not change):
 * - `score_intervals.csv`: `team,promptScore,low,high,normalizedPromptScore,normLow,normHigh`, one row
 *   per team in official rank order; `promptScore` and `normalizedPromptScore` are the official exact
 *   values as `prompt_scores_ranks.csv` prints them, the bounds the 95 % intervals (summary.ts), each
 *   rounded to the decimal place of its Monte-Carlo standard error (digits the resamples do not
 *   determine are not printed; more resamples, more digits);
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

/** A double in plain notation rounded to the decimal place of `error` (10 significant digits at most; no exponent, no trailing zeros). */
function formatBound(value: number, error: number): string {
  if (!Number.isFinite(value)) return '';
  if (value === 0) return '0';
  const precise = new Decimal(value.toPrecision(10));
  if (!(error > 0)) return precise.toFixed();
  const places = Math.max(0, -Math.floor(Math.log10(error)));
  return new Decimal(precise.toFixed(Math.min(places, 20))).toFixed();
}

/** A share rounded to 6 decimals, plain notation. */
function formatShare(share: number): string {
  return new Decimal(share.toFixed(6)).toFixed();
}

export function intervalsCsv(summary: UncertaintySummary, eol = '\n'): string {
  return csvText(
    [
      [...INTERVAL_COLUMNS],
      ...summary.teams.map((t) => [
        t.team,
        t.promptScore,
        formatBound(t.low, t.mcError),
        formatBound(t.high, t.mcError),
        t.normalizedPromptScore,
        formatBound(t.normLow, t.normMcError),
        formatBound(t.normHigh, t.normMcError),
      ]),
    ],
    eol,
  );
}

export function rankProbabilitiesCsv(summary: UncertaintySummary, eol = '\n'): string {
  return csvText([[...RANK_COLUMNS], ...summary.teams.flatMap((t) => t.rankProbability.map((p, r) => [t.team, String(r + 1), formatShare(p)]))], eol);
}
