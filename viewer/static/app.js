// The viewer page: loads a trial from the local server, then one shared state (the current step and the
// display options) drives every panel — the scene, the chart, the controls, the table and the timeline.

import { CHART_COLOURS, chartStepAt, drawChart } from './chart.js';
import { drawScene, HIGHLIGHT } from './draw.js';
import { decodeFrames, poseAt } from './frames.js';
import { boundsOf, evaluatorView, fitView, pickBody, pixelToWorld, placePath, stepToTime } from './geometry.js';
import { advance, createPlayback, pause, SPEEDS, seek, setSpeed, stepBy, toggle } from './playback.js';

/** @typedef {import('../page-data.js').ViewerMeta} ViewerMeta */
/** @typedef {import('../page-data.js').ViewerSession} ViewerSession */
/** @typedef {Extract<ViewerSession, { mode: 'competition' }>['trials'][number]} SessionTrial */
/** @typedef {import('./frames.js').Frames} Frames */
/** @typedef {import('./geometry.js').Bounds} Bounds */
/** @typedef {import('./geometry.js').Path} Path */
/** @typedef {import('./geometry.js').View} View */
/** @typedef {import('./draw.js').Look} Look */
/** @typedef {ViewerMeta['explanation']} Explanation */
/** @typedef {Explanation['bodies'][number]} BodyReport */

/**
 * The page's element with that id: index.html has every id this script asks for.
 * @param {string} id
 */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** @param {string} id */
const $input = (id) => /** @type {HTMLInputElement} */ ($(id));
/** @param {string} id */
const $select = (id) => /** @type {HTMLSelectElement} */ ($(id));
const scene = /** @type {HTMLCanvasElement} */ ($('scene'));
const chart = /** @type {HTMLCanvasElement} */ ($('chart'));

/**
 * The session, the trial on show (all of key … sceneBounds set together by `openTrial`) and the display options.
 * @typedef {object} PageState
 * @property {ViewerSession | null} session
 * @property {string | null} key
 * @property {ViewerMeta | null} meta
 * @property {Frames | null} frames
 * @property {Float32Array[] | null} series
 * @property {Map<number, number>} removedAt
 * @property {Bounds | null} sceneBounds
 * @property {View} [view]
 * @property {import('./playback.js').Playback} playback
 * @property {number | null} selected
 * @property {Look} style
 * @property {'scene' | 'evaluator'} framing
 * @property {boolean} labels
 * @property {boolean} highlights
 * @property {boolean} vectors
 * @property {boolean} contacts
 */

/** @type {PageState} */
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

/**
 * @param {string} text
 * @param {boolean} [error]
 */
function setStatus(text, error = false) {
  const el = $('status');
  el.textContent = text;
  el.title = text; // the header is one line: a long status ends in an ellipsis, the whole text on hover
  el.className = error ? 'error' : 'muted';
}

/** @param {string} key */
function encodeKey(key) {
  return encodeURIComponent(key);
}

/**
 * @param {string} url
 * @returns {Promise<any>} The JSON the server sent (typed by the caller).
 */
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

/**
 * @param {string} key
 * @param {number} [startStep]
 */
async function openTrial(key, startStep = 0) {
  setStatus(`loading ${key === 'main' ? 'trial' : key}…`);
  state.key = key;
  const base = `api/trial/${encodeKey(key)}`;
  /** @type {[ViewerMeta, ArrayBuffer]} */
  const [meta, buffer] = await Promise.all([
    fetchJson(`${base}/meta`),
    fetch(`${base}/frames`).then(async (res) => {
      if (!res.ok) throw new Error((await res.json().catch(() => ({}))).error ?? `frames: HTTP ${res.status}`);
      return res.arrayBuffer();
    }),
  ]);
  state.meta = meta;
  const frames = decodeFrames(buffer, meta.stepCount, meta.bodyCount);
  state.frames = frames;
  state.removedAt = new Map(meta.events.filter((e) => e.kind === 'removed').map((e) => [e.id, e.step]));
  state.series = frames.displacement;
  state.sceneBounds = runBounds(meta, frames);
  state.selected = null;
  state.playback = seek({ ...createPlayback(meta.stepCount, meta.dt), speed: state.playback.speed }, startStep);
  $input('scrubber').max = String(meta.stepCount - 1);
  $input('seek-step').max = String(meta.stepCount - 1);
  buildTable(meta);
  buildTimeline(meta);
  buildImages(key, meta);
  document
    .querySelectorAll('#trial-list button')
    .forEach((b) => b.setAttribute('aria-current', String(/** @type {HTMLButtonElement} */ (b).dataset.key === key)));
  setStatus(`${meta.levelId} · ${meta.bodyCount} bodies · ${meta.steps} · ${meta.source}`);
  document.body.dataset.loaded = key;
  render();
}

