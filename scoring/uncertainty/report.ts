/**
 * The report's "Uncertainty of the ranking" section (an extra section, scoring/report/build.ts): the
 * quotable sentence, how the resamples were made, every team's 95 % intervals, the team × rank
 * probabilities as a heat map (HTML) or table (Markdown), and for adjacent ranks how often the upper
 * team stays above and the letters that move their gap. Also the intervals for the ranking chart's bars.
 * Team names are text from folders: escaped for Markdown and HTML.
 */
import { markdownText } from '../formats/text-escape.js';
import type { RankingBar } from '../report/bars.js';
import { htmlTable, mdTable, type ReportSection } from '../report/build.js';
import { escapeXml, heatMapSvg } from '../report/heatmap.js';
import { INTERVALS_FILE, RANK_PROBABILITIES_FILE } from './csv.js';
import { CLEAR_WINNER, INTERVAL_LEVEL, type PairSummary, percent, type UncertaintySummary } from './summary.js';

export interface SectionContext {
  /** Perturbed runs per level when the physics varied too (`--robustness N`), and how many trials had them. */
  physics?: { runs: number; trials: number; simulationTrials: number };
  /** Remarks of the model (e.g. a diversity file its own vectors contradict). */
  notes?: readonly string[];
  /** A model folder's own ranking (2025 layout): that model's label. */
  perModel?: string;
}

/** The ranking chart's bars with their normalised-score intervals. */
export function withIntervals(bars: readonly RankingBar[], summary: UncertaintySummary): RankingBar[] {
  const byTeam = new Map(summary.teams.map((t) => [t.team, t]));
  return bars.map((bar) => {
    const t = byTeam.get(bar.team);
    return t ? { ...bar, interval: { low: t.normLow, high: t.normHigh } } : bar;
  });
}

function fixed(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '–';
}

/** "L 41 % (GridThinkers ahead), S 22 % (BlockSmith ahead)". */
function pairLettersText(pair: PairSummary): string {
  if (pair.letters.length === 0) return 'none (every resample gives the same gap)';
  return pair.letters.map((l) => `${l.label} ${percent(l.share)}${l.leader ? ` (${l.leader} ahead)` : ''}`).join(', ');
}

/** The largest Monte-Carlo error of a normalised interval end, two significant digits. */
function monteCarlo(summary: UncertaintySummary): string {
  const worst = Math.max(0, ...summary.teams.map((t) => t.normMcError).filter(Number.isFinite));
  return worst.toPrecision(2);
}

function method(summary: UncertaintySummary, context: SectionContext): string {
  const physics = context.physics
    ? ` Physics varied too: each drawn trial's stability is the evaluator's best of up to ${context.physics.simulationTrials} runs drawn from its level's ${context.physics.runs} perturbed runs (\`--robustness\`; ${context.physics.trials} trials had them).`
    : '';
  return (
    `${summary.resamples} bootstrap resamples (seed ${summary.seed}): in each, every team × letter redraws its trials from its own trials, with replacement, ` +
    `and the official scoring runs unchanged on the result — weights, diversity recomputed from the drawn trials' vectors, normalisation.${physics} ` +
    'A trial drawn twice counts as a repeated image does in the diversity script (distance 0), and each resampled diversity is multiplied by T/(T−1), which makes it unbiased for the folder’s. ' +
    (context.perModel !== undefined
      ? `These are the resamples of the ranking over all models (every model folder resampled on its own, as there), with model ${context.perModel}'s prompt scores normalised by its own total, as this folder's official files rank them. `
      : '') +
    `Intervals span the middle ${Math.round(INTERVAL_LEVEL * 100)} % of the resamples, widened by √(T/(T−1)) (a bootstrap over T trials has (T−1)/T of their variance) and placed about the official score (the resamples' mean carries the bootstrap's own bias), on the log scale for scores above 0 (their spread grows with their level); each holds by itself. ` +
    `The simultaneous intervals (max-t) hold for all teams at once in ${Math.round(INTERVAL_LEVEL * 100)} % of competitions; the rank sets and the winner's set come from them. ` +
    `Shares of resamples (P(rank 1), P(wins)) are bootstrap proportions, not posterior probabilities; a winner is clear when it wins in at least ${Math.round(CLEAR_WINNER * 100)} % of them. ` +
    `Monte-Carlo error of the interval ends with ${summary.resamples} resamples: up to ${monteCarlo(summary)} normalised points (the files print no digits below it); of a share p, √(p(1−p)/${summary.resamples}). ` +
    `Files: \`result/${INTERVALS_FILE}\`, \`result/${RANK_PROBABILITIES_FILE}\`. The official results are unchanged.`
  );
}

