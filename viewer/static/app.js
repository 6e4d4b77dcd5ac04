// The viewer page: loads a trial from the local server, then one shared state (the current step and the
// display options) drives every panel — the scene, the chart, the controls, the table and the timeline.

import { CHART_COLOURS, chartStepAt, drawChart } from './chart.js';
import { drawScene, HIGHLIGHT } from './draw.js';
import { decodeFrames, poseAt } from './frames.js';
import { boundsOf, evaluatorView, fitView, pickBody, pixelToWorld, placePath, stepToTime } from './geometry.js';
import { advance, createPlayback, pause, SPEEDS, seek, setSpeed, stepBy, toggle } from './playback.js';

const $ = (id) => document.getElementById(id);
const scene = $('scene');
const chart = $('chart');

const state = {
  session: null,
  key: null,
  meta: null,
  frames: null,
  series: null,
  removedAt: new Map(),
  sceneBounds: null,
  playback: createPlayback(1, 0.02),
  selected: null,
  style: 'outlined',
  framing: 'scene',
  labels: true,
  highlights: true,
  vectors: false,
  contacts: true,
};

function setStatus(text, error = false) {
  const el = $('status');
  el.textContent = text;
  el.title = text; // the header is one line: a long status ends in an ellipsis, the whole text on hover
  el.className = error ? 'error' : 'muted';
}

function encodeKey(key) {
  return encodeURIComponent(key);
}

async function fetchJson(url) {
  const res = await fetch(url);
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(body.error ?? `${url}: HTTP ${res.status}`);
  return body;
}

function readHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  const step = params.get('step');
  return { trial: params.get('trial'), step: step === null ? null : Number(step) };
}

function writeHash() {
  const params = new URLSearchParams();
  if (state.session?.mode === 'competition' && state.key) params.set('trial', state.key);
  params.set('step', String(state.playback.step));
  history.replaceState(null, '', `#${params.toString()}`);
}

// --- Loading -------------------------------------------------------------------------------------

async function openTrial(key, startStep = 0) {
  setStatus(`loading ${key === 'main' ? 'trial' : key}…`);
  state.key = key;
  const base = `api/trial/${encodeKey(key)}`;
  const [meta, buffer] = await Promise.all([
    fetchJson(`${base}/meta`),
    fetch(`${base}/frames`).then(async (res) => {
      if (!res.ok) throw new Error((await res.json().catch(() => ({}))).error ?? `frames: HTTP ${res.status}`);
      return res.arrayBuffer();
    }),
  ]);
  state.meta = meta;
  state.frames = decodeFrames(buffer, meta.stepCount, meta.bodyCount);
  state.removedAt = new Map(meta.events.filter((e) => e.kind === 'removed').map((e) => [e.id, e.step]));
  state.series = state.frames.displacement;
  state.sceneBounds = runBounds(meta, state.frames);
  state.selected = null;
  state.playback = seek({ ...createPlayback(meta.stepCount, meta.dt), speed: state.playback.speed }, startStep);
  $('scrubber').max = String(meta.stepCount - 1);
  $('seek-step').max = String(meta.stepCount - 1);
  buildTable();
  buildTimeline();
  buildImages();
  document.querySelectorAll('#trial-list button').forEach((b) => b.setAttribute('aria-current', String(b.dataset.key === key)));
  setStatus(`${meta.levelId} · ${meta.bodyCount} bodies · ${meta.steps} · ${meta.source}`);
  document.body.dataset.loaded = key;
  render();
}

/** Bounds of every live body over the run (every 5th step), plus the ground just below, for the "whole run" camera. */
function runBounds(meta, frames) {
  const sets = [];
  for (let s = 0; s < frames.stepCount; s += 5) {
    meta.bodies.forEach((body, i) => {
      const p = poseAt(frames, s, i);
      if ((state.removedAt.get(i) ?? Infinity) <= s) return;
      sets.push(placePath(body.outline[0], p.x, p.y, p.angle));
    });
  }
  const b = boundsOf(sets) ?? { minX: -1, maxX: 1, minY: meta.ground.top, maxY: meta.ground.top + 2 };
  const pad = 0.4;
  return { minX: b.minX - pad, maxX: b.maxX + pad, minY: Math.min(b.minY, meta.ground.top) - pad, maxY: b.maxY + pad };
}

