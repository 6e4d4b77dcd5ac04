/**
 * The human report of a scoring run: `result/report.md` and a self-contained `result/report.html`
 * (inline CSS, SVG and `data:` images only — no scripts, no fonts, no CDN: it opens offline and from
 * an e-mail attachment), built from data as pure functions.
 *
 * What it shows, in order: the facts (rules, P, T, competition score), the winner, the ranking as a
 * bar chart, the levels at a glance (best trial per team × letter; one table per competition: one, or
 * one per model under the 2025 rules), the exact scores table, the warnings; per competition heat maps
 * per metric (each on its own colour scale; missing data hatched) and every trial by letter; then the
 * extra sections other stages add; last the settings and software versions the results came from.
 *
 * Extra sections: other stages add their own (`ReportSection`: an id, a title, and the same content as
 * markdown and as an HTML fragment), e.g. the run's failure accounting, judges, fragile verdicts.
 * They appear after the per-letter parts, in the order given, each listed in the contents. The HTML
 * fragment is trusted: its author escapes its own data (`escapeXml`) and must keep the page
 * self-contained (no scripts, no external URLs).
 */

import { markdownText } from '../formats/text-escape.js';
import type { ScoreWarning } from '../score/checks.js';
import { plain } from '../score/decimal.js';
import { CHARACTERS } from '../score/rules.js';
import type { CharacterInput, ScoreInput, ScoreResult } from '../score/types.js';
import type { WinnerDecision } from '../score/winner.js';
import { type RankingBar, rankingBarsSvg } from './bars.js';
import { GALLERY_HELP, type Gallery, galleryLettersHtml, galleryMarkdown, galleryOverviewHtml } from './gallery.js';
import { compactNumber, escapeXml, type HeatMap, heatMapSvg, scaleOf } from './heatmap.js';
import { AVERAGE_NAMES } from './names.js';

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

/** One line of the settings or versions table. */
export interface ReportFact {
  name: string;
  value: string;
}

export interface ReportCompetition {
  /** e.g. the model name; empty for a single competition. */
  label: string;
  /** The scores; absent when there are none (no similarity model): the pictures are still shown. */
  result?: ScoreResult;
  /** What the scoring read: a cell whose file is missing is drawn as "no data", not as a real 0. */
  input?: ScoreInput;
  /** Every trial with its thumbnail (orchestrator/report/gallery.ts). */
  gallery?: Gallery;
  /**
   * The competition's letters (the configured characters): the per-letter maps and tables show these
   * and the letters with data or trials, no others (a 5-letter competition draws 5, not 26 with 21 hatched).
   */
  letters?: readonly string[];
}

export interface ReportInput {
  title: string;
  /** Short facts shown first (rules, P, T, competition score, assumptions). */
  facts: string[];
  ranking?: ReportTable;
  /** The ranking chart's bars in rank order (see `rankingBars`). */
  rankingBars?: readonly RankingBar[];
  winners?: WinnerDecision;
  competitions: ReportCompetition[];
  warnings: readonly ScoreWarning[];
  /** The settings the results were computed with (rules, T, engine, model, …). */
  settings?: readonly ReportFact[];
  /** Software versions (sbeval, Node, physics and inference libraries, the model file). */
  versions?: readonly ReportFact[];
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
  /** No file behind the cell (the score counted it as 0). */
  missing: boolean[][];
  format: (v: number) => string;
}

type Metric = 'stability' | 'similarity' | 'diversity';

function hasData(c: CharacterInput | undefined, metric: Metric): boolean {
  if (!c) return false;
  return metric === 'diversity' ? c.diversityRate !== undefined : c[metric] !== undefined;
}

/**
 * The letters a competition's per-letter parts show, A–Z order: the given ones (the configured
 * characters) and every letter with a result file or a trial, so no letter that counts is hidden.
 */
function competitionLetters(competition: ReportCompetition): string[] {
  const found = new Set<string>(competition.letters ?? []);
  for (const cells of competition.input?.inputs.values() ?? []) for (const letter of cells.keys()) found.add(letter);
  for (const trial of competition.gallery?.trials ?? []) found.add(trial.letter);
  return CHARACTERS.filter((c) => found.has(c));
}

