import { markdownText } from '../../../scoring/formats/text-escape.js';
import type { ReportSection } from '../../../scoring/report/build.js';
import { escapeXml } from '../../../scoring/report/heatmap.js';
import { averageRanks, finitePairs, spearman } from './agreement.js';
import type { Interval } from './bootstrap.js';
import type { PairAgreement } from './judge-agreement.js';

/**
 * The report's "Judges" section (added through the report's extra sections): what the LLM judges
 * and the human raters said, next to the official result — which stays the official rules' result;
 * the judges are other views of the same levels, not part of the score.
 * - per team: the official rank and normalised score, then one column per judge (each rubric judge,
 *   each ordering judge × perspective, each survey metric): the team's mean with its bootstrap 95 %
 *   interval;
 * - agreement per level between the ViT similarity (the official "looks like the letter" number) and
 *   each judge: Spearman's ρ over the levels both scored;
 * - agreement between the judges, and between each judge and the raters: Krippendorff's interval α
 *   on the levels both scored (scales mapped onto 0–1), with its interval;
 * - the levels where the ViT and a judge disagree most: the largest gaps between a level's
 *   percentile rank by similarity and by the judge, with its stability;
 * - what could not be read (files skipped, with their names).
 */
export interface TeamValue {
  mean: number | null;
  interval: Interval | null;
}

export interface JudgeColumn {
  /** `rubric:<judge>`, `order:<judge>:<perspective>`, `survey:<metric>`. */
  name: string;
  /** Digits shown. */
  digits: number;
  teams: ReadonlyMap<string, TeamValue>;
}

export interface JudgedTeam {
  team: string;
  officialRank: number | null;
  officialScore: string | null;
}

export interface JudgedLevelRow {
  team: string;
  letter: string;
  name: string;
  stability?: number | undefined;
  similarity?: number | undefined;
  /** judge name (`rubric:llava_13b`, `order:…`, `survey:looks-like` …) → the level's score. */
  judges: Record<string, number>;
}