function tables(summary: UncertaintySummary) {
  const ranks = summary.teams.map((_, r) => String(r + 1));
  const intervals = {
    header: [
      'rank',
      'team',
      `normalised score [${Math.round(INTERVAL_LEVEL * 100)} % interval]`,
      'simultaneous interval',
      'rank set',
      'prompt score [interval]',
      'P(rank 1)',
      'P(wins)',
    ],
    rows: summary.teams.map((t) => [
      String(t.rank),
      t.team,
      `${fixed(Number(t.normalizedPromptScore), 2)} [${fixed(t.normLow, 2)}, ${fixed(t.normHigh, 2)}]`,
      `[${fixed(t.jointLow, 2)}, ${fixed(t.jointHigh, 2)}]`,
      t.rankSet[0] === t.rankSet[1] ? String(t.rankSet[0]) : `${t.rankSet[0]}–${t.rankSet[1]}`,
      `${Number(t.promptScore).toPrecision(4)} [${t.low.toPrecision(4)}, ${t.high.toPrecision(4)}]`,
      percent(t.rankProbability[0] ?? 0),
      percent(t.win),
    ]),
  };
  const matrix = { header: ['team', ...ranks.map((r) => `rank ${r}`)], rows: summary.teams.map((t) => [t.team, ...t.rankProbability.map(percent)]) };
  const pairs = {
    header: ['ranks', 'upper', 'lower', 'P(upper scores above)', 'letters that move the gap (share of its spread)'],
    rows: summary.pairs.map((p) => [`${p.aboveRank}–${p.aboveRank + 1}`, p.above, p.below, percent(p.probability), pairLettersText(p)]),
  };
  return { intervals, matrix, pairs };
}

/** The rank-probability matrix as a heat map: one row per team (official order), one column per rank, 0–100 %. */
export function rankHeatMap(summary: UncertaintySummary): string {
  return heatMapSvg({
    metric: 'rank-probability',
    title: 'Probability of each rank over the resamples',
    rows: summary.teams.map((t) => t.team),
    columns: summary.teams.map((_, r) => String(r + 1)),
    values: summary.teams.map((t) => t.rankProbability),
    scale: { min: 0, max: 1 },
    format: percent,
  });
}

export function uncertaintySection(summary: UncertaintySummary, context: SectionContext = {}): ReportSection {
  const t = tables(summary);
  const notes = context.notes ?? [];
  const markdown = [
    `**Ranking uncertainty: ${markdownText(summary.sentence)}.**`,
    '',
    method(summary, context),
    '',
    mdTable(t.intervals),
    '',
    '### Probability of each rank',
    '',
    mdTable(t.matrix),
    ...(t.pairs.rows.length > 0 ? ['', '### Adjacent ranks', '', mdTable(t.pairs)] : []),
    ...(notes.length > 0 ? ['', '### Notes', '', ...notes.map((n) => `- ${markdownText(n)}`)] : []),
  ].join('\n');
  const html = [
    `<p class="uncertainty-sentence"><strong>Ranking uncertainty: ${escapeXml(summary.sentence)}.</strong></p>`,
    `<p>${escapeXml(method(summary, context)).replace(/`([^`]+)`/g, '<code>$1</code>')}</p>`,
    htmlTable(t.intervals, 'score-intervals'),
    '<h3>Probability of each rank</h3>',
    rankHeatMap(summary),
    ...(t.pairs.rows.length > 0 ? ['<h3>Adjacent ranks</h3>', htmlTable(t.pairs, 'adjacent-ranks')] : []),
    ...(notes.length > 0 ? ['<h3>Notes</h3>', `<ul>${notes.map((n) => `<li>${escapeXml(n)}</li>`).join('')}</ul>`] : []),
  ].join('\n');
  return { id: 'uncertainty', title: 'Uncertainty of the ranking', markdown, html };
}