/** "Letters of this competition: I, L, O, T, U; the prompt score divides by 26, so the 21 others count 0." */
function lettersNote(letters: readonly string[]): string | undefined {
  if (letters.length === CHARACTERS.length) return undefined;
  const others = CHARACTERS.length - letters.length;
  return `Letters of this competition: ${letters.join(', ') || 'none'}. The prompt score divides by ${CHARACTERS.length} (the official scoring), so each of the ${others} other letters counts 0.`;
}

/**
 * The per-letter grids of one competition over `letters` (default A–Z; diversity only when the rules
 * use it). With the scoring's input, cells whose file was missing or unreadable are marked missing;
 * the character score is missing when none of its files was there.
 */
export function competitionGrids(result: ScoreResult, input?: ScoreInput, letters: readonly string[] = CHARACTERS): Grid[] {
  const byCell = new Map(result.characters.map((c) => [`${c.team}\u0000${c.character}`, c]));
  const grid = (pick: (c: ScoreResult['characters'][number]) => number) =>
    result.teams.map((team) =>
      letters.map((ch) => {
        const c = byCell.get(`${team}\u0000${ch}`);
        return c ? pick(c) : NaN;
      }),
    );
  const metrics: Metric[] = result.rules.diversity ? ['stability', 'similarity', 'diversity'] : ['stability', 'similarity'];
  const missing = (which: readonly Metric[]) =>
    result.teams.map((team) => letters.map((ch) => (input ? !which.some((m) => hasData(input.inputs.get(team)?.get(ch), m)) : false)));
  const fixed = (v: number) => (v !== 0 && Math.abs(v) < 0.001 ? v.toExponential(3) : v.toFixed(4));
  const grids: Grid[] = [
    {
      metric: 'stability',
      title: `Stability: ${AVERAGE_NAMES.stability.name} = ${AVERAGE_NAMES.stability.definition}`,
      values: grid((c) => Number(plain(c.averageStability))),
      missing: missing(['stability']),
      format: fixed,
    },
    {
      metric: 'similarity',
      title: `Similarity: ${AVERAGE_NAMES.similarity.name} = ${AVERAGE_NAMES.similarity.definition}`,
      values: grid((c) => Number(plain(c.averageSimilarity))),
      missing: missing(['similarity']),
      format: fixed,
    },
  ];
  if (result.rules.diversity)
    grids.push({
      metric: 'diversity',
      title: 'Diversity (diversityRate)',
      values: grid((c) => Number(plain(c.diversity))),
      missing: missing(['diversity']),
      format: fixed,
    });
  grids.push({
    metric: 'character-score',
    title: 'Character score',
    values: grid((c) => Number(plain(c.characterScore))),
    missing: missing(metrics),
    format: (v) => v.toPrecision(4),
  });
  return grids;
}

/** The ranking chart's bars from ranked rows: value = normalised prompt score, label = it rounded. */
export function rankingBars(
  rows: ReadonlyArray<{ team: string; rank: number; normalizedPromptScore: string; role: RankingBar['role']; segments?: RankingBar['segments'] }>,
  winners: readonly string[],
): RankingBar[] {
  return rows.map((r) => {
    const value = Number(r.normalizedPromptScore);
    return {
      team: r.team,
      rank: r.rank,
      value,
      label: Number.isFinite(value) ? value.toFixed(2) : r.normalizedPromptScore,
      role: r.role,
      winner: winners.includes(r.team),
      ...(r.segments ? { segments: r.segments } : {}),
    };
  });
}

/** Cells are text (team names from folders): Markdown and HTML in them stay text (scoring/formats/text-escape.ts). */
function mdEscape(text: string): string {
  return markdownText(text);
}

/** A Markdown table; cells are text (escaped). */
export function mdTable(table: ReportTable): string {
  const line = (cells: string[]) => `| ${cells.map(mdEscape).join(' | ')} |`;
  return [line(table.header), `| ${table.header.map(() => '---').join(' | ')} |`, ...table.rows.map(line)].join('\n');
}

