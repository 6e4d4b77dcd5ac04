/**
 * The official result files as text (scoring-and-ranking-script `outputToFiles`):
 * - CSVs through json2csv's defaults: every header and string value in double quotes (`"` doubled),
 *   numbers bare, `,` separator, rows joined by the line end, no line end after the last row. The
 *   published 2024 files use CRLF throughout; of the 2023 files, trial_scores.csv uses LF and
 *   character_scores.csv CRLF, so the line end is a parameter.
 * - constants.json: 2024 `JSON.stringify` (compact, all numbers as strings); the published 2023 file is
 *   a Python `json.dumps` with float weights under `stabilityWeight`/`similarityWeight`.
 */
import { formatPythonFloat, pythonJsonString } from '../formats/python-json.js';
import { neutralizeFormula } from '../formats/text-escape.js';
import { plain } from './decimal.js';
import type { ScoreResult } from './types.js';

export type Eol = '\n' | '\r\n';
export type CsvCell = string | number;

/**
 * json2csv's cell: numbers bare, text quoted. Text that a spreadsheet would run as a formula (a team
 * named `=HYPERLINK(…)`) gets a leading `'` first (scoring/formats/text-escape.ts); score columns are
 * numbers and ordinary names are untouched, so the files stay byte-identical to the official ones.
 */
function csvCell(value: CsvCell): string {
  if (typeof value === 'number') return String(value);
  return `"${neutralizeFormula(value).replace(/"/g, '""')}"`;
}

/** json2csv with default options over rows that share the first row's keys. */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvCell[])[], eol: Eol): string {
  return [header.map(csvCell).join(','), ...rows.map((row) => row.map(csvCell).join(','))].join(eol);
}

export function trialScoresCsv(result: ScoreResult, eol: Eol): string {
  const withDiversity = result.rules.diversity;
  const header = ['teamName', 'character', 'trial', result.rules.trialScoreHeader, 'stabilityScore', 'similarityScore'];
  if (withDiversity) header.push('diversityScore');
  const rows = result.trials.map((t) => {
    const row: CsvCell[] = [t.team, t.character, t.trial, plain(t.trialScore), plain(t.stability), plain(t.similarity)];
    if (withDiversity) row.push(plain(t.diversity));
    return row;
  });
  return toCsv(header, rows, eol);
}

export function characterScoresCsv(result: ScoreResult, eol: Eol): string {
  const withDiversity = result.rules.diversity;
  const header = ['teamName', 'character', 'characterScore', 'nonWeightedAverageStabilityScore', 'nonWeightedAverageSimilarityScore'];
  if (withDiversity) header.push('diversityScore');
  const rows = result.characters.map((c) => {
    const row: CsvCell[] = [c.team, c.character, plain(c.characterScore), plain(c.averageStability), plain(c.averageSimilarity)];
    if (withDiversity) row.push(plain(c.diversity));
    return row;
  });
  return toCsv(header, rows, eol);
}

export function promptScoresRanksCsv(result: Pick<ScoreResult, 'ranking'>, eol: Eol): string {
  const rows = result.ranking.map((r) => [r.team, plain(r.normalizedPromptScore), plain(r.promptScore), r.rank]);
  return toCsv(['team', 'normalizedPromptScore', 'promptScore', 'rank'], rows, eol);
}

export function constantsJson(result: ScoreResult): string {
  if (result.rules.constants === 'python-floats-2023') {
    // json.dumps default separators (", " and ": "); the weights as Python floats of the exact values.
    const weights = result.weights.map(
      (w) =>
        `{"character": ${pythonJsonString(w.character)}, "weight": ${formatPythonFloat(Number(plain(w.weight)))}, ` +
        `"stabilityWeight": ${formatPythonFloat(Number(plain(w.weightStability)))}, "similarityWeight": ${formatPythonFloat(Number(plain(w.weightSimilarity)))}}`,
    );
    return `{"competitionScore": ${pythonJsonString(plain(result.competitionScore))}, "weights": [${weights.join(', ')}]}`;
  }
  return JSON.stringify({
    competitionScore: plain(result.competitionScore),
    weights: result.weights.map((w) => ({
      character: w.character,
      weight: plain(w.weight),
      weightStability: plain(w.weightStability),
      weightSimilarity: plain(w.weightSimilarity),
      weightDiversity: plain(w.weightDiversity),
    })),
  });
}
