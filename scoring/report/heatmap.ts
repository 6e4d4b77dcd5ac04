/**
 * Team × letter heat maps as inline SVG (no scripts, no external resources): one rect per cell with a
 * `<title>` tooltip and `data-team`/`data-char`/`data-value` attributes, team names on the left,
 * letters on top, a legend below.
 */
export interface HeatMap {
  /** Machine name, e.g. `stability`. */
  metric: string;
  title: string;
  rows: readonly string[];
  columns: readonly string[];
  /** values[row][column]; NaN draws an empty (hatched grey) cell. */
  values: readonly (readonly number[])[];
  /** The value drawn darkest (the lightest is 0). */
  max: number;
  /** How a value is printed in tooltips. */
  format?: (value: number) => string;
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const LIGHT = [247, 251, 255];
const DARK = [8, 48, 107];

/** Linear white-to-navy scale over [0, max]; values beyond clamp to the ends. */
export function heatColor(value: number, max: number): string {
  const t = max > 0 && Number.isFinite(value) ? Math.min(Math.max(value / max, 0), 1) : 0;
  const channel = (i: number) => Math.round((LIGHT[i] as number) + ((DARK[i] as number) - (LIGHT[i] as number)) * t);
  return `rgb(${channel(0)},${channel(1)},${channel(2)})`;
}

const CELL_W = 22;
const CELL_H = 18;
const HEADER_H = 20;
const LEGEND_H = 34;
const CHAR_W = 7; // approximate width of one label character at 12px

export function heatMapSvg(map: HeatMap): string {
  const format = map.format ?? ((v: number) => v.toFixed(4));
  const labelW = Math.max(60, Math.ceil(Math.max(0, ...map.rows.map((r) => r.length)) * CHAR_W) + 12);
  const width = labelW + map.columns.length * CELL_W + 4;
  const height = HEADER_H + map.rows.length * CELL_H + LEGEND_H;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="heatmap" data-metric="${escapeXml(map.metric)}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(map.title)}">`,
  );
  map.columns.forEach((column, j) => {
    out.push(`<text class="col-label" x="${labelW + j * CELL_W + CELL_W / 2}" y="${HEADER_H - 6}" text-anchor="middle">${escapeXml(column)}</text>`);
  });
  map.rows.forEach((row, i) => {
    const y = HEADER_H + i * CELL_H;
    out.push(`<text class="row-label" x="${labelW - 6}" y="${y + CELL_H - 5}" text-anchor="end">${escapeXml(row)}</text>`);
    map.columns.forEach((column, j) => {
      const value = map.values[i]?.[j] ?? NaN;
      const fill = Number.isFinite(value) ? heatColor(value, map.max) : '#d9d9d9';
      const shown = Number.isFinite(value) ? format(value) : 'no data';
      out.push(
        `<rect x="${labelW + j * CELL_W}" y="${y}" width="${CELL_W - 1}" height="${CELL_H - 1}" fill="${fill}" data-team="${escapeXml(row)}" data-char="${escapeXml(column)}" data-value="${Number.isFinite(value) ? value : ''}"><title>${escapeXml(`${row} · ${column}: ${shown}`)}</title></rect>`,
      );
    });
  });
  const legendY = HEADER_H + map.rows.length * CELL_H + 10;
  const steps = 10;
  for (let k = 0; k <= steps; k++) {
    out.push(`<rect x="${labelW + k * 14}" y="${legendY}" width="14" height="10" fill="${heatColor((k / steps) * map.max, map.max)}"/>`);
  }
  out.push(`<text class="legend" x="${labelW - 6}" y="${legendY + 9}" text-anchor="end">0</text>`);
  out.push(`<text class="legend" x="${labelW + (steps + 1) * 14 + 4}" y="${legendY + 9}">${escapeXml(format(map.max))}</text>`);
  out.push('</svg>');
  return out.join('\n');
}