/** An HTML table; cells are text (escaped). */
export function htmlTable(table: ReportTable, className: string): string {
  const head = `<tr>${table.header.map((h) => `<th>${escapeXml(h)}</th>`).join('')}</tr>`;
  const body = table.rows.map((row) => `<tr>${row.map((c) => `<td>${escapeXml(c)}</td>`).join('')}</tr>`).join('\n');
  return `<table class="${className}">\n<thead>${head}</thead>\n<tbody>\n${body}\n</tbody>\n</table>`;
}

function warningText(w: ScoreWarning): string {
  return w.file && !w.message.includes(w.file) ? `${w.file}: ${w.message}` : w.message;
}

function winnerLines(winners: WinnerDecision): string[] {
  const head =
    winners.winners.length === 0
      ? 'No winner.'
      : winners.winners.length === 1
        ? `Winner: ${winners.winners[0]}.`
        : `Co-winners: ${winners.winners.join(', ')}.`;
  return [head, ...winners.notes];
}

function slug(text: string): string {
  return (
    text
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .toLowerCase() || 'x'
  );
}

const STYLE = [
  'body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#111;max-width:1240px}',
  'h2{margin-top:32px;border-bottom:1px solid #ddd;padding-bottom:2px}',
  'nav.contents{font-size:13px;margin:8px 0 16px}nav.contents a{margin-right:12px;white-space:nowrap}',
  'table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}',
  'th{background:#f0f0f0}td{font-variant-numeric:tabular-nums}',
  '.heatmap,.ranking-bars{display:block;margin:6px 0 18px;max-width:100%;height:auto}',
  '.heatmap text,.ranking-bars text{font-size:12px}.heatmap text.cell-value{font-size:10px}',
  '.warnings li{margin:2px 0}.warnings code{background:#fff3cd;padding:0 4px}',
  '.gallery-help{color:#444;max-width:900px}',
  'table.gallery-overview td,table.gallery-overview th{padding:2px;text-align:center;vertical-align:top;font-size:11px}',
  'table.gallery-overview th.team{text-align:right;padding-right:6px;font-size:12px}',
  'table.gallery-overview img{display:block;width:40px;height:40px;margin:0 auto;background:#fff}',
  'table.gallery-overview .count{display:block;color:#666}',
  '.blank-small{display:block;width:40px;height:40px;line-height:40px;margin:0 auto;color:#c62828;background:#fbeaea}',
  '.team-row{display:flex;gap:8px;align-items:flex-start;border-top:1px solid #eee;padding:6px 0}',
  '.team-head{width:150px;flex:none;font-size:12px;overflow-wrap:anywhere}.team-head small{color:#555;line-height:1.3}',
  '.trials{display:flex;flex-wrap:wrap;gap:6px}',
  'figure.trial{margin:0;width:84px;font-size:11px;line-height:1.25;text-align:center}',
  'figure.trial img{display:block;width:80px;height:80px;border:1px solid #bbb;background:#fff}',
  'figure.trial .blank{width:80px;height:80px;border:1px dashed #c62828;background:#fbeaea;color:#c62828;font-size:28px;line-height:78px}',
  'figure.trial .target{font-weight:700}figure.trial .reason{color:#c62828;overflow-wrap:anywhere}',
  'table.facts{min-width:560px}table.facts td:first-child{font-weight:600;white-space:nowrap;width:220px}',
].join('\n');

/** How a competition is titled and anchored: with several (or a labelled one), by its label. */
interface CompetitionNames {
  multiple: boolean;
  suffixOf(c: ReportCompetition): string;
  anchorOf(c: ReportCompetition): string;
}

function competitionNames(input: ReportInput): CompetitionNames {
  const multiple = input.competitions.length > 1 || input.competitions.some((c) => c.label !== '');
  return {
    multiple,
    suffixOf: (c) => (c.label ? ` — ${c.label}` : ''),
    anchorOf: (c) => (multiple ? slug(c.label) : 'main'),
  };
}