function currentView(size) {
  if (state.framing === 'evaluator') {
    // The evaluator frames the live blocks' collider bounds when the window ends; before that, follow them.
    const s = Math.min(state.playback.step, state.meta.windowEnd);
    const sets = [];
    state.meta.bodies.forEach((body, i) => {
      const p = poseAt(state.frames, s, i);
      if (body.framesImage && p.alive) sets.push(placePath(body.outline[0], p.x, p.y, p.angle));
    });
    const bound = boundsOf(sets);
    if (bound) return evaluatorView(bound, size);
  }
  return fitView(state.sceneBounds, size, size, 10);
}

// --- Panels --------------------------------------------------------------------------------------

function reasonOf(b) {
  if (!b.reason) return '';
  // Bodies that started to move but ended within the threshold are listed for the chains they belong to.
  return b.moved || b.crossStep !== null || b.deathStep !== null ? b.reason.text : `(stayed) ${b.reason.text}`;
}

/** Selects a body (or clears the selection): the scene, the table row and the chart line follow. */
function select(id, { seekToOnset = false, scroll = false } = {}) {
  state.selected = id;
  const b = id === null ? undefined : state.meta.explanation.bodies.find((x) => x.id === id);
  if (seekToOnset && b && b.onsetStep !== null) state.playback = seek(pause(state.playback), b.onsetStep);
  render();
  if (scroll && id !== null) document.querySelector(`#blocks tbody tr[data-id="${id}"]`)?.scrollIntoView({ block: 'nearest' });
}

function buildTable() {
  const tbody = $('blocks').querySelector('tbody');
  tbody.textContent = '';
  const e = state.meta.explanation;
  for (const b of e.bodies) {
    const tr = document.createElement('tr');
    tr.dataset.id = String(b.id);
    if (e.firstMover === b.id) tr.classList.add('first');
    const verdict = !b.counted ? '—' : b.moved ? `moved ${b.finalDisplacement.toFixed(3)}` : `still ${b.finalDisplacement.toFixed(3)}`;
    const cells = [b.id, b.type, b.onsetStep ?? '', b.crossStep ?? '', verdict, reasonOf(b)];
    cells.forEach((c, i) => {
      const td = document.createElement('td');
      td.textContent = String(c);
      if (i === 4 && b.moved) td.className = 'moved';
      tr.append(td);
    });
    tr.addEventListener('click', () => select(state.selected === b.id ? null : b.id, { seekToOnset: true }));
    tbody.append(tr);
  }
  $('summary').textContent = e.summary;
}

function buildTimeline() {
  const ol = $('timeline');
  ol.textContent = '';
  const e = state.meta.explanation;
  for (const entry of e.timeline.slice(0, 300)) {
    const li = document.createElement('li');
    li.dataset.step = String(entry.step);
    li.textContent = `${stepToTime(entry.step, e.dt).toFixed(2)} s (step ${entry.step}) ${entry.text}`;
    li.addEventListener('click', () => {
      state.playback = seek(pause(state.playback), entry.step);
      if (entry.ids.length > 0) state.selected = entry.ids[0];
      render();
    });
    ol.append(li);
  }
}

function figure(src, caption) {
  const fig = document.createElement('figure');
  const img = document.createElement('img');
  img.src = src;
  img.alt = caption;
  const cap = document.createElement('figcaption');
  cap.textContent = caption;
  fig.append(img, cap);
  return fig;
}

function buildImages() {
  const div = $('images');
  div.textContent = '';
  const base = `api/trial/${encodeKey(state.key)}`;
  if (state.meta.hasCapture) div.append(figure(`${base}/capture.png`, `final capture (${state.meta.source})`));
  const trial = state.session.trials?.find((t) => t.key === state.key.replace(/@\d+$/, ''));
  if (trial?.hasImage) div.append(figure(`${base}/image.png`, 'image in the folder'));
  if (state.session.hasReference) div.append(figure('api/reference.png', 'reference (Unity)'));
  if (!div.firstChild) div.textContent = 'no images for this trial';
}

