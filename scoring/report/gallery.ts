/**
 * The report's pictures of the levels: every trial of every team and letter as a thumbnail of the
 * evaluator's image, with the target letter, stability and similarity under it; a trial that never
 * became an image is a labelled blank that says why (the official reason). Two views:
 *
 * - an overview, team × letter, showing each cell's best trial (highest similarity, then stability),
 *   so a reader sees at a glance whose letters look like letters;
 * - a section per letter with one row per team holding all its trials.
 *
 * The markdown version is a table per letter (team × trial) with links to the images.
 *
 * Pure: the caller (orchestrator/report/gallery.ts) reads the folders and makes the thumbnails.
 */

import { markdownText } from '../formats/text-escape.js';
import { escapeXml } from './heatmap.js';
import { AVERAGE_NAMES } from './names.js';

export interface GalleryTrial {
  team: string;
  letter: string;
  /** The trial number as text (or the file's name when it has no number). */
  trial: string;
  /** The trial's image file name (in `<team>/images/<letter>/`), when it has one. */
  image?: string;
  /** Link to the full image, relative to the report's folder (opens offline beside the report). */
  imageHref?: string;
  /** The image downscaled, as a `data:image/png;base64,…` URI (keeps the report self-contained). */
  thumbnail?: string;
  stability?: number;
  similarity?: number;
  /** Why the trial has no usable image, in the official wording; undefined when it is complete. */
  reason?: string;
}

export interface Gallery {
  /** Rows, in the order they are shown. */
  teams: readonly string[];
  trials: readonly GalleryTrial[];
  /** Pixel size the thumbnails were made at (square). */
  thumbnailSize: number;
  /**
   * The scoring's per-letter averages (`team\u0000letter` → the official Σ/T values, build.ts
   * `AVERAGE_NAMES`), shown in each team's row; absent without scores, and then no average is shown
   * (the report names one average per letter, never a second one of its own).
   */
  averages?: ReadonlyMap<string, { stability: number; similarity: number }>;
}

/** The key of `Gallery.averages`. */
export function averageKey(team: string, letter: string): string {
  return `${team}\u0000${letter}`;
}

/** The overview's picture size (CSS px): as large as fits 1000 px for the letters shown, 40–80 px. */
function overviewSize(letters: number): number {
  return Math.max(40, Math.min(80, Math.floor(1000 / Math.max(1, letters)) - 8));
}

function fixed2(v: number | undefined): string {
  return v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(2);
}

function trialNumber(t: GalleryTrial): number {
  return /^\d+$/.test(t.trial) ? Number(t.trial) : Number.POSITIVE_INFINITY;
}

function byTrial(a: GalleryTrial, b: GalleryTrial): number {
  return trialNumber(a) - trialNumber(b) || (a.trial < b.trial ? -1 : a.trial > b.trial ? 1 : 0);
}

/** The letters that have any trial, A–Z first, then anything else in code-point order. */
function galleryLetters(gallery: Gallery): string[] {
  return [...new Set(gallery.trials.map((t) => t.letter))].sort();
}

/** Trials of one team and letter, in trial order. */
function cellTrials(gallery: Gallery, team: string, letter: string): GalleryTrial[] {
  return gallery.trials.filter((t) => t.team === team && t.letter === letter).sort(byTrial);
}

/** The trial shown for a cell in the overview: highest similarity, then stability, then the earliest. */
export function bestTrial(trials: readonly GalleryTrial[]): GalleryTrial | undefined {
  const withImage = trials.filter((t) => t.thumbnail !== undefined);
  let best: GalleryTrial | undefined;
  for (const t of withImage) {
    if (!best) {
      best = t;
      continue;
    }
    const sim = (t.similarity ?? -1) - (best.similarity ?? -1);
    const sta = (t.stability ?? -1) - (best.stability ?? -1);
    if (sim > 0 || (sim === 0 && sta > 0)) best = t;
  }
  return best;
}

function dataAttributes(t: GalleryTrial): string {
  const attrs = [`data-team="${escapeXml(t.team)}"`, `data-letter="${escapeXml(t.letter)}"`, `data-trial="${escapeXml(t.trial)}"`];
  if (t.image !== undefined) attrs.push(`data-image="${escapeXml(t.image)}"`);
  if (t.stability !== undefined) attrs.push(`data-stability="${t.stability}"`);
  if (t.similarity !== undefined) attrs.push(`data-similarity="${t.similarity}"`);
  return attrs.join(' ');
}

function figureHtml(t: GalleryTrial, size: number): string {
  const head = `<span class="target" title="target letter">${escapeXml(t.letter)}</span> #${escapeXml(t.trial)}`;
  if (t.thumbnail !== undefined) {
    const img = `<img src="${t.thumbnail}" width="${size}" height="${size}" alt="${escapeXml(`${t.team} · ${t.letter} · trial ${t.trial}`)}">`;
    const linked = t.imageHref ? `<a href="${escapeXml(t.imageHref)}">${img}</a>` : img;
    return `<figure class="trial" ${dataAttributes(t)}>${linked}<figcaption>${head}<br>sta ${fixed2(t.stability)}<br>sim ${fixed2(t.similarity)}</figcaption></figure>`;
  }
  const reason = t.reason ?? 'no image';
  return (
    `<figure class="trial failed" ${dataAttributes(t)} data-reason="${escapeXml(reason)}"><div class="blank" role="img" aria-label="${escapeXml(`no image: ${reason}`)}">✕</div>` +
    `<figcaption>${head}<br><span class="reason">${escapeXml(reason)}</span></figcaption></figure>`
  );
}

/**
 * A team's line for one letter: how many trials became images, and the scoring's averages for the
 * letter under the names the heat maps define (a mean over only the trials with a value, which read
 * 1.00 beside the map's .67, is not shown).
 */
