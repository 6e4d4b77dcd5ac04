// The per-block displacement chart: displacement from the start against the step, the movement
// threshold, the window's end, and the current step as a cursor. Clicking or dragging seeks.

import { HIGHLIGHT } from './draw.js';
import { niceInterval, stepToX, ticks, valueToY, xToStep } from './geometry.js';

/**
 * What the chart shows: per body its displacement at every step (`series[b]`, body order), the body ids,
 * the current step, the threshold and the window's last step, and which ids to highlight.
 * @typedef {object} Chart
 * @property {ReadonlyArray<ArrayLike<number>>} series
 * @property {number[]} ids
 * @property {number} step
 * @property {number} stepCount
 * @property {number} dt
 * @property {number} threshold
 * @property {number} windowEnd
 * @property {number | null} selected
 * @property {number | null} firstMover
 * @property {Set<number>} moved Ids of the bodies that moved.
 */

const CHART_PAD = { left: 44, right: 30, top: 10, bottom: 24 };
/** Colours of the lines that are not block highlights (the page's legend uses the same). */
export const CHART_COLOURS = { still: '#9e9e9e', threshold: '#c62828', window: '#888', cursor: '#111' };

/**
 * @param {number} width
 * @param {number} height
 */
function chartGeometry(width, height) {
  return { x0: CHART_PAD.left, width: width - CHART_PAD.left - CHART_PAD.right, y0: CHART_PAD.top, height: height - CHART_PAD.top - CHART_PAD.bottom };
}

/**
 * @param {CanvasRenderingContext2D} ctx
 * @param {number} width
 * @param {number} height
 * @param {Chart} chart
 */
export function drawChart(ctx, width, height, chart) {
  const { series, step, stepCount, dt, threshold, windowEnd } = chart;
  const g = chartGeometry(width, height);
  let max = threshold * 2;
  for (const s of series) for (let i = 0; i < s.length; i += 5) if (s[i] > max) max = s[i];
  max = niceInterval(max, 1, 1) * Math.ceil(max / niceInterval(max, 1, 1));
  ctx.save();
  ctx.clearRect(0, 0, width, height);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, height);
  ctx.font = '10px sans-serif';
  ctx.fillStyle = '#555';
  ctx.strokeStyle = '#eee';
  ctx.lineWidth = 1;
  for (const v of ticks(0, max, g.height, 24)) {
    const y = valueToY(v, max, g.y0, g.height);
    ctx.beginPath();
    ctx.moveTo(g.x0, y);
    ctx.lineTo(g.x0 + g.width, y);
    ctx.stroke();
    ctx.fillText(v.toFixed(v < 1 ? 2 : 1), 4, y + 3);
  }
  const seconds = (stepCount - 1) * dt;
  for (const t of ticks(0, seconds, g.width, 48)) {
    const x = stepToX(t / dt, stepCount, g.x0, g.width);
    ctx.fillText(`${t.toFixed(t % 1 === 0 ? 0 : 1)} s`, x - 8, height - 8);
  }
  // The official threshold and the end of the stability window.
  ctx.strokeStyle = CHART_COLOURS.threshold;
  ctx.setLineDash([4, 3]);
  const ty = valueToY(threshold, max, g.y0, g.height);
  ctx.beginPath();
  ctx.moveTo(g.x0, ty);
  ctx.lineTo(g.x0 + g.width, ty);
  ctx.stroke();
  if (windowEnd < stepCount - 1) {
    const wx = stepToX(windowEnd, stepCount, g.x0, g.width);
    ctx.strokeStyle = CHART_COLOURS.window;
    ctx.beginPath();
    ctx.moveTo(wx, g.y0);
    ctx.lineTo(wx, g.y0 + g.height);
    ctx.stroke();
  }
  ctx.setLineDash([]);
  const order = series.map((_, i) => i).sort((a, b) => rank(chart, a) - rank(chart, b));
  for (const b of order) {
    const s = series[b];
    const { colour, width: lw } = styleOf(chart, b);
    ctx.strokeStyle = colour;
    ctx.lineWidth = lw;
    ctx.beginPath();
    const every = Math.max(1, Math.floor(stepCount / g.width));
    for (let i = 0; i < stepCount; i += every) {
      const x = stepToX(i, stepCount, g.x0, g.width);
      const y = valueToY(s[i], max, g.y0, g.height);
      if (i === 0) ctx.moveTo(x, y);
      else ctx.lineTo(x, y);
    }
    ctx.stroke();
  }
  // The highlighted lines carry their block number at the right end.
  ctx.font = 'bold 10px sans-serif';
  for (const b of order) {
    const id = chart.ids[b];
    if (id !== chart.selected && id !== chart.firstMover) continue;
    const s = series[b];
    ctx.fillStyle = styleOf(chart, b).colour;
    ctx.fillText(`#${id}`, g.x0 + g.width + 3, Math.max(g.y0 + 8, valueToY(s[stepCount - 1], max, g.y0, g.height) + 3));
  }
  const cx = stepToX(step, stepCount, g.x0, g.width);
  ctx.strokeStyle = CHART_COLOURS.cursor;
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(cx, g.y0);
  ctx.lineTo(cx, g.y0 + g.height);
  ctx.stroke();
  ctx.restore();
}

/**
 * @param {Chart} chart
 * @param {number} b
 */
function styleOf(chart, b) {
  const id = chart.ids[b];
  if (chart.selected === id) return { colour: HIGHLIGHT.selected, width: 2.5 };
  if (chart.firstMover === id) return { colour: HIGHLIGHT.first, width: 2.5 };
  if (chart.moved.has(id)) return { colour: HIGHLIGHT.moving, width: 1.5 };
  return { colour: CHART_COLOURS.still, width: 1 };
}

/**
 * @param {Chart} chart
 * @param {number} b
 */
function rank(chart, b) {
  const id = chart.ids[b];
  return chart.selected === id ? 3 : chart.firstMover === id ? 2 : chart.moved.has(id) ? 1 : 0;
}

/**
 * The step under a click at `offsetX` on a chart of that size.
 * @param {number} width
 * @param {number} height
 * @param {number} stepCount
 * @param {number} offsetX
 */
export function chartStepAt(width, height, stepCount, offsetX) {
  const g = chartGeometry(width, height);
  return xToStep(offsetX, stepCount, g.x0, g.width);
}
