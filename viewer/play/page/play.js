// The playground page: what the user pastes or drops goes through the evaluator in this page
// (viewer/play/evaluate.ts: extraction, conversion, the headless engine's trials, stability, the image),
// then the viewer's drawing modules (viewer/static/) show trial 1 frame by frame. Nothing is uploaded;
// the input is kept in the URL fragment so a link reproduces the level.

import { maskToRgba } from '../../../bridge/headless/render.js';
import { drawChart } from '../../static/chart.js';
import { drawScene } from '../../static/draw.js';
import { decodeFrames, poseAt } from '../../static/frames.js';
import { boundsOf, fitView, placePath, stepToTime } from '../../static/geometry.js';
import { advance, createPlayback, pause, SPEEDS, seek, stepBy, toggle } from '../../static/playback.js';
import { evaluateXml, guessKind, prepareLevel } from '../evaluate.js';
import { initSimilarity, similarityOf } from './similarity.js';

const $ = (id) => document.getElementById(id);

const state = { result: null, meta: null, frames: null, removedAt: new Map(), bounds: null, playback: createPlayback(1, 0.02) };

const STAGE_NAMES = { extract: 'extraction', convert: 'conversion', load: 'level XML' };

function stageLine(text, failed = false) {
  const li = document.createElement('li');
  li.textContent = text;
  if (failed) li.className = 'failed';
  $('stages').append(li);
}

function setVerdict(text, failed) {
  const out = $('verdict');
  out.textContent = text;
  out.className = failed ? 'failed' : '';
}

/** The input in the URL fragment (`#kind=…&text=…`), so a link reproduces the level. */
function writeHash(text, kind) {
  const params = new URLSearchParams({ kind, text });
  history.replaceState(null, '', `#${params.toString()}`);
}

function readHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  const text = params.get('text');
  return text === null ? null : { text, kind: params.get('kind') ?? 'auto' };
}

/** Draws the evaluator's image (the engine's mask) at its full 1024 × 1024 and gives the SHA-256 of the RGBA pixels shown. */
async function showImage(mask) {
  const canvas = $('image');
  const ctx = canvas.getContext('2d');
  const rgba = maskToRgba(mask);
  ctx.putImageData(new ImageData(new Uint8ClampedArray(rgba.buffer), mask.width, mask.height), 0, 0);
  const shown = ctx.getImageData(0, 0, mask.width, mask.height).data;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', shown));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The level from the text with the stages' outcome listed; null when a stage refused it. */
function levelOf(text, kind) {
  const chosen = kind === 'auto' ? guessKind(text) : kind;
  const prepared = prepareLevel(text, chosen);
  const stages = chosen === 'response' ? ['extract', 'convert'] : chosen === 'program' ? ['convert'] : ['load'];
  for (const stage of stages) {
    if (!prepared.ok && prepared.stage === stage) {
      stageLine(`${STAGE_NAMES[stage]}: ${prepared.reason}`, true);
      return { chosen, prepared };
    }
    stageLine(`${STAGE_NAMES[stage]}: ok`);
  }
  return { chosen, prepared };
}

/** Evaluates the text as the Evaluate button does and gives the page's verdict (what the tests read). */
async function run(text, kind = 'auto') {
  $('stages').textContent = '';
  state.result = null;
  writeHash(text, kind);
  const { chosen, prepared } = levelOf(text, kind);
  if (!prepared.ok) {
    setVerdict(`no level: ${prepared.reason}`, true);
    clearPanel();
    return { kind: chosen, ok: false, stage: prepared.stage, reason: prepared.reason };
  }
  const result = evaluateXml('pasted level', prepared.xml);
  if (!result.ok) {
    stageLine(`simulation: ${result.reason}`, true);
    setVerdict(`failed: ${result.reason}`, true);
    clearPanel();
    return { kind: chosen, ok: false, stage: 'simulate', reason: result.reason };
  }
  stageLine(`simulation: ${result.trials.length} trial${result.trials.length === 1 ? '' : 's'}`);
  const s = result.stability;
  setVerdict(
    `stability ${s.score.toFixed(4)} — ${s.movingObjects} of ${s.startingObjects} objects moving${s.score === 1 ? '' : ' (the letter falls)'}`,
    s.score < 1,
  );
  openTrial(result);
  const imageSha256 = await showImage(result.image);
  const similarity = await similarityOf(result.image);
  return {
    kind: chosen,
    ok: true,
    score: s.score,
    startingObjects: s.startingObjects,
    movingObjects: s.movingObjects,
    trials: result.trials.map((t) => ({ score: t.score, movingObjects: t.movingObjects, moving: t.moving })),
    imageSha256,
    similarity,
  };
}

function clearPanel() {
  state.meta = null;
  $('blocks').querySelector('tbody').textContent = '';
  $('summary').textContent = '';
  for (const id of ['scene', 'chart', 'image']) {
    const c = $(id);
    c.getContext('2d').clearRect(0, 0, c.width, c.height);
  }
}

function openTrial(result) {
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

function wireControls() {
  for (const s of SPEEDS) $('speed').append(new Option(`${s}×`, String(s), false, s === 1));
  $('play').addEventListener('click', () => update(toggle(state.playback)));
  $('prev').addEventListener('click', () => update(stepBy(state.playback, -1)));
  $('next').addEventListener('click', () => update(stepBy(state.playback, 1)));
  $('first').addEventListener('click', () => update(seek(pause(state.playback), 0)));
  $('last').addEventListener('click', () => update(seek(pause(state.playback), state.playback.stepCount - 1)));
  $('speed').addEventListener('change', (ev) => update({ ...state.playback, speed: Number(ev.target.value) }));
  $('scrubber').addEventListener('input', (ev) => update(seek(pause(state.playback), Number(ev.target.value))));
}

/** The Evaluate button, a chosen file and a file dropped on the text box all evaluate the text. */
function wireInput() {
  const input = $('input');
  const go = () => run(input.value, $('kind').value).catch((err) => setVerdict(err.message, true));
  $('evaluate').addEventListener('click', go);
  const load = async (file) => {
    input.value = await file.text();
    if (file.name.toLowerCase().endsWith('.xml')) $('kind').value = 'xml';
    go();
  };
  $('file').addEventListener('change', (ev) => ev.target.files[0] && load(ev.target.files[0]));
  input.addEventListener('dragover', (ev) => {
    ev.preventDefault();
    input.classList.add('dragging');
  });
  input.addEventListener('dragleave', () => input.classList.remove('dragging'));
  input.addEventListener('drop', (ev) => {
    ev.preventDefault();
    input.classList.remove('dragging');
    const file = ev.dataTransfer?.files[0];
    if (file) load(file);
  });
}

function main() {
  wireControls();
  wireInput();
  initSimilarity(() => state.result?.image);
  requestAnimationFrame(loop);
  // The page's own entry point for tools and tests: the Evaluate button's function.
  window.sbevalPlay = { run };
  const linked = readHash();
  if (linked) {
    $('input').value = linked.text;
    $('kind').value = linked.kind;
    run(linked.text, linked.kind).catch((err) => setVerdict(err.message, true));
  }
  document.body.dataset.ready = 'true';
}

main();
