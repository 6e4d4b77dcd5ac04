// The ViT in the page: the user picks an ONNX model file, read here and never uploaded; onnxruntime-web's
// WebAssembly build is loaded from the page's own folder (ort/, copied there at build time: no CDN) the
// first time a model is chosen. The model's input and the 26 probabilities come from the similarity
// stage's own modules (viewer/play/similarity.ts).

import { letterProbabilitiesOf, modelInfoOf, modelInput } from '../similarity.js';

const $ = (id) => document.getElementById(id);
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('');

/** The chosen model: its onnxruntime session and what its metadata says; null until one is chosen. */
let model = null;

function setStatus(text, error = false) {
  $('model-status').textContent = text;
  $('model-status').className = error ? 'error' : '';
}

async function loadRuntime() {
  const base = new URL('ort/', document.baseURI).href;
  const ort = await import(`${base}ort.wasm.bundle.min.mjs`);
  // Only the binary's address: the glue is inlined in this build (a prefix would fetch a separate one).
  ort.env.wasm.wasmPaths = { wasm: `${base}ort-wasm-simd-threaded.wasm` };
  // Threads need a cross-origin-isolated page, which a static host or file:// does not give.
  ort.env.wasm.numThreads = 1;
  return ort;
}

async function openModel(file) {
  setStatus(`reading ${file.name}…`);
  const bytes = new Uint8Array(await file.arrayBuffer());
  const info = modelInfoOf(bytes);
  const ort = await loadRuntime();
  const session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
  const inputName = session.inputNames.includes(info.inputName) ? info.inputName : session.inputNames[0];
  if (!session.outputNames.includes(info.logitsName)) throw new Error(`the model has no "${info.logitsName}" output (outputs: ${session.outputNames})`);
  model = { ort, session, info, inputName, name: file.name };
  setStatus(`model ${file.name}: read in this page, nothing uploaded`);
}

function showProbabilities(probabilities) {
  const table = $('probabilities');
  const tbody = table.querySelector('tbody');
  tbody.textContent = '';
  const letter = $('letter').value;
  $('similarity').textContent = `similarity to ${letter}: ${probabilities[LETTERS.indexOf(letter)].toFixed(6)}`;
  probabilities.forEach((p, i) => {
    const tr = document.createElement('tr');
    if (LETTERS[i] === letter) tr.className = 'first';
    for (const text of [LETTERS[i], p.toFixed(6)]) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.append(td);
    }
    tbody.append(tr);
  });
  table.hidden = false;
}

/** The image's 26 letter probabilities and the chosen letter's, or null when no model is chosen. */
export async function similarityOf(mask) {
  if (!model || !mask) {
    $('probabilities').hidden = true;
    $('similarity').textContent = '';
    return null;
  }
  const { tensor, dims } = modelInput(mask, model.info);
  const out = await model.session.run({ [model.inputName]: new model.ort.Tensor('float32', tensor, dims) });
  const probabilities = letterProbabilitiesOf(out[model.info.logitsName].data, model.info);
  showProbabilities(probabilities);
  const letter = $('letter').value;
  return { probabilities, letter, similarity: probabilities[LETTERS.indexOf(letter)] };
}

/** Wires the model picker and the letter choice; `currentImage` gives the image shown, if any. */
export function initSimilarity(currentImage) {
  for (const l of LETTERS) $('letter').append(new Option(l, l));
  const refresh = () => similarityOf(currentImage()).catch((err) => setStatus(err.message, true));
  $('letter').addEventListener('change', refresh);
  $('model').addEventListener('change', (ev) => {
    const file = ev.target.files[0];
    if (!file) return;
    openModel(file)
      .then(refresh)
      .catch((err) => {
        model = null;
        // Browsers load no module script from file://: the runtime needs the page served (sbeval play, any static host).
        const hint = location.protocol === 'file:' ? ' — the ONNX runtime does not load from file://: serve this folder over HTTP' : '';
        setStatus(`${file.name} cannot be used: ${err.message}${hint}`, true);
      });
  });
}
