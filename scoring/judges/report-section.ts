import { escapeXml } from '../report/heatmap.js';
import type { ReportSection } from '../report/build.js';
import { averageRanks, finitePairs, spearman } from './agreement.js';
import { markdownText } from '../formats/text-escape.js';

/**
 * The report's "Judges" section (added through the report's extra sections): what the LLM judges
 * and the human raters said, next to the official result — which stays the official rules' result;
 * the judges are other views of the same levels, not part of the score.
 * - per team: the official rank and normalised score, the rubric judge's mean score, each ordering
 *   perspective's mean score (10 / 7.5 / 5 / 2.5) and mean rank, each survey metric's mean rating;
 * - agreement per level between the ViT similarity (the official "looks like the letter" number) and
 *   each judge: Spearman's ρ over the levels both scored;
 * - the levels where the ViT and a judge disagree most: the largest gaps between a level's
 *   percentile rank by similarity and by the judge, with its stability, so a level the ViT likes and
 *   the judge does not (or the reverse) can be looked at — often one that collapsed into a shape the
 *   classifier still reads as the letter.
 */
export interface JudgedTeam {
  team: string;
  officialRank: number | null;
  officialScore: string | null;
  rubric: number | null;
  /** perspective → mean score and mean rank. */
  order: Record<string, { score: number | null; rank: number | null }>;
  /** metric id → mean rating. */
  survey: Record<string, number | null>;
}

export interface JudgedLevelRow {
  team: string;
  letter: string;
  name: string;
  stability?: number | undefined;
  similarity?: number | undefined;
  /** judge name (`rubric`, `order:general`, `survey:looks-like` …) → the level's score. */
  judges: Record<string, number>;
}

export interface JudgesReportInput {
  teams: JudgedTeam[];
  levels: JudgedLevelRow[];
  perspectives: string[];
  surveyMetrics: string[];
  /** How many disagreements to list per judge. */
  top?: number;
}

export interface Disagreement {
  judge: string;
  level: JudgedLevelRow;
  similarityPercentile: number;
  judgePercentile: number;
  gap: number;
}

const fmt = (v: number | null | undefined, digits = 3) => (v === null || v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(digits));

/** Percentile ranks in [0, 1] (ties share the mean rank); one value → 0.5. */
function percentiles(values: number[]): number[] {
  if (values.length === 1) return [0.5];
  return averageRanks(values).map((r) => (r - 1) / (values.length - 1));
}

export function judgeNames(input: Pick<JudgesReportInput, 'perspectives' | 'surveyMetrics'>, levels: readonly JudgedLevelRow[]): string[] {
  const names = new Set<string>();
  for (const l of levels) for (const k of Object.keys(l.judges)) names.add(k);
  const order = ['rubric', ...input.perspectives.map((p) => `order:${p}`), ...input.surveyMetrics.map((m) => `survey:${m}`)];
  return [...order.filter((n) => names.has(n)), ...[...names].filter((n) => !order.includes(n)).sort()];
}

export function agreementWithSimilarity(levels: readonly JudgedLevelRow[], judge: string): { n: number; rho: number | null } {
  const { x, y } = finitePairs(levels.map((l) => [l.similarity, l.judges[judge]] as const));
  return { n: x.length, rho: x.length >= 3 ? spearman(x, y) : null };
}

export function disagreements(levels: readonly JudgedLevelRow[], judge: string, top: number): Disagreement[] {
  const both = levels.filter((l) => typeof l.similarity === 'number' && Number.isFinite(l.similarity) && typeof l.judges[judge] === 'number');
  if (both.length < 2) return [];
  const sim = percentiles(both.map((l) => l.similarity!));
  const jud = percentiles(both.map((l) => l.judges[judge]!));
  return both
    .map((level, i) => ({ judge, level, similarityPercentile: sim[i]!, judgePercentile: jud[i]!, gap: Math.abs(sim[i]! - jud[i]!) }))
    .filter((d) => d.gap > 0)
    .sort((a, b) => b.gap - a.gap || (a.level.name < b.level.name ? -1 : 1))
    .slice(0, top);
}

