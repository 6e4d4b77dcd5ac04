import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { escapeXml } from '../../scoring/report/heatmap.js';
import { builtPageDir } from '../../viewer/play/server.js';
import { dataScriptName } from '../../viewer/publish/verdict.js';
import { thumbnailDataUri } from '../report/thumbnail.js';
import { type CsvTable, type PublishedCompetition, type PublishedTrial, readCompetition } from './read.js';

/**
 * `sbeval publish`: a scored competition as a static site that opens from any static host and from
 * file:// without a request outside its folder. `index.html`: the ranking as the results writer wrote
 * it (with its interval when there is one), the levels at a glance (every trial's thumbnail, inline),
 * one table per letter; `trial.html` (the bundled trial page, dist/publish/): one trial per URL
 * fragment, replayed in the page; `data/<team>.<letter>.js`: each trial's recorded verdict, failure
 * reason and level XML, loaded by the trial page as a classic script (browsers refuse `fetch` on file://).
 */

/** The trial page's files (scripts/build-play.mjs writes them into dist/publish/). */
const PAGE_FILES = ['trial.html', 'trial.js', 'play.css'];

interface PublishedSite {
  files: number;
  bytes: number;
  trials: number;
}

/** Where a trial's page is: the trial page with the trial in its fragment. */
function trialHref(t: Pick<PublishedTrial, 'team' | 'letter' | 'trial'>): string {
  return `trial.html#${new URLSearchParams({ team: t.team, letter: t.letter, trial: t.trial }).toString()}`;
}

function tableHtml(table: CsvTable, extra: (row: string[]) => string[] = () => [], extraHeader: string[] = []): string {
  const head = [...table.header, ...extraHeader].map((h) => `<th>${escapeXml(h)}</th>`).join('');
  const rows = table.rows.map((r) => `<tr>${[...r, ...extra(r)].map((c) => `<td>${escapeXml(c)}</td>`).join('')}</tr>`).join('\n');
  return `<table id="ranking"><thead><tr>${head}</tr></thead><tbody>\n${rows}\n</tbody></table>`;
}

/** The ranking: prompt_scores_ranks.csv's rows as written, and the normalized score's interval from score_intervals.csv. */
function rankingHtml(c: PublishedCompetition): string {
  if (!c.intervals) return tableHtml(c.ranking);
  const iv = c.intervals;
  const [team, low, high] = ['team', 'normLow', 'normHigh'].map((n) => iv.header.indexOf(n));
  const byTeam = new Map(iv.rows.map((r) => [r[team!]!, `${r[low!]} – ${r[high!]}`]));
  const teamColumn = c.ranking.header.indexOf('team');
  return tableHtml(c.ranking, (r) => [byTeam.get(r[teamColumn]!) ?? ''], ['normalized score interval']);
}

const groupKey = (t: PublishedTrial) => `${t.team}\u0000${t.letter}`;

function groups(trials: readonly PublishedTrial[]): Map<string, PublishedTrial[]> {
  const out = new Map<string, PublishedTrial[]>();
  for (const t of trials) out.set(groupKey(t), [...(out.get(groupKey(t)) ?? []), t]);
  return out;
}

/** Levels at a glance: a row per team, a cell per letter with each trial's thumbnail linking to its page. */
function glanceHtml(trials: readonly PublishedTrial[], thumbs: ReadonlyMap<PublishedTrial, string>): string {
  const letters = [...new Set(trials.map((t) => t.letter))].sort();
  const teams = [...new Set(trials.map((t) => t.team))];
  const byGroup = groups(trials);
  const cell = (t: PublishedTrial) => {
    const thumb = thumbs.get(t);
    const label = `${t.team} ${t.letter} ${t.trial}: ${t.reason || `stability ${t.recorded?.score ?? 'not recorded'}`}`;
    const inner = thumb ? `<img src="${thumb}" width="40" height="40" alt="${escapeXml(label)}">` : `<span class="failed">✗</span>`;
    return `<a href="${escapeXml(trialHref(t))}" title="${escapeXml(label)}">${inner}</a>`;
  };
  const rows = teams.map(
    (team) => `<tr><th>${escapeXml(team)}</th>${letters.map((l) => `<td>${(byGroup.get(`${team}\u0000${l}`) ?? []).map(cell).join('')}</td>`).join('')}</tr>`,
  );
  return `<table id="glance"><thead><tr><th></th>${letters.map((l) => `<th>${escapeXml(l)}</th>`).join('')}</tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>`;
}