/** A trial that never became a level: listed with its reason, nothing to open. */
function neverALevel(t) {
  const failed = document.createElement('div');
  failed.className = 'failed';
  failed.dataset.key = t.key;
  const name = document.createElement('span');
  name.textContent = `${Number.isFinite(t.trial) ? `trial ${t.trial}` : t.name} ✕`;
  const reason = document.createElement('span');
  reason.className = 'reason';
  reason.textContent = t.reason ?? 'no level';
  failed.append(name, reason);
  failed.title = 'never became a level';
  return failed;
}

function buildTrialList(trials) {
  const nav = $('trials');
  nav.hidden = false;
  const list = $('trial-list');
  const render = (filter) => {
    list.textContent = '';
    let group = '';
    for (const t of trials) {
      const hay = `${t.team} ${t.character} ${t.name}`.toLowerCase();
      if (filter && !hay.includes(filter.toLowerCase())) continue;
      const g = `${t.team} · ${t.character}`;
      if (g !== group) {
        group = g;
        const h = document.createElement('h3');
        h.textContent = g;
        list.append(h);
      }
      if (!t.hasTrace && !t.hasLevel) {
        list.append(neverALevel(t));
        continue;
      }
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.key = t.key;
      // The group heading names team and letter: the entry shows the trial number (the name when it has none).
      const label = Number.isFinite(t.trial) ? `trial ${t.trial}` : t.name;
      const name = document.createElement('span');
      name.textContent = `${label}${t.hasTrace ? ' ●' : ''}`;
      const score = document.createElement('span');
      score.className = 'score';
      const parts = [];
      if (t.stability) parts.push(`sta ${t.stability.score.toFixed(2)}`);
      if (t.similarity !== null) parts.push(`sim ${t.similarity.toFixed(2)}`);
      score.textContent = parts.join(' ');
      button.append(name, score);
      button.title = `${t.name}: ${t.hasTrace ? 'recorded trace' : 'simulated on demand (headless)'}${t.reason ? ` — ${t.reason}` : ''}`;

      button.addEventListener('click', () =>
        openTrial(t.key)
          .then(writeHash)
          .catch((err) => setStatus(err.message, true)),
      );
      list.append(button);
      if (t.reason) {
        // A level the run could not finish (e.g. the engine failed on it): still opens, with its reason.
        const reason = document.createElement('div');
        reason.className = 'failed';
        const text = document.createElement('span');
        text.className = 'note';
        text.textContent = t.reason;
        reason.append(text);
        list.append(reason);
      }
      // Runs that keep every evaluator trial's trace: one small button per further trial.
      for (const k of (t.tracedTrials ?? []).filter((k) => k !== t.tracedTrials[0])) {
        const extra = document.createElement('button');
        extra.type = 'button';
        extra.dataset.key = `${t.key}@${k}`;
        extra.className = 'trial-extra';
        extra.textContent = `  trial ${k}`;
        extra.addEventListener('click', () =>
          openTrial(`${t.key}@${k}`)
            .then(writeHash)
            .catch((err) => setStatus(err.message, true)),
        );
        list.append(extra);
      }
    }
  };
  render('');
  $('trial-filter').addEventListener('input', (ev) => render(ev.target.value));
}

// --- Rendering -------------------------------------------------------------------------------------