export function buildJudgesSection(input: JudgesReportInput): ReportSection {
  const top = input.top ?? 5;
  const judges = judgeNames(input, input.levels);
  const header = ['team', 'official rank', 'official score', 'rubric (0–100)', ...input.perspectives.flatMap((p) => [`order ${p} score`, `order ${p} rank`]), ...input.surveyMetrics.map((m) => `survey ${m}`)];
  const rows = input.teams.map((t) => [
    t.team,
    t.officialRank === null ? '–' : String(t.officialRank),
    t.officialScore ?? '–',
    fmt(t.rubric, 1),
    ...input.perspectives.flatMap((p) => [fmt(t.order[p]?.score), fmt(t.order[p]?.rank)]),
    ...input.surveyMetrics.map((m) => fmt(t.survey[m], 2)),
  ]);
  const agreement = judges.map((j) => ({ judge: j, ...agreementWithSimilarity(input.levels, j) }));
  const cases = judges.flatMap((j) => disagreements(input.levels, j, top));

  const intro =
    'Other views of the same levels: an LLM judge with a tiered rubric (`sbeval judge rubric`), an LLM ordering the teams\' levels (`sbeval judge order`), human raters (`sbeval survey`). They are not part of the score: the ranking above is the official rules\' ranking.';
  const md: string[] = [intro, '', '### Per team', '', `| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.map(markdownText).join(' | ')} |`)];
  md.push('', '### Agreement with the ViT similarity', '', "Spearman's ρ between each level's similarity and the judge's score of the same level.", '', '| judge | levels | ρ |', '| --- | --- | --- |', ...agreement.map((a) => `| ${a.judge} | ${a.n} | ${fmt(a.rho)} |`));
  md.push('', '### Where the ViT and a judge disagree most', '', 'Levels with the largest gap between their percentile by similarity and by the judge (0 = lowest, 1 = highest of the levels both scored).', '');
  if (cases.length === 0) md.push('No level was scored by both the ViT and a judge.');
  else md.push('| judge | level | similarity | judge score | similarity pct | judge pct | stability |', '| --- | --- | --- | --- | --- | --- | --- |', ...cases.map((c) => `| ${c.judge} | ${markdownText(c.level.name)} | ${fmt(c.level.similarity)} | ${fmt(c.level.judges[c.judge], 2)} | ${fmt(c.similarityPercentile, 2)} | ${fmt(c.judgePercentile, 2)} | ${fmt(c.level.stability)} |`));

  const table = (head: string[], body: string[][], cls: string) =>
    `<table class="${cls}"><thead><tr>${head.map((h) => `<th>${escapeXml(h)}</th>`).join('')}</tr></thead><tbody>${body.map((r) => `<tr>${r.map((c) => `<td>${escapeXml(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
  const html = [
    `<p>${escapeXml(intro)}</p>`,
    '<h3>Per team</h3>',
    table(header, rows, 'judges-teams'),
    '<h3>Agreement with the ViT similarity</h3>',
    "<p>Spearman's ρ between each level's similarity and the judge's score of the same level.</p>",
    table(['judge', 'levels', 'ρ'], agreement.map((a) => [a.judge, String(a.n), fmt(a.rho)]), 'judges-agreement'),
    '<h3>Where the ViT and a judge disagree most</h3>',
    cases.length === 0
      ? '<p>No level was scored by both the ViT and a judge.</p>'
      : table(
          ['judge', 'level', 'similarity', 'judge score', 'similarity pct', 'judge pct', 'stability'],
          cases.map((c) => [c.judge, c.level.name, fmt(c.level.similarity), fmt(c.level.judges[c.judge], 2), fmt(c.similarityPercentile, 2), fmt(c.judgePercentile, 2), fmt(c.level.stability)]),
          'judges-disagreements',
        ),
  ].join('\n');
  return { id: 'judges', title: 'Judges', markdown: md.join('\n'), html };
}