/** One table per letter: every trial with its recorded stability and similarity, its failure reason, its page. */
function lettersHtml(trials: readonly PublishedTrial[]): string {
  const letters = [...new Set(trials.map((t) => t.letter))].sort();
  return letters
    .map((letter) => {
      const rows = trials
        .filter((t) => t.letter === letter)
        .map(
          (t) =>
            `<tr data-team="${escapeXml(t.team)}" data-trial="${escapeXml(t.trial)}"><td>${escapeXml(t.team)}</td><td><a href="${escapeXml(trialHref(t))}">${escapeXml(t.trial)}</a></td>` +
            `<td>${t.recorded?.score ?? ''}</td><td>${t.similarity ?? ''}</td><td>${escapeXml(t.reason)}</td></tr>`,
        );
      return `<h3 id="letter-${escapeXml(letter)}">${escapeXml(letter)}</h3>\n<table class="letter"><thead><tr><th>team</th><th>trial</th><th>stability</th><th>similarity</th><th>reason</th></tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>`;
    })
    .join('\n');
}

function indexHtml(c: PublishedCompetition, title: string, thumbs: ReadonlyMap<PublishedTrial, string>): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeXml(title)}</title>
  <link rel="stylesheet" href="play.css">
  <link rel="icon" href="data:,">
</head>
<body class="site">
  <header><h1>${escapeXml(title)}</h1><span class="muted">${c.trials.length} trials; each trial's page replays its level in the browser</span></header>
  <h2>Ranking</h2>
  ${rankingHtml(c)}
  <h2>Levels at a glance</h2>
  ${glanceHtml(c.trials, thumbs)}
  <h2>Per letter</h2>
  ${lettersHtml(c.trials)}
</body>
</html>
`;
}

/** The data script of one team's letter: each trial's recorded verdict, failure reason and level XML. */
function dataScript(team: string, letter: string, trials: readonly PublishedTrial[]): string {
  const data = {
    team,
    letter,
    trials: trials.map((t) => ({ trial: t.trial, recorded: t.recorded, reason: t.reason, xml: t.xml ? readFileSync(t.xml, 'utf8') : null })),
  };
  return `sbevalSiteData(${JSON.stringify(data)});\n`;
}

function folderSize(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = folderSize(path);
      files += inner.files;
      bytes += inner.bytes;
    } else {
      files++;
      bytes += statSync(path).size;
    }
  }
  return { files, bytes };
}

/** Writes the site of the scored competition at `root` into `out` (a new or empty folder). */
export async function publishSite(root: string, out: string, options: { title?: string } = {}): Promise<PublishedSite> {
  if (existsSync(out) && readdirSync(out).length > 0)
    throw new SbevalError('input', `${out} is not empty`, 'give a new or empty folder: the site is written into it');
  const competition = readCompetition(root);
  const page = builtPageDir('publish', PAGE_FILES);
  mkdirSync(join(out, 'data'), { recursive: true });
  for (const name of PAGE_FILES) cpSync(join(page, name), join(out, name));
  const thumbs = new Map<PublishedTrial, string>();
  // Four at a time: sharp decodes on libuv's thread pool (as the report's gallery makes them).
  const withImage = competition.trials.filter((t) => t.image !== undefined);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < withImage.length; i = next++) thumbs.set(withImage[i]!, await thumbnailDataUri(withImage[i]!.image!, root));
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  writeFileSync(join(out, 'index.html'), indexHtml(competition, options.title ?? 'Competition results', thumbs));
  for (const trials of groups(competition.trials).values()) {
    const { team, letter } = trials[0]!;
    writeFileSync(join(out, 'data', dataScriptName(team, letter)), dataScript(team, letter, trials));
  }
  return { ...folderSize(out), trials: competition.trials.length };
}
