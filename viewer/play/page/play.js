// The playground page: what the user pastes or drops goes through the evaluator in this page
// (viewer/play/evaluate.ts: extraction, conversion, the headless engine's trials, stability, the image),
// then the viewer's drawing modules (viewer/static/) show trial 1 frame by frame. Nothing is uploaded;
// the input is kept in the URL fragment so a link reproduces the level.

import { evaluateXml, guessKind, prepareLevel } from '../evaluate.js';
import { clearPanel, openTrial, showImage, state, wirePanel } from './panel.js';
import { initSimilarity, similarityOf } from './similarity.js';

const $ = (id) => document.getElementById(id);

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
  wirePanel();
  wireInput();
  initSimilarity(() => state.result?.image);
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
