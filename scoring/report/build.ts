/**
 * The human report of a scoring run: `result/report.md` and a self-contained `result/report.html`
 * (inline CSS and SVG only — no scripts, no fonts, no CDN), built from data as pure functions.
 *
 * Other stages add their own sections (e.g. the orchestrator's failure accounting) through
 * `ReportSection`: a title plus the same content as markdown and as an HTML fragment.
 */
import { plain } from '../score/decimal.js';
import { CHARACTERS } from '../score/rules.js';
import type { ScoreWarning } from '../score/checks.js';
import type { ScoreResult } from '../score/types.js';
import type { WinnerDecision } from '../score/winner.js';
import { escapeXml, heatMapSvg, type HeatMap } from './heatmap.js';

export interface ReportSection {
  /** Anchor id (letters, digits, `-`). */
  id: string;
  title: string;
  markdown: string;
  /** An HTML fragment (trusted: the caller escapes its own data, see `escapeXml`). */
  html: string;
}

export interface ReportTable {
  header: string[];
  rows: string[][];
}

export interface ReportCompetition {
  /** e.g. the model name; empty for a single competition. */
  label: string;
  result: ScoreResult;
}

export interface ReportInput {
  title: string;
  /** Short facts shown first (rules, P, T, competition score, assumptions). */
  facts: string[];
  ranking: ReportTable;
  winners: WinnerDecision;
  competitions: ReportCompetition[];
  warnings: readonly ScoreWarning[];
  sections?: readonly ReportSection[];
}

export interface Report {
  markdown: string;
  html: string;
}

interface Grid {
  metric: string;
  title: string;
  values: number[][];
  max: number;
  format: (v: number) => string;
}

/** The four per-letter grids of one competition (diversity only when the rules use it). */
export function competitionGrids(result: ScoreResult): Grid[] {
  const byCell = new Map(result.characters.map((c) => [`${c.team}\u0000${c.character}`, c]));
  const grid = (pick: (c: ScoreResult['characters'][number]) => number) =>
    result.teams.map((team) => CHARACTERS.map((ch) => {
      const c = byCell.get(`${team}\u0000${ch}`);
      return c ? pick(c) : NaN;
    }));
  const fixed = (v: number) => v.toFixed(4);
  const grids: Grid[] = [
    { metric: 'stability', title: 'Stability (mean over trials)', values: grid((c) => Number(plain(c.averageStability))), max: 1, format: fixed },
    { metric: 'similarity', title: 'Similarity (mean target probability over trials)', values: grid((c) => Number(plain(c.averageSimilarity))), max: 1, format: fixed },
  ];
  if (result.rules.diversity) grids.push({ metric: 'diversity', title: 'Diversity (diversityRate)', values: grid((c) => Number(plain(c.diversity))), max: 1, format: fixed });
  const scores = grid((c) => Number(plain(c.characterScore)));
  const max = Math.max(0, ...scores.flat().filter(Number.isFinite));
  grids.push({ metric: 'character-score', title: `Character score (darkest = ${max.toPrecision(4)})`, values: scores, max, format: (v) => v.toPrecision(4) });
  return grids;
}

function mdEscape(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function mdTable(table: ReportTable): string {
  const line = (cells: string[]) => `| ${cells.map(mdEscape).join(' | ')} |`;
  return [line(table.header), `| ${table.header.map(() => '---').join(' | ')} |`, ...table.rows.map(line)].join('\n');
}

function htmlTable(table: ReportTable, className: string): string {
  const head = `<tr>${table.header.map((h) => `<th>${escapeXml(h)}</th>`).join('')}</tr>`;
  const body = table.rows.map((row) => `<tr>${row.map((c) => `<td>${escapeXml(c)}</td>`).join('')}</tr>`).join('\n');
  return `<table class="${className}">\n<thead>${head}</thead>\n<tbody>\n${body}\n</tbody>\n</table>`;
}

function warningText(w: ScoreWarning): string {
  return w.file && !w.message.includes(w.file) ? `${w.file}: ${w.message}` : w.message;
}

function winnerLines(winners: WinnerDecision): string[] {
  const head = winners.winners.length === 0 ? 'No winner.' : winners.winners.length === 1 ? `Winner: ${winners.winners[0]}.` : `Co-winners: ${winners.winners.join(', ')}.`;
  return [head, ...winners.notes];
}

function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').toLowerCase() || 'x';
}