/**
 * Bounds of every live body over the run (every 5th step), plus the ground just below, for the "whole run" camera.
 * @param {ViewerMeta} meta
 * @param {Frames} frames
 * @returns {Bounds}
 */
function runBounds(meta, frames) {
  /** @type {Path[]} */
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

/**
 * @param {ViewerMeta} meta
 * @param {Frames} frames
 * @param {Bounds} sceneBounds
 * @param {number} size
 */
function currentView(meta, frames, sceneBounds, size) {
  if (state.framing === 'evaluator') {
    // The evaluator frames the live blocks' collider bounds when the window ends; before that, follow them.
    const s = Math.min(state.playback.step, meta.windowEnd);
    /** @type {Path[]} */
    const sets = [];
    meta.bodies.forEach((body, i) => {
      const p = poseAt(frames, s, i);
      if (body.framesImage && p.alive) sets.push(placePath(body.outline[0], p.x, p.y, p.angle));
    });
    const bound = boundsOf(sets);
    if (bound) return evaluatorView(bound, size);
  }
  return fitView(sceneBounds, size, size, 10);
}

// --- Panels --------------------------------------------------------------------------------------

/** @param {BodyReport} b */
function reasonOf(b) {
  if (!b.reason) return '';
  // Bodies that started to move but ended within the threshold are listed for the chains they belong to.
  return b.moved || b.crossStep !== null || b.deathStep !== null ? b.reason.text : `(stayed) ${b.reason.text}`;
}

/**
 * Selects a body (or clears the selection): the scene, the table row and the chart line follow.
 * @param {number | null} id
 * @param {{ seekToOnset?: boolean, scroll?: boolean }} [options]
 */
function select(id, { seekToOnset = false, scroll = false } = {}) {
  state.selected = id;
  const b = id === null ? undefined : state.meta?.explanation.bodies.find((x) => x.id === id);
  if (seekToOnset && b && b.onsetStep !== null) state.playback = seek(pause(state.playback), b.onsetStep);
  render();
  if (scroll && id !== null) document.querySelector(`#blocks tbody tr[data-id="${id}"]`)?.scrollIntoView({ block: 'nearest' });
}

/** @param {ViewerMeta} meta */
function buildTable(meta) {
  const tbody = /** @type {HTMLTableSectionElement} */ ($('blocks').querySelector('tbody'));
  tbody.textContent = '';
  const e = meta.explanation;
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

/** @param {ViewerMeta} meta */
function buildTimeline(meta) {
  const ol = $('timeline');
  ol.textContent = '';
  const e = meta.explanation;
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

/**
 * @param {string} src
 * @param {string} caption
 */
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

/**
 * @param {string} key
 * @param {ViewerMeta} meta
 */
function buildImages(key, meta) {
  const div = $('images');
  div.textContent = '';
  const base = `api/trial/${encodeKey(key)}`;
  if (meta.hasCapture) div.append(figure(`${base}/capture.png`, `final capture (${meta.source})`));
  const session = state.session;
  const trial = session?.mode === 'competition' ? session.trials.find((t) => t.key === key.replace(/@\d+$/, '')) : undefined;
  if (trial?.hasImage) div.append(figure(`${base}/image.png`, 'image in the folder'));
  if (session?.hasReference) div.append(figure('api/reference.png', 'reference (Unity)'));
  if (!div.firstChild) div.textContent = 'no images for this trial';
}

/**
 * A trial that never became a level: listed with its reason, nothing to open.
 * @param {SessionTrial} t
 */
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

/** @param {SessionTrial[]} trials */
function buildTrialList(trials) {
  const nav = $('trials');
  nav.hidden = false;
  const list = $('trial-list');
  /** @param {string} filter */
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
  $input('trial-filter').addEventListener('input', (ev) => render(/** @type {HTMLInputElement} */ (ev.target).value));
}

// --- Rendering -------------------------------------------------------------------------------------

/** @param {HTMLCanvasElement} canvas */
function setupCanvas(canvas) {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth || canvas.width;
  const h = canvas.clientHeight || canvas.height;
  if (canvas.width !== Math.round(w * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
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
  const { meta, frames, series, sceneBounds, playback } = state;
  if (!meta || !frames || !series || !sceneBounds) return;
  fitScene();
  const step = playback.step;
  const e = meta.explanation;
  const threshold = e.threshold;
  /** @type {Set<number>} */
  const movingNow = new Set();
  series.forEach((s, i) => {
    if (s[step] >= threshold) movingNow.add(i);
  });

  const sc = setupCanvas(scene);
  /** @type {Array<[number, number, number]>} */
  const placedLabels = [];
  state.view = currentView(meta, frames, sceneBounds, sc.w);
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
    series,
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
  $input('scrubber').value = String(step);
  if (document.activeElement !== $('seek-step')) $input('seek-step').value = String(step);
  $select('speed').value = String(playback.speed);
  const inWindow = step <= meta.windowEnd ? '' : ' (after the window)';
  $('clock').textContent = `step ${step} · ${stepToTime(step, meta.dt).toFixed(2)} s${inWindow}`;
  document
    .querySelectorAll('#blocks tbody tr')
    .forEach((tr) => tr.classList.toggle('selected', Number(/** @type {HTMLElement} */ (tr).dataset.id) === state.selected));
  document.querySelectorAll('#timeline li').forEach((li) => li.classList.toggle('past', Number(/** @type {HTMLElement} */ (li).dataset.step) <= step));

  // The current frame as data, for tests and tools: [x, y, angle, alive] per body in body order.
  const out = /** @type {HTMLOutputElement} */ ($('frame-state'));
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

/**
 * The chart's legend: what each line colour and dash means, with the block numbers it applies to.
 * @param {Explanation} e
 */
function buildChartLegend(e) {
  const moved = e.bodies.filter((b) => b.moved && b.id !== e.firstMover).map((b) => b.id);
  /** @type {Array<[string, string, string]>} */
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

/**
 * A click on the scene selects the block under it (the top one), or clears the selection.
 * @param {MouseEvent} ev
 */
function pickAt(ev) {
  const { meta, frames, view } = state;
  if (!meta || !frames || !view) return;
  const [x, y] = pixelToWorld(view, ev.offsetX, ev.offsetY);
  const step = state.playback.step;
  const shapes = meta.bodies.map((body, i) => {
    if ((state.removedAt.get(i) ?? Infinity) <= step) return null;
    const p = poseAt(frames, step, i);
    return body.outline.map((path) => placePath(path, p.x, p.y, p.angle));
  });
  const i = pickBody(shapes, x, y);
  select(i < 0 ? null : meta.bodies[i].id, { scroll: true });
}

// --- Controls --------------------------------------------------------------------------------------

/** @param {import('./playback.js').Playback} next */
function update(next) {
  state.playback = next;
  render();
}

/** @type {number | null} */
let lastTime = null;
/** @param {number} now */
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
    $select('speed').append(o);
  }
  $('play').addEventListener('click', () => update(toggle(state.playback)));
  $('prev').addEventListener('click', () => update(stepBy(state.playback, -1)));
  $('next').addEventListener('click', () => update(stepBy(state.playback, 1)));
  $('first').addEventListener('click', () => update(seek(pause(state.playback), 0)));
  $('last').addEventListener('click', () => update(seek(pause(state.playback), state.playback.stepCount - 1)));
  $select('speed').addEventListener('change', () => update(setSpeed(state.playback, Number($select('speed').value))));
  $input('scrubber').addEventListener('input', () => update(seek(pause(state.playback), Number($input('scrubber').value))));
  const go = () => update(seek(pause(state.playback), Number($input('seek-step').value)));
  $('seek-go').addEventListener('click', go);
  $('seek-step').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') go();
  });
  $select('style').addEventListener('change', () => {
    state.style = /** @type {Look} */ ($select('style').value);
    render();
  });
  $select('framing').addEventListener('change', () => {
    state.framing = /** @type {PageState['framing']} */ ($select('framing').value);
    render();
  });
  scene.addEventListener('click', pickAt);
  window.addEventListener('resize', () => render());
  // The scene box's height is what the column leaves once the legend and options have their final
  // size (they fill in after the first frame): re-fit whenever the box itself changes size.
  new ResizeObserver(() => render()).observe($('scene-box'));
  for (const id of /** @type {const} */ (['labels', 'highlights', 'vectors', 'contacts'])) {
    $input(id).addEventListener('change', () => {
      state[id] = $input(id).checked;
      render();
    });
  }
  let dragging = false;
  /** @param {MouseEvent} ev */
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
  /** @type {ViewerSession} */
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
  const asked = hash.trial;
  const wanted = asked && session.trials.some((t) => t.key === asked.replace(/@\d+$/, '')) ? asked : null;
  const first = wanted ?? session.trials.find((t) => t.hasTrace || t.hasLevel)?.key;
  if (first) await openTrial(first, wanted ? (hash.step ?? 0) : 0);
  else setStatus('no trials with a trace or a level in this folder');
}

main().catch((err) => setStatus(err.message, true));