/** A competition's per-letter tables in Markdown. */
function markdownLetters(competition: ReportCompetition, names: CompetitionNames): string[] {
  if (!competition.result) return [];
  const md: string[] = [];
  const letters = competitionLetters(competition);
  md.push('', `## Per letter${names.suffixOf(competition)}`, '');
  const note = lettersNote(letters);
  if (note) md.push(note, '');
  for (const grid of competitionGrids(competition.result, competition.input, letters)) {
    md.push(`### ${grid.title}`, '', '`–` no data (the file is missing; it counts as 0).', '');
    md.push(
      mdTable({
        header: ['team', ...letters],
        rows: competition.result.teams.map((team, i) => [
          team,
          ...(grid.values[i] ?? []).map((v, j) => (grid.missing[i]?.[j] || !Number.isFinite(v) ? '–' : compactNumber(v))),
        ]),
      }),
      '',
    );
  }
  return md;
}

function reportMarkdown(input: ReportInput, names: CompetitionNames): string {
  const md: string[] = [`# ${input.title}`, '', ...input.facts.map((f) => `- ${f}`)];
  if (input.winners) md.push('', '## Winner', '', ...winnerLines(input.winners).map((l) => `- ${markdownText(l)}`));
  if (input.ranking) md.push('', '## Ranking', '', mdTable(input.ranking));
  md.push('', '## Warnings', '');
  if (input.warnings.length === 0) md.push('None: every file was read and consistent.');
  else md.push(...input.warnings.map((w) => `- \`${w.code}\` ${markdownText(warningText(w))}`));
  for (const competition of input.competitions) {
    md.push(...markdownLetters(competition, names));
    if (competition.gallery) md.push('', `## Levels${names.suffixOf(competition)}`, '', galleryMarkdown(competition.gallery));
  }
  for (const section of input.sections ?? []) md.push('', `## ${section.title}`, '', section.markdown.trimEnd());
  if (input.settings && input.settings.length > 0)
    md.push('', '## Settings', '', mdTable({ header: ['setting', 'value'], rows: input.settings.map((f) => [f.name, f.value]) }));
  if (input.versions && input.versions.length > 0)
    md.push('', '## Software versions', '', mdTable({ header: ['software', 'version'], rows: input.versions.map((f) => [f.name, f.value]) }));
  return `${md.join('\n').trimEnd()}\n`;
}

/** The HTML report's body, and its table of contents (every `h2` made through `h2`). */
class HtmlBody {
  readonly contents: Array<[string, string]> = [];
  readonly body: string[] = [];

  h2(id: string, title: string): string {
    this.contents.push([id, title]);
    return `<h2 id="${escapeXml(id)}">${escapeXml(title)}</h2>`;
  }

  push(...parts: string[]): void {
    this.body.push(...parts);
  }
}

/** The first screen's gallery of a competition: each letter's best trial, small. */
function htmlOverview(page: HtmlBody, competition: ReportCompetition, names: CompetitionNames): void {
  if (!competition.gallery) return;
  const anchor = names.anchorOf(competition);
  page.push(
    `<section class="overview" data-competition="${escapeXml(competition.label)}">`,
    page.h2(`levels-${anchor}`, `Levels at a glance${names.suffixOf(competition)}`),
    `<p class="gallery-help">Each cell: the team’s best trial for the letter (highest similarity) as the image the evaluator scores, made small, and how many of its trials became images. Click a cell for every trial of the letter.</p>`,
    `<div class="gallery" data-competition="${escapeXml(competition.label)}">`,
    galleryOverviewHtml(competition.gallery, `letter-${anchor}`),
    '</div>',
    '</section>',
  );
}

/** A competition's section: per-letter heat maps, then every trial by letter. */
function htmlCompetition(page: HtmlBody, competition: ReportCompetition, names: CompetitionNames): void {
  const anchor = names.anchorOf(competition);
  const suffix = names.suffixOf(competition);
  page.push(`<section class="competition" data-competition="${escapeXml(competition.label)}">`);
  if (competition.result) {
    const letters = competitionLetters(competition);
    const note = lettersNote(letters);
    page.push(page.h2(`letters-${slug(competition.label)}`, `Per letter${suffix}`));
    if (note) page.push(`<p class="letters">${escapeXml(note)}</p>`);
    page.push(
      '<p>Each map has its own colour scale, from its lowest value (light) to its highest (dark), shown under it. Hatched cells with a dash have no data: the file is missing or unreadable, and the score counts it as 0.</p>',
    );
    for (const grid of competitionGrids(competition.result, competition.input, letters)) {
      const map: HeatMap = {
        metric: grid.metric,
        title: grid.title,
        rows: competition.result.teams,
        columns: letters,
        values: grid.values,
        missing: grid.missing,
        scale: scaleOf(grid.values, grid.missing),
        format: grid.format,
        ...(names.multiple ? { idSuffix: anchor } : {}),
      };
      page.push(`<h3>${escapeXml(grid.title)}</h3>`, heatMapSvg(map));
    }
  }
  if (competition.gallery) {
    page.push(page.h2(`trials-${anchor}`, `Every trial by letter${suffix}`), `<p class="gallery-help">${escapeXml(GALLERY_HELP)}</p>`);
    page.push(
      `<div class="gallery" data-competition="${escapeXml(competition.label)}">`,
      galleryLettersHtml(competition.gallery, `letter-${anchor}`),
      '</div>',
    );
  }
  page.push('</section>');
}