function summary(gallery: Gallery, trials: readonly GalleryTrial[], team: string, letter: string): string[] {
  const images = trials.filter((t) => t.thumbnail !== undefined).length;
  const lines = [`${images}/${trials.length} images`];
  const averages = gallery.averages?.get(averageKey(team, letter));
  if (averages) lines.push(`${AVERAGE_NAMES.stability.name} ${fixed2(averages.stability)}`, `${AVERAGE_NAMES.similarity.name} ${fixed2(averages.similarity)}`);
  return lines;
}

export const GALLERY_HELP =
  'Each picture is the image the evaluator scores (black blocks on white), made small. Under it: the target letter and trial number, the stability (sta) and the similarity to the target letter (sim). A crossed box is a trial that never became an image, with the reason.';

/**
 * The overview as an HTML fragment: team × letter, each cell the best trial and how many of the
 * team's trials became images; a cell links to the letter's section (`#<anchor>-<letter>`).
 */
export function galleryOverviewHtml(gallery: Gallery, anchor: string): string {
  const letters = galleryLetters(gallery);
  if (letters.length === 0) return '<p class="gallery-empty">No trials found in the folder.</p>';
  const size = overviewSize(letters.length);
  const out: string[] = [];
  out.push(
    `<table class="gallery-overview"><thead><tr><th>team</th>${letters.map((l) => `<th><a href="#${anchor}-${escapeXml(l)}">${escapeXml(l)}</a></th>`).join('')}</tr></thead><tbody>`,
  );
  for (const team of gallery.teams) {
    const cells = letters.map((letter) => {
      const trials = cellTrials(gallery, team, letter);
      if (trials.length === 0) return '<td class="none" title="no trials">–</td>';
      const best = bestTrial(trials);
      const images = trials.filter((t) => t.thumbnail !== undefined).length;
      const count = `<span class="count">${images}/${trials.length}</span>`;
      if (!best)
        return `<td class="no-image" data-team="${escapeXml(team)}" data-letter="${escapeXml(letter)}" title="${escapeXml(`${team} · ${letter}: no trial became an image`)}"><a href="#${anchor}-${escapeXml(letter)}"><span class="blank-small" style="width:${size}px;height:${size}px;line-height:${size}px">✕</span></a>${count}</td>`;
      const tip = `${team} · ${letter}: best of ${trials.length} (trial ${best.trial}, sta ${fixed2(best.stability)}, sim ${fixed2(best.similarity)})`;
      return `<td class="best" ${dataAttributes(best)} title="${escapeXml(tip)}"><a href="#${anchor}-${escapeXml(letter)}"><img src="${best.thumbnail}" width="${size}" height="${size}" style="width:${size}px;height:${size}px" alt="${escapeXml(tip)}"></a>${count}</td>`;
    });
    out.push(`<tr><th class="team">${escapeXml(team)}</th>${cells.join('')}</tr>`);
  }
  out.push('</tbody></table>');
  return out.join('\n');
}

/** Every trial as an HTML fragment: a section per letter (`id="<anchor>-<letter>"`), a row per team. */
export function galleryLettersHtml(gallery: Gallery, anchor: string): string {
  const out: string[] = [];
  for (const letter of galleryLetters(gallery)) {
    out.push(`<section class="gallery-letter" id="${anchor}-${escapeXml(letter)}" data-letter="${escapeXml(letter)}">`, `<h3>Letter ${escapeXml(letter)}</h3>`);
    for (const team of gallery.teams) {
      const trials = cellTrials(gallery, team, letter);
      if (trials.length === 0) continue;
      out.push(
        `<div class="team-row" data-team="${escapeXml(team)}"><div class="team-head"><b>${escapeXml(team)}</b><br><small>${summary(gallery, trials, team, letter).map(escapeXml).join('<br>')}</small></div><div class="trials">${trials.map((t) => figureHtml(t, gallery.thumbnailSize)).join('')}</div></div>`,
      );
    }
    out.push('</section>');
  }
  return out.join('\n');
}

/** The gallery in markdown: per letter a table team × trial; complete trials link their image. */
export function galleryMarkdown(gallery: Gallery): string {
  const letters = galleryLetters(gallery);
  if (letters.length === 0) return 'No trials found in the folder.';
  const lines: string[] = [
    'Per letter, each team’s trials: `sta` stability, `sim` similarity (linked to the image); ✕ a trial that never became an image, with the reason.',
  ];
  for (const letter of letters) {
    const rows = gallery.teams.map((team) => [team, cellTrials(gallery, team, letter)] as const).filter(([, trials]) => trials.length > 0);
    const width = Math.max(0, ...rows.map(([, trials]) => trials.length));
    lines.push('', `**${letter}**`, '', `| team | ${Array.from({ length: width }, (_, i) => i + 1).join(' | ')} |`, `| --- |${' --- |'.repeat(width)}`);
    for (const [team, trials] of rows) {
      const cells = trials.map((t) => {
        // Team names and reasons are text from outside (scoring/formats/text-escape.ts); the link is ours.
        if (t.thumbnail === undefined) return `✕ #${t.trial} ${markdownText(t.reason ?? 'no image')}`;
        const text = `#${t.trial} sta ${fixed2(t.stability)} sim ${fixed2(t.similarity)}`;
        return t.imageHref ? `[${text}](${encodeURI(t.imageHref).replace(/\(/g, '%28').replace(/\)/g, '%29')})` : text;
      });
      while (cells.length < width) cells.push('');
      lines.push(`| ${[markdownText(team), ...cells].join(' | ')} |`);
    }
  }
  return lines.join('\n');
}