export function buildReport(input: ReportInput): Report {
  const sections = input.sections ?? [];
  const md: string[] = [`# ${input.title}`, '', ...input.facts.map((f) => `- ${f}`), '', '## Winner', '', ...winnerLines(input.winners).map((l) => `- ${l}`), '', '## Ranking', '', mdTable(input.ranking), '', '## Warnings', ''];
  if (input.warnings.length === 0) md.push('None: every file was read and consistent.');
  else md.push(...input.warnings.map((w) => `- \`${w.code}\` ${warningText(w)}`));
  for (const competition of input.competitions) {
    const suffix = competition.label ? ` — ${competition.label}` : '';
    md.push('', `## Per letter${suffix}`, '');
    for (const grid of competitionGrids(competition.result)) {
      md.push(`### ${grid.title}`, '');
      md.push(
        mdTable({
          header: ['team', ...CHARACTERS],
          rows: competition.result.teams.map((team, i) => [team, ...(grid.values[i] ?? []).map((v) => (Number.isFinite(v) ? (grid.metric === 'character-score' ? v.toPrecision(2) : v.toFixed(2)) : '–'))]),
        }),
        '',
      );
    }
  }
  for (const section of sections) md.push('', `## ${section.title}`, '', section.markdown.trimEnd());
  const markdown = `${md.join('\n').trimEnd()}\n`;

  const html: string[] = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<title>${escapeXml(input.title)}</title>`,
    '<style>',
    'body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#111;max-width:1200px}',
    'table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}',
    'th{background:#f0f0f0}td{font-variant-numeric:tabular-nums}',
    '.heatmap{display:block;margin:6px 0 18px}.heatmap text{font-size:12px;fill:#222}',
    '.warnings li{margin:2px 0}.warnings code{background:#fff3cd;padding:0 4px}',
    '</style>',
    '</head>',
    '<body>',
    `<h1>${escapeXml(input.title)}</h1>`,
    `<ul class="facts">${input.facts.map((f) => `<li>${escapeXml(f)}</li>`).join('')}</ul>`,
    '<h2 id="winner">Winner</h2>',
    `<ul class="winner">${winnerLines(input.winners).map((l) => `<li>${escapeXml(l)}</li>`).join('')}</ul>`,
    '<h2 id="ranking">Ranking</h2>',
    htmlTable(input.ranking, 'ranking'),
    '<h2 id="warnings">Warnings</h2>',
    input.warnings.length === 0
      ? '<p class="warnings">None: every file was read and consistent.</p>'
      : `<ul class="warnings">${input.warnings.map((w) => `<li><code>${escapeXml(w.code)}</code> ${escapeXml(warningText(w))}</li>`).join('\n')}</ul>`,
  ];
  for (const competition of input.competitions) {
    const suffix = competition.label ? ` — ${competition.label}` : '';
    html.push(`<section class="competition" data-competition="${escapeXml(competition.label)}">`, `<h2 id="letters-${slug(competition.label)}">Per letter${escapeXml(suffix)}</h2>`);
    for (const grid of competitionGrids(competition.result)) {
      const map: HeatMap = { metric: grid.metric, title: grid.title, rows: competition.result.teams, columns: CHARACTERS, values: grid.values, max: grid.max, format: grid.format };
      html.push(`<h3>${escapeXml(grid.title)}</h3>`, heatMapSvg(map));
    }
    html.push('</section>');
  }
  for (const section of sections) html.push(`<section class="extra" id="${slug(section.id)}">`, `<h2>${escapeXml(section.title)}</h2>`, section.html, '</section>');
  html.push('</body>', '</html>', '');
  return { markdown, html: html.join('\n') };
}