function htmlSettings(page: HtmlBody, input: ReportInput): void {
  if (!((input.settings && input.settings.length > 0) || (input.versions && input.versions.length > 0))) return;
  page.push(page.h2('settings', 'Settings and software versions'));
  for (const [list, className, title] of [
    [input.settings, 'settings', 'Settings'],
    [input.versions, 'versions', 'Software versions'],
  ] as const) {
    if (!list || list.length === 0) continue;
    page.push(`<h3>${title}</h3>`);
    page.push(
      `<table class="facts ${className}"><tbody>${list.map((f) => `<tr><td>${escapeXml(f.name)}</td><td>${escapeXml(f.value)}</td></tr>`).join('')}</tbody></table>`,
    );
  }
}

function htmlBody(input: ReportInput, names: CompetitionNames): HtmlBody {
  const page = new HtmlBody();
  if (input.winners)
    page.push(
      page.h2('winner', 'Winner'),
      `<ul class="winner">${winnerLines(input.winners)
        .map((l) => `<li>${escapeXml(l)}</li>`)
        .join('')}</ul>`,
    );
  // The first screen: who won, the ranking as bars, and the levels themselves; the exact table after.
  if (input.rankingBars && input.rankingBars.length > 0)
    page.push(page.h2('ranking', 'Ranking'), rankingBarsSvg(input.rankingBars, 'Normalised prompt score per team, in rank order'));
  for (const competition of input.competitions) htmlOverview(page, competition, names);
  if (input.ranking)
    page.push(page.h2('scores', input.rankingBars && input.rankingBars.length > 0 ? 'Scores' : 'Ranking'), htmlTable(input.ranking, 'ranking'));
  page.push(
    page.h2('warnings', `Warnings (${input.warnings.length})`),
    input.warnings.length === 0
      ? '<p class="warnings">None: every file was read and consistent.</p>'
      : `<ul class="warnings">${input.warnings.map((w) => `<li><code>${escapeXml(w.code)}</code> ${escapeXml(warningText(w))}</li>`).join('\n')}</ul>`,
  );
  for (const competition of input.competitions) htmlCompetition(page, competition, names);
  for (const section of input.sections ?? []) {
    const id = slug(section.id);
    page.contents.push([id, section.title]);
    page.push(`<section class="extra" id="${id}">`, `<h2>${escapeXml(section.title)}</h2>`, section.html, '</section>');
  }
  htmlSettings(page, input);
  return page;
}

function reportHtml(input: ReportInput, names: CompetitionNames): string {
  const page = htmlBody(input, names);
  const html: string[] = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeXml(input.title)}</title>`,
    '<style>',
    STYLE,
    '</style>',
    '</head>',
    '<body>',
    `<h1>${escapeXml(input.title)}</h1>`,
    `<nav class="contents" aria-label="Contents">${page.contents.map(([id, title]) => `<a href="#${escapeXml(id)}">${escapeXml(title)}</a>`).join(' ')}</nav>`,
    `<ul class="facts">${input.facts.map((f) => `<li>${escapeXml(f)}</li>`).join('')}</ul>`,
    ...page.body,
    '</body>',
    '</html>',
    '',
  ];
  return html.join('\n');
}

export function buildReport(input: ReportInput): Report {
  const names = competitionNames(input);
  return { markdown: reportMarkdown(input, names), html: reportHtml(input, names) };
}
