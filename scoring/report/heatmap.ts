/**
 * Team × letter heat maps as inline SVG (no scripts, no external resources): one cell per team and
 * letter with its value printed in it, a `<title>` tooltip and `data-team`/`data-char`/`data-value`
 * attributes, team names on the left, letters on top, a legend below.
 *
 * Each metric gets its own colour scale, from the lowest to the highest value it has in the table:
 * similarity and diversity live far below 1 (a diversity of 0.006 is a good one), so a fixed 0–1 scale
 * paints them all white. A cell with no data (the file is missing: the score counts it as 0) is drawn
 * hatched with a dash, never in the colour of a real 0; the legend names the hatch only when a cell
 * has it.
 */
interface HeatScale {
  /** The value drawn lightest. */
  min: number;
  /** The value drawn darkest. */
  max: number;
}

export interface HeatMap {
  /** Machine name, e.g. `stability`; also makes the SVG's pattern id unique in the page. */
  metric: string;
  title: string;
  rows: readonly string[];
  columns: readonly string[];
  /** values[row][column]; NaN when there is no value at all. */
  values: readonly (readonly number[])[];
  /** missing[row][column]: no data behind the cell (drawn hatched, whatever its value). */
  missing?: readonly (readonly boolean[])[];
  /** Colour scale; default `scaleOf(values)` over the cells with data. */
  scale?: HeatScale;
  /** How a value is printed in tooltips and the legend. */
  format?: (value: number) => string;
  /** Unique suffix for element ids when several maps of one metric share a page (e.g. per model). */
  idSuffix?: string;
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** ColorBrewer "Blues" ends (colorbrewer2.org, 9-class sequential): light = low, dark = high. */
const LIGHT = [247, 251, 255];
const DARK = [8, 48, 107];
/** Cells without data: light grey hatched with darker grey, unlike any colour of the scale. */
const MISSING_FILL = '#f2f2f2';
const MISSING_HATCH = '#b0b0b0';

/** The scale of a table: its lowest and highest value among the cells with data (0–1 when there is none). */
export function scaleOf(values: readonly (readonly number[])[], missing?: readonly (readonly boolean[])[]): HeatScale {
  let min = Infinity;
  let max = -Infinity;
  values.forEach((row, i) =>
    row.forEach((v, j) => {
      if (!Number.isFinite(v) || missing?.[i]?.[j]) return;
      if (v < min) min = v;
      if (v > max) max = v;
    }),
  );
  if (min > max) return { min: 0, max: 1 };
  // One value only: show it dark (over [0, v]) unless it is 0, then the plain 0–1 scale.
  if (min === max) return max > 0 ? { min: 0, max } : { min: 0, max: 1 };
  return { min, max };
}

/** Where a value sits on the scale, 0 (lightest) to 1 (darkest); values beyond clamp to the ends. */
function scalePosition(value: number, scale: HeatScale): number {
  const span = scale.max - scale.min;
  if (!Number.isFinite(value) || !(span > 0)) return 0;
  return Math.min(Math.max((value - scale.min) / span, 0), 1);
}

/** Linear light-to-navy colour of a value on a scale. */
export function heatColor(value: number, scale: HeatScale): string {
  const t = scalePosition(value, scale);
  const channel = (i: number) => Math.round((LIGHT[i] as number) + ((DARK[i] as number) - (LIGHT[i] as number)) * t);
  return `rgb(${channel(0)},${channel(1)},${channel(2)})`;
}

/**
 * A value short enough for a 34-px cell: `0`, `1`, `.82`, `.047`, `.006`, `4e-4`. The tooltip has the full
 * value.
 */
export function compactNumber(value: number): string {
  if (!Number.isFinite(value)) return '–';
  if (value === 0) return '0';
  const abs = Math.abs(value);
  const sign = value < 0 ? '-' : '';
  if (abs >= 100) return `${sign}${Math.round(abs)}`;
  if (abs >= 10) return `${sign}${abs.toFixed(0)}`;
  if (abs >= 1) return `${sign}${abs.toFixed(abs === Math.round(abs) ? 0 : 1)}`;
  if (abs >= 0.095) return `${sign}${abs.toFixed(2).replace(/^0/, '')}`;
  if (abs >= 0.00095) return `${sign}${abs.toFixed(3).replace(/^0/, '')}`;
  const [mantissa, exponent] = abs.toExponential(0).split('e');
  return `${sign}${mantissa}e${exponent}`;
}

const CELL_W = 34;
const CELL_H = 20;
const HEADER_H = 20;
const LEGEND_H = 40;
const CHAR_W = 7; // approximate width of one label character at 12px
const LEGEND_STEPS = 10;
const LEGEND_W = 16;

export function heatMapSvg(map: HeatMap): string {
  const format = map.format ?? ((v: number) => v.toFixed(4));
  const scale = map.scale ?? scaleOf(map.values, map.missing);
  const id = `hatch-${(map.metric + (map.idSuffix ? `-${map.idSuffix}` : '')).replace(/[^A-Za-z0-9-]/g, '-')}`;
  const labelW = Math.max(60, Math.ceil(Math.max(0, ...map.rows.map((r) => r.length)) * CHAR_W) + 12);
  const width = Math.max(labelW + map.columns.length * CELL_W + 4, labelW + (LEGEND_STEPS + 1) * LEGEND_W + 260);
  const height = HEADER_H + map.rows.length * CELL_H + LEGEND_H;
  const isMissing = (i: number, j: number) => map.missing?.[i]?.[j] === true || !Number.isFinite(map.values[i]?.[j] ?? NaN);
  // The hatch and its legend entry only where a cell has no data (a rank-probability map never has one).
  const anyMissing = map.rows.some((_, i) => map.columns.some((_, j) => isMissing(i, j)));
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="heatmap" data-metric="${escapeXml(map.metric)}" data-scale-min="${scale.min}" data-scale-max="${scale.max}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(map.title)}">`,
  );
  if (anyMissing) {
    out.push(
      `<defs><pattern id="${id}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="${MISSING_FILL}"/><line x1="0" y1="0" x2="0" y2="6" stroke="${MISSING_HATCH}" stroke-width="2"/></pattern></defs>`,
    );
  }
  map.columns.forEach((column, j) => {
    out.push(`<text class="col-label" x="${labelW + j * CELL_W + CELL_W / 2}" y="${HEADER_H - 6}" text-anchor="middle">${escapeXml(column)}</text>`);
  });
  map.rows.forEach((row, i) => {
    const y = HEADER_H + i * CELL_H;
    out.push(`<text class="row-label" x="${labelW - 6}" y="${y + CELL_H - 6}" text-anchor="end">${escapeXml(row)}</text>`);
    map.columns.forEach((column, j) => {
      const value = map.values[i]?.[j] ?? NaN;
      const missing = isMissing(i, j);
      const x = labelW + j * CELL_W;
      const fill = missing ? `url(#${id})` : heatColor(value, scale);
      const tip = missing
        ? `${row} · ${column}: no data${Number.isFinite(value) ? ` (counted as ${format(value)})` : ''}`
        : `${row} · ${column}: ${format(value)}`;
      const dark = !missing && scalePosition(value, scale) > 0.55;
      out.push(
        `<g class="cell${missing ? ' missing' : ''}"><rect x="${x}" y="${y}" width="${CELL_W - 1}" height="${CELL_H - 1}" fill="${fill}" data-team="${escapeXml(row)}" data-char="${escapeXml(column)}" data-value="${Number.isFinite(value) ? value : ''}" data-missing="${missing}"><title>${escapeXml(tip)}</title></rect>` +
          `<text class="cell-value${dark ? ' on-dark' : ''}" x="${x + (CELL_W - 1) / 2}" y="${y + CELL_H - 6}" text-anchor="middle" fill="${dark ? '#fff' : '#222'}">${missing ? '–' : escapeXml(compactNumber(value))}</text></g>`,
      );
    });
  });
  const legendY = HEADER_H + map.rows.length * CELL_H + 12;
  out.push(`<text class="legend" x="${labelW - 6}" y="${legendY + 10}" text-anchor="end">${escapeXml(format(scale.min))}</text>`);
  for (let k = 0; k <= LEGEND_STEPS; k++) {
    const v = scale.min + (k / LEGEND_STEPS) * (scale.max - scale.min);
    out.push(`<rect class="legend-step" x="${labelW + k * LEGEND_W}" y="${legendY}" width="${LEGEND_W}" height="12" fill="${heatColor(v, scale)}"/>`);
  }
  const afterRamp = labelW + (LEGEND_STEPS + 1) * LEGEND_W;
  out.push(`<text class="legend" x="${afterRamp + 4}" y="${legendY + 10}">${escapeXml(format(scale.max))}</text>`);
  if (anyMissing) {
    const missingX = afterRamp + 4 + format(scale.max).length * CHAR_W + 24;
    out.push(
      `<rect class="legend-missing" x="${missingX}" y="${legendY}" width="${LEGEND_W}" height="12" fill="url(#${id})" stroke="${MISSING_HATCH}" stroke-width="0.5"/>`,
    );
    out.push(`<text class="legend" x="${missingX + LEGEND_W + 4}" y="${legendY + 10}">no data (counts as 0)</text>`);
  }
  out.push('</svg>');
  return out.join('\n');
}