export interface JudgesReportInput {
  teams: JudgedTeam[];
  columns: JudgeColumn[];
  levels: JudgedLevelRow[];
  agreement: PairAgreement[];
  warnings: string[];
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
const withInterval = (v: TeamValue | undefined, digits: number) =>
  v?.mean === null || v?.mean === undefined
    ? '–'
    : `${fmt(v.mean, digits)}${v.interval ? ` (${fmt(v.interval.low, digits)}–${fmt(v.interval.high, digits)})` : ''}`;

/** Percentile ranks in [0, 1] (ties share the mean rank); one value → 0.5. */
function percentiles(values: number[]): number[] {
  if (values.length === 1) return [0.5];
  return averageRanks(values).map((r) => (r - 1) / (values.length - 1));
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

interface Table {
  head: string[];
  rows: string[][];
  cls: string;
}

function markdownTable(t: Table): string[] {
  return [
    `| ${t.head.map(markdownText).join(' | ')} |`,
    `| ${t.head.map(() => '---').join(' | ')} |`,
    ...t.rows.map((r) => `| ${r.map(markdownText).join(' | ')} |`),
  ];
}

function htmlTable(t: Table): string {
  return `<table class="${t.cls}"><thead><tr>${t.head.map((h) => `<th>${escapeXml(h)}</th>`).join('')}</tr></thead><tbody>${t.rows.map((r) => `<tr>${r.map((c) => `<td>${escapeXml(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}

function tables(input: JudgesReportInput): Array<{ title: string; text: string; table: Table | undefined; empty?: string }> {
  const top = input.top ?? 5;
  const judges = input.columns.map((c) => c.name);
  const perTeam: Table = {
    head: ['team', 'official rank', 'official score', ...input.columns.map((c) => c.name)],
    rows: input.teams.map((t) => [
      t.team,
      t.officialRank === null ? '–' : String(t.officialRank),
      t.officialScore ?? '–',
      ...input.columns.map((c) => withInterval(c.teams.get(t.team), c.digits)),
    ]),
    cls: 'judges-teams',
  };
  const vit: Table = {
    head: ['judge', 'levels', 'ρ'],
    rows: judges.map((j) => ({ j, ...agreementWithSimilarity(input.levels, j) })).map((a) => [a.j, String(a.n), fmt(a.rho)]),
    cls: 'judges-agreement',
  };
  const alpha: Table = {
    head: ['between', 'and', 'levels', 'statistic', 'value', '95 % interval'],
    rows: input.agreement.map((a) => [
      a.a,
      a.b,
      String(a.units),
      a.statistic === 'alpha' ? 'α' : 'ρ',
      fmt(a.value),
      a.interval ? `${fmt(a.interval.low)}–${fmt(a.interval.high)}` : '–',
    ]),
    cls: 'judges-alpha',
  };
  const cases = judges.flatMap((j) => disagreements(input.levels, j, top));
  const gaps: Table = {
    head: ['judge', 'level', 'similarity', 'judge score', 'similarity pct', 'judge pct', 'stability'],
    rows: cases.map((c) => [
      c.judge,
      c.level.name,
      fmt(c.level.similarity),
      fmt(c.level.judges[c.judge], 2),
      fmt(c.similarityPercentile, 2),
      fmt(c.judgePercentile, 2),
      fmt(c.level.stability),
    ]),
    cls: 'judges-disagreements',
  };
  return [
    {
      title: 'Per team',
      text: "Each judge's mean per team with its bootstrap 95 % interval in parentheses (levels or questions resampled). A level the judge could not score — nothing to show, or no usable answer — counts as the worst score.",
      table: perTeam,
    },
    { title: 'Agreement with the ViT similarity', text: "Spearman's ρ between each level's similarity and the judge's score of the same level.", table: vit },
    {
      title: 'Agreement between judges and raters',
      text: "On the levels both scored (levels missing for both left out): Krippendorff's interval α between sources on one scale, Spearman's ρ between sources on different scales; raters enter as the mean of their ratings of a level.",
      table: input.agreement.length > 0 ? alpha : undefined,
      empty: 'Fewer than two judges or rated metrics: no agreement to compute.',
    },
    {
      title: 'Where the ViT and a judge disagree most',
      text: 'Levels with the largest gap between their percentile by similarity and by the judge (0 = lowest, 1 = highest of the levels both scored).',
      table: cases.length > 0 ? gaps : undefined,
      empty: 'No level was scored by both the ViT and a judge.',
    },
  ];
}

export function buildJudgesSection(input: JudgesReportInput): ReportSection {
  const intro =
    "Other views of the same levels: an LLM judge with a tiered rubric (`sbeval judge rubric`), an LLM ordering the teams' levels (`sbeval judge order`), human raters (`sbeval survey`). They are not part of the score: the ranking above is the official rules' ranking.";
  const md: string[] = [intro];
  const html: string[] = [`<p>${escapeXml(intro)}</p>`];
  for (const part of tables(input)) {
    md.push('', `### ${part.title}`, '', part.text, '');
    html.push(`<h3>${escapeXml(part.title)}</h3>`, `<p>${escapeXml(part.text)}</p>`);
    if (part.table) {
      md.push(...markdownTable(part.table));
      html.push(htmlTable(part.table));
    } else {
      md.push(part.empty ?? '');
      html.push(`<p>${escapeXml(part.empty ?? '')}</p>`);
    }
  }
  if (input.warnings.length > 0) {
    md.push('', '### Not read', '', ...input.warnings.map((w) => `- ${markdownText(w)}`));
    html.push('<h3>Not read</h3>', `<ul>${input.warnings.map((w) => `<li>${escapeXml(w)}</li>`).join('')}</ul>`);
  }
  return { id: 'judges', title: 'Judges', markdown: md.join('\n'), html: html.join('\n') };
}