function setupCanvas(canvas) {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth || canvas.width;
  const h = canvas.clientHeight || canvas.height;
  if (canvas.width !== Math.round(w * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return { ctx, w, h };
}

/** The scene is the largest square its box holds (the box takes the column's height left by the rest). */
function fitScene() {
  const box = $('scene-box');
  const side = Math.max(200, Math.floor(Math.min(box.clientWidth, box.clientHeight)) - 2);
  if (scene.style.width !== `${side}px`) {
    scene.style.width = `${side}px`;
    scene.style.height = `${side}px`;
  }
}

function render() {
  if (!state.meta) return;
  fitScene();
  const { meta, frames, playback } = state;
  const step = playback.step;
  const e = meta.explanation;
  const threshold = e.threshold;
  const movingNow = new Set();
  state.series.forEach((s, i) => {
    if (s[step] >= threshold) movingNow.add(i);
  });

  const sc = setupCanvas(scene);
  const placedLabels = [];
  state.view = currentView(sc.w);
  drawScene(sc.ctx, sc.w, sc.h, {
    meta,
    frames,
    step,
    view: state.view,
    style: state.style,
    labels: state.labels,
    placedLabels,
    highlights: state.highlights,
    vectors: state.vectors,
    contacts: state.contacts,
    selected: state.selected,
    firstMover: e.firstMover,
    movingNow,
    removedAt: state.removedAt,
  });
  const ch = setupCanvas(chart);
  drawChart(ch.ctx, ch.w, ch.h, {
    series: state.series,
    ids: meta.bodies.map((b) => b.id),
    step,
    stepCount: meta.stepCount,
    dt: meta.dt,
    threshold,
    windowEnd: meta.windowEnd,
    selected: state.selected,
    firstMover: e.firstMover,
    moved: new Set(e.bodies.filter((b) => b.moved).map((b) => b.id)),
  });
  buildChartLegend(e);

  $('play').textContent = playback.playing ? 'Pause' : 'Play';
  $('play').setAttribute('aria-label', playback.playing ? 'Pause' : 'Play');
  $('scrubber').value = String(step);
  if (document.activeElement !== $('seek-step')) $('seek-step').value = String(step);
  $('speed').value = String(playback.speed);
  const inWindow = step <= meta.windowEnd ? '' : ' (after the window)';
  $('clock').textContent = `step ${step} · ${stepToTime(step, meta.dt).toFixed(2)} s${inWindow}`;
  document.querySelectorAll('#blocks tbody tr').forEach((tr) => tr.classList.toggle('selected', Number(tr.dataset.id) === state.selected));
  document.querySelectorAll('#timeline li').forEach((li) => li.classList.toggle('past', Number(li.dataset.step) <= step));

  // The current frame as data, for tests and tools: [x, y, angle, alive] per body in body order.
  const out = $('frame-state');
  out.dataset.step = String(step);
  out.dataset.playing = String(playback.playing);
  out.dataset.selected = state.selected === null ? '' : String(state.selected);
  // Where each block number was drawn: [id, x, y] in CSS px of the scene canvas.
  out.dataset.labels = JSON.stringify(placedLabels);
  out.dataset.positions = JSON.stringify(
    meta.bodies.map((_, i) => {
      const p = poseAt(frames, step, i);
      return [p.x, p.y, p.angle, p.alive ? 1 : 0];
    }),
  );
  out.value = `step ${step}`;
}

/** The chart's legend: what each line colour and dash means, with the block numbers it applies to. */
function buildChartLegend(e) {
  const moved = e.bodies.filter((b) => b.moved && b.id !== e.firstMover).map((b) => b.id);
  const items = [
    [HIGHLIGHT.first, '', e.firstMover === null ? 'first mover: none' : `first mover #${e.firstMover}`],
    [HIGHLIGHT.moving, '', moved.length ? `moved ≥ ${e.threshold}: #${moved.join(', #')}` : `moved ≥ ${e.threshold}: none`],
    [CHART_COLOURS.still, '', 'stayed'],
    [HIGHLIGHT.selected, '', state.selected === null ? 'selected: none' : `selected #${state.selected}`],
    [CHART_COLOURS.threshold, 'dashed', `threshold ${e.threshold}`],
    [CHART_COLOURS.window, 'dashed', '10-s window end'],
    [CHART_COLOURS.cursor, '', 'current step'],
  ];
  const legend = $('chart-legend');
  legend.textContent = '';
  for (const [colour, dash, text] of items) {
    const span = document.createElement('span');
    const i = document.createElement('i');
    i.style.borderTopColor = colour;
    if (dash) i.className = dash;
    span.append(i, text);
    legend.append(span);
  }
}

/** A click on the scene selects the block under it (the top one), or clears the selection. */
function pickAt(ev) {
  if (!state.meta || !state.view) return;
  const [x, y] = pixelToWorld(state.view, ev.offsetX, ev.offsetY);
  const step = state.playback.step;
  const shapes = state.meta.bodies.map((body, i) => {
    if ((state.removedAt.get(i) ?? Infinity) <= step) return null;
    const p = poseAt(state.frames, step, i);
    return body.outline.map((path) => placePath(path, p.x, p.y, p.angle));
  });
  const i = pickBody(shapes, x, y);
  select(i < 0 ? null : state.meta.bodies[i].id, { scroll: true });
}

// --- Controls --------------------------------------------------------------------------------------

function update(next) {
  state.playback = next;
  render();
}

let lastTime = null;
function loop(now) {
  if (state.playback.playing) {
    if (lastTime !== null) {
      const next = advance(state.playback, (now - lastTime) / 1000);
      if (next.step !== state.playback.step || next.playing !== state.playback.playing) update(next);
      else state.playback = next;
    }
    lastTime = now;
  } else {
    lastTime = null;
  }
  requestAnimationFrame(loop);
}

function wireControls() {
  for (const s of SPEEDS) {
    const o = document.createElement('option');
    o.value = String(s);
    o.textContent = `${s}×`;
    $('speed').append(o);
  }
  $('play').addEventListener('click', () => update(toggle(state.playback)));
  $('prev').addEventListener('click', () => update(stepBy(state.playback, -1)));
  $('next').addEventListener('click', () => update(stepBy(state.playback, 1)));
  $('first').addEventListener('click', () => update(seek(pause(state.playback), 0)));
  $('last').addEventListener('click', () => update(seek(pause(state.playback), state.playback.stepCount - 1)));
  $('speed').addEventListener('change', (ev) => update(setSpeed(state.playback, Number(ev.target.value))));
  $('scrubber').addEventListener('input', (ev) => update(seek(pause(state.playback), Number(ev.target.value))));
  const go = () => update(seek(pause(state.playback), Number($('seek-step').value)));
  $('seek-go').addEventListener('click', go);
  $('seek-step').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') go();
  });
  $('style').addEventListener('change', (ev) => {
    state.style = ev.target.value;
    render();
  });
  $('framing').addEventListener('change', (ev) => {
    state.framing = ev.target.value;
    render();
  });
  scene.addEventListener('click', pickAt);
  window.addEventListener('resize', () => render());
  // The scene box's height is what the column leaves once the legend and options have their final
  // size (they fill in after the first frame): re-fit whenever the box itself changes size.
  new ResizeObserver(() => render()).observe($('scene-box'));
  for (const id of ['labels', 'highlights', 'vectors', 'contacts']) {
    $(id).addEventListener('change', (ev) => {
      state[id] = ev.target.checked;
      render();
    });
  }
  let dragging = false;
  const seekChart = (ev) => {
    if (!state.meta) return;
    update(seek(pause(state.playback), chartStepAt(chart.clientWidth, chart.clientHeight, state.meta.stepCount, ev.offsetX)));
  };
  chart.addEventListener('mousedown', (ev) => {
    dragging = true;
    seekChart(ev);
  });
  chart.addEventListener('mousemove', (ev) => dragging && seekChart(ev));
  window.addEventListener('mouseup', () => {
    if (dragging) writeHash();
    dragging = false;
  });
  document.addEventListener('keydown', (ev) => {
    if (ev.target instanceof HTMLInputElement || ev.target instanceof HTMLSelectElement || !state.meta) return;
    if (ev.key === ' ') update(toggle(state.playback));
    else if (ev.key === 'ArrowLeft') update(stepBy(state.playback, ev.shiftKey ? -10 : -1));
    else if (ev.key === 'ArrowRight') update(stepBy(state.playback, ev.shiftKey ? 10 : 1));
    else if (ev.key === 'Home') update(seek(pause(state.playback), 0));
    else if (ev.key === 'End') update(seek(pause(state.playback), state.playback.stepCount - 1));
    else return;
    ev.preventDefault();
  });
}

async function main() {
  wireControls();
  requestAnimationFrame(loop);
  const session = await fetchJson('api/session');
  state.session = session;
  $('title').textContent = session.title;
  $('title').title = session.title;
  document.title = `sbeval viewer · ${session.title}`;
  const hash = readHash();
  if (session.mode === 'trial') {
    await openTrial('main', hash.step ?? 0);
    return;
  }
  buildTrialList(session.trials);
  const wanted = hash.trial && session.trials.some((t) => t.key === hash.trial.replace(/@\d+$/, '')) ? hash.trial : null;
  const first = wanted ?? session.trials.find((t) => t.hasTrace || t.hasLevel)?.key;
  if (first) await openTrial(first, wanted ? (hash.step ?? 0) : 0);
  else setStatus('no trials with a trace or a level in this folder');
}

main().catch((err) => setStatus(err.message, true));
