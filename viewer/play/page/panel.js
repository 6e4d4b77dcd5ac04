// The viewer's panel of one evaluated level, shared by the playground (play.js) and the published
// competition's trial page (viewer/publish/page/trial.js): trial 1 falling frame by frame with the
// viewer's drawing and chart, the block table with the first mover, and the evaluator's image.

import { maskToRgba } from '../../../bridge/headless/render.js';
import { drawChart } from '../../static/chart.js';
import { drawScene } from '../../static/draw.js';
import { decodeFrames, poseAt } from '../../static/frames.js';
import { boundsOf, fitView, placePath, stepToTime } from '../../static/geometry.js';
import { advance, createPlayback, pause, SPEEDS, seek, stepBy, toggle } from '../../static/playback.js';

const $ = (id) => document.getElementById(id);

/** The evaluation shown (`result`, with its image) and the playback over its frames. */
export const state = { result: null, meta: null, frames: null, removedAt: new Map(), bounds: null, playback: createPlayback(1, 0.02) };

/** Draws the evaluator's image (the engine's mask) at its full 1024 × 1024 and gives the SHA-256 of the RGBA pixels shown. */
export async function showImage(mask) {
  const canvas = $('image');
  const ctx = canvas.getContext('2d');
  const rgba = maskToRgba(mask);
  ctx.putImageData(new ImageData(new Uint8ClampedArray(rgba.buffer), mask.width, mask.height), 0, 0);
  const shown = ctx.getImageData(0, 0, mask.width, mask.height).data;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', shown));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function clearPanel() {
  state.meta = null;
  $('blocks').querySelector('tbody').textContent = '';
  $('summary').textContent = '';
  for (const id of ['scene', 'chart', 'image']) {
    const c = $(id);
    c.getContext('2d').clearRect(0, 0, c.width, c.height);
  }
}

export function openTrial(result) {
  state.result = result;
  state.meta = result.meta;
  state.frames = decodeFrames(result.frames.buffer, result.meta.stepCount, result.meta.bodyCount);
  state.removedAt = new Map(result.meta.events.filter((e) => e.kind === 'removed').map((e) => [e.id, e.step]));
  state.bounds = runBounds(result.meta, state.frames);
  state.playback = seek({ ...createPlayback(result.meta.stepCount, result.meta.dt), speed: state.playback.speed }, 0);
  $('scrubber').max = String(result.meta.stepCount - 1);
  buildTable(result.meta.explanation);
  render();
}

/** Bounds of every live body over the run (every 5th step) and the ground: the camera of the whole run. */
function runBounds(meta, frames) {
  const sets = [];
  for (let s = 0; s < frames.stepCount; s += 5) {
    meta.bodies.forEach((body, i) => {
      if ((state.removedAt.get(i) ?? Infinity) <= s) return;
      const p = poseAt(frames, s, i);
      sets.push(placePath(body.outline[0], p.x, p.y, p.angle));
    });
  }
  const b = boundsOf(sets) ?? { minX: -1, maxX: 1, minY: meta.ground.top, maxY: meta.ground.top + 2 };
  const pad = 0.4;
  return { minX: b.minX - pad, maxX: b.maxX + pad, minY: Math.min(b.minY, meta.ground.top) - pad, maxY: b.maxY + pad };
}

function buildTable(e) {
  const tbody = $('blocks').querySelector('tbody');
  tbody.textContent = '';
  for (const b of e.bodies) {
    const tr = document.createElement('tr');
    if (e.firstMover === b.id) tr.classList.add('first');
    const verdict = !b.counted ? '—' : b.moved ? `moved ${b.finalDisplacement.toFixed(3)}` : `still ${b.finalDisplacement.toFixed(3)}`;
    const cells = [b.id, b.type, b.onsetStep ?? '', b.crossStep ?? '', verdict, b.reason?.text ?? ''];
    cells.forEach((c, i) => {
      const td = document.createElement('td');
      td.textContent = String(c);
      if (i === 4 && b.moved) td.className = 'moved';
      tr.append(td);
    });
    tbody.append(tr);
  }
  $('summary').textContent = e.summary;
}

function canvasContext(canvas) {
  const ctx = canvas.getContext('2d');
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  return ctx;
}

function render() {
  if (!state.meta) return;
  const { meta, frames, playback } = state;
  const step = playback.step;
  const e = meta.explanation;
  const movingNow = new Set();
  state.frames.displacement.forEach((series, i) => {
    if (series[step] >= e.threshold) movingNow.add(i);
  });
  const scene = $('scene');
  drawScene(canvasContext(scene), scene.width, scene.height, {
    meta,
    frames,
    step,
    view: fitView(state.bounds, scene.width, scene.height, 10),
    style: 'outlined',
    labels: true,
    placedLabels: [],
    highlights: true,
    vectors: false,
    contacts: true,
    selected: null,
    firstMover: e.firstMover,
    movingNow,
    removedAt: state.removedAt,
  });
  const chart = $('chart');
  drawChart(canvasContext(chart), chart.width, chart.height, {
    series: state.frames.displacement,
    ids: meta.bodies.map((b) => b.id),
    step,
    stepCount: meta.stepCount,
    dt: meta.dt,
    threshold: e.threshold,
    windowEnd: meta.windowEnd,
    selected: null,
    firstMover: e.firstMover,
    moved: new Set(e.bodies.filter((b) => b.moved).map((b) => b.id)),
  });
  $('play').textContent = playback.playing ? 'Pause' : 'Play';
  $('scrubber').value = String(step);
  $('clock').textContent = `step ${step} · ${stepToTime(step, meta.dt).toFixed(2)} s`;
}

function update(next) {
  state.playback = next;
  render();
}

let lastTime = null;
function loop(now) {
  if (state.playback.playing && state.meta) {
    if (lastTime !== null) update(advance(state.playback, (now - lastTime) / 1000));
    lastTime = now;
  } else lastTime = null;
  requestAnimationFrame(loop);
}

/** The playback controls, and the animation loop. */
export function wirePanel() {
  for (const s of SPEEDS) $('speed').append(new Option(`${s}×`, String(s), false, s === 1));
  $('play').addEventListener('click', () => update(toggle(state.playback)));
  $('prev').addEventListener('click', () => update(stepBy(state.playback, -1)));
  $('next').addEventListener('click', () => update(stepBy(state.playback, 1)));
  $('first').addEventListener('click', () => update(seek(pause(state.playback), 0)));
  $('last').addEventListener('click', () => update(seek(pause(state.playback), state.playback.stepCount - 1)));
  $('speed').addEventListener('change', (ev) => update({ ...state.playback, speed: Number(ev.target.value) }));
  $('scrubber').addEventListener('input', (ev) => update(seek(pause(state.playback), Number(ev.target.value))));
  requestAnimationFrame(loop);
}
