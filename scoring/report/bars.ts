/**
 * The ranking as a horizontal bar chart (inline SVG): one bar per team in rank order, its length the
 * normalised prompt score from 0 to the highest one, the value printed after it. Winners are drawn in
 * their own colour, baselines and non-competing entries in grey. Under the 2025 rules a bar can be split
 * into the part each model contributed (`segments`, one shade per model, a legend; a winner's bar is
 * outlined). With the uncertainty bootstrap, each bar carries its 95 % interval as a whisker.
 */
import { escapeXml } from './heatmap.js';

export interface RankingBar {
  team: string;
  rank: number;
  /** The bar's length (e.g. the normalised prompt score). */
  value: number;
  /** The value as printed after the bar (exact decimals are long: the caller rounds). */
  label: string;
  /** `team` for a competing entry; anything else (`zero-shot baseline`, `not competing`) is drawn grey and printed. */
  role: string;
  winner: boolean;
  /** Parts of the bar in order (e.g. one per model); their values add up to `value`. */
  segments?: ReadonlyArray<{ name: string; value: number }>;
  /** The bootstrap's 95 % interval of `value` (scoring/uncertainty), drawn as a whisker across the bar's end. */
  interval?: { low: number; high: number };
}

const COLOURS = { team: '#4292c6', winner: '#d98b00', other: '#a6a6a6' };
/** Segment shades (ColorBrewer Blues 7, darkest first; colorbrewer2.org). */
const SEGMENT_COLOURS = ['#084594', '#2171b5', '#4292c6', '#6baed6', '#9ecae1', '#c6dbef', '#eff3ff'];
const BAR_H = 18;
const GAP = 6;
const PLOT_W = 560;
const CHAR_W = 7;

const WHISKER = '#222';

/** The interval as a horizontal line with end caps across the bar's middle; its tooltip gives the bounds. */
function whisker(bar: RankingBar, labelW: number, y: number, scale: (v: number) => number): string {
  const { low, high } = bar.interval as { low: number; high: number };
  const x1 = labelW + scale(low);
  const x2 = labelW + scale(high);
  const mid = y + BAR_H / 2;
  const cap = (x: number) => `<line x1="${x}" y1="${mid - 5}" x2="${x}" y2="${mid + 5}"/>`;
  const tip = `${bar.team}: 95 % interval ${low.toFixed(2)}–${high.toFixed(2)} (bootstrap over trials)`;
  return `<g class="interval" data-low="${low}" data-high="${high}" stroke="${WHISKER}" stroke-width="1.5"><title>${escapeXml(tip)}</title><line x1="${x1}" y1="${mid}" x2="${x2}" y2="${mid}"/>${cap(x1)}${cap(x2)}</g>`;
}

function suffixOf(bar: RankingBar): string {
  return bar.winner ? ' ★ winner' : bar.role !== 'team' ? ` (${bar.role})` : '';
}

export function rankingBarsSvg(bars: readonly RankingBar[], title: string): string {
  const labelW = Math.max(80, Math.ceil(Math.max(0, ...bars.map((b) => `${b.rank}. ${b.team}`.length)) * CHAR_W) + 12);
  const valueW = Math.max(60, Math.ceil(Math.max(0, ...bars.map((b) => (b.label + suffixOf(b)).length)) * CHAR_W) + 16);
  const segmentNames = [...new Set(bars.flatMap((b) => (b.segments ?? []).map((s) => s.name)))];
  const legendH = segmentNames.length > 1 ? 26 : 22;
  const width = labelW + PLOT_W + valueW;
  const height = bars.length * (BAR_H + GAP) + GAP + legendH;
  const max = Math.max(0, ...bars.map((b) => Math.max(b.value, b.interval && Number.isFinite(b.interval.high) ? b.interval.high : 0)));
  const scale = (v: number) => (max > 0 && Number.isFinite(v) ? (Math.max(v, 0) / max) * PLOT_W : 0);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="ranking-bars" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(title)}">`,
  ];
  bars.forEach((bar, i) => {
    const y = GAP + i * (BAR_H + GAP);
    const colour = bar.role !== 'team' ? COLOURS.other : bar.winner ? COLOURS.winner : COLOURS.team;
    out.push(
      `<g class="bar" data-team="${escapeXml(bar.team)}" data-rank="${bar.rank}" data-value="${bar.value}" data-role="${escapeXml(bar.role)}" data-winner="${bar.winner}">`,
      `<text class="bar-label" x="${labelW - 6}" y="${y + BAR_H - 5}" text-anchor="end">${escapeXml(`${bar.rank}. ${bar.team}`)}</text>`,
    );
    if (bar.segments && bar.segments.length > 0) {
      // Per-model parts: blue shades for teams, grey for the others; a winner gets an outline.
      let x = labelW;
      for (const segment of bar.segments) {
        const w = scale(segment.value);
        const shade = bar.role === 'team' ? SEGMENT_COLOURS[segmentNames.indexOf(segment.name) % SEGMENT_COLOURS.length] : COLOURS.other;
        out.push(
          `<rect class="segment" x="${x}" y="${y}" width="${w}" height="${BAR_H}" fill="${shade}" stroke="#fff" stroke-width="0.5"><title>${escapeXml(`${bar.team} · ${segment.name}: ${segment.value}`)}</title></rect>`,
        );
        x += w;
      }
      if (bar.winner)
        out.push(
          `<rect class="winner-outline" x="${labelW - 1}" y="${y - 1}" width="${scale(bar.value) + 2}" height="${BAR_H + 2}" fill="none" stroke="${COLOURS.winner}" stroke-width="2"/>`,
        );
    } else {
      out.push(
        `<rect class="bar-fill" x="${labelW}" y="${y}" width="${scale(bar.value)}" height="${BAR_H}" fill="${colour}"><title>${escapeXml(`${bar.team}: ${bar.label} (${bar.role}${bar.winner ? ', winner' : ''})`)}</title></rect>`,
      );
    }
    if (bar.interval) out.push(whisker(bar, labelW, y, scale));
    const suffix = suffixOf(bar);
    const end = Math.max(scale(bar.value), bar.interval ? scale(bar.interval.high) : 0);
    out.push(`<text class="bar-value" x="${labelW + end + 6}" y="${y + BAR_H - 5}">${escapeXml(bar.label + suffix)}</text>`, '</g>');
  });
  const legendY = bars.length * (BAR_H + GAP) + GAP + 4;
  const items: Array<[string, string]> =
    segmentNames.length > 1 ? segmentNames.map((n, k) => [SEGMENT_COLOURS[k % SEGMENT_COLOURS.length] as string, n]) : [[COLOURS.team, 'team']];
  items.push([COLOURS.winner, 'winner'], [COLOURS.other, 'baseline / not competing']);
  let x = labelW;
  for (const [colour, name] of items) {
    out.push(
      `<rect class="legend" x="${x}" y="${legendY}" width="12" height="12" fill="${colour}"/>`,
      `<text class="legend" x="${x + 16}" y="${legendY + 10}">${escapeXml(name)}</text>`,
    );
    x += 16 + name.length * CHAR_W + 18;
  }
  if (bars.some((b) => b.interval)) {
    const name = '95 % interval (bootstrap)';
    out.push(
      `<line class="legend" x1="${x}" y1="${legendY + 6}" x2="${x + 14}" y2="${legendY + 6}" stroke="${WHISKER}" stroke-width="1.5"/>`,
      `<text class="legend" x="${x + 18}" y="${legendY + 10}">${escapeXml(name)}</text>`,
    );
  }
  out.push('</svg>');
  return out.join('\n');
}
