// The survey page: a rater id, then one item at a time in the rater's own order. Every change is
// sent to the server at once (PUT /api/rater/<id>/<item>), which writes it atomically before it
// answers; a reload asks the server for the answers and resumes at the first unfinished item.
const $ = (id) => document.getElementById(id);
const state = { survey: null, rater: null, order: [], answers: {}, index: 0, pending: 0 };

function setStatus(text, error = false) {
  $('status').textContent = text;
  $('status').className = error ? 'error' : '';
}

async function api(method, url, body) {
  const res = await fetch(url, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error ?? `${url}: HTTP ${res.status}`);
  return data;
}

function complete(itemId) {
  const values = state.answers[itemId]?.values ?? {};
  return state.survey.metrics.every((m) => typeof values[m.id] === 'number');
}

function updateProgress() {
  const answered = state.order.filter(complete).length;
  const p = $('progress');
  p.dataset.answered = String(answered);
  p.dataset.total = String(state.order.length);
  p.textContent = `${answered} of ${state.order.length} items rated`;
}

function readRaterFromUrl() {
  return new URLSearchParams(location.hash.slice(1)).get('rater');
}

function writeHash() {
  const params = new URLSearchParams();
  params.set('rater', state.rater);
  params.set('item', state.order[state.index] ?? '');
  history.replaceState(null, '', `#${params.toString()}`);
}

function el(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function renderItem() {
  const itemId = state.order[state.index];
  const item = state.survey.items.find((i) => i.id === itemId);
  $('login').hidden = true;
  $('done').hidden = true;
  $('item').hidden = false;
  const section = $('item');
  section.dataset.item = itemId;
  section.dataset.index = String(state.index);
  $('item-title').textContent = `Item ${state.index + 1} of ${state.order.length} — target letter "${item.letter}"`;
  $('start-image').src = `/${item.start}`;
  $('final-image').hidden = !item.final;
  $('no-final').hidden = Boolean(item.final);
  if (item.final) $('final-image').src = `/${item.final}`;
  $('grid').textContent = item.grid ?? '(no drop grid in this folder)';
  $('replay-frame').hidden = true;
  $('replay-frame').removeAttribute('src');
  $('history-note').textContent = item.historyNote ?? '';
  const history = $('history');
  history.replaceChildren(
    ...item.history.map((m) => {
      const box = el('div', { class: 'message' });
      box.append(el('div', { class: 'role' }, m.role === 'assistant' ? 'Model response' : m.role === 'system' ? 'System prompt' : 'Prompt'), el('pre', {}, m.content));
      return box;
    }),
  );
  const form = $('ratings');
  const values = state.answers[itemId]?.values ?? {};
  form.replaceChildren(
    ...state.survey.metrics.map((metric) => {
      const box = el('fieldset', { class: 'metric', 'data-metric': metric.id });
      box.append(el('h3', {}, metric.name), el('p', { class: 'question' }, metric.question), el('p', {}, metric.instructions));
      if (metric.notPenalised.length) {
        box.append(el('div', {}, 'Do not penalise:'));
        const ul = el('ul');
        ul.append(...metric.notPenalised.map((t) => el('li', {}, t)));
        box.append(ul);
      }
      if (metric.penalised.length) {
        box.append(el('div', {}, 'Do penalise:'));
        const ul = el('ul');
        ul.append(...metric.penalised.map((t) => el('li', {}, t)));
        box.append(ul);
      }
      const scale = el('div', { class: 'scale' });
      for (let v = metric.scale.min; v <= metric.scale.max; v += 1) {
        const label = el('label');
        const input = el('input', { type: 'radio', name: metric.id, value: String(v), 'data-metric': metric.id, 'data-value': String(v) });
        if (values[metric.id] === v) input.checked = true;
        input.addEventListener('change', () => saveValue(itemId, metric.id, v));
        label.append(input, el('span', {}, String(v)), el('span', {}, metric.scale.labels[String(v)] ?? ''));
        scale.append(label);
      }
      box.append(scale);
      return box;
    }),
  );
  const comment = el('textarea', { id: 'comment', placeholder: 'Comment (optional)' });
  comment.value = state.answers[itemId]?.comment ?? '';
  comment.addEventListener('change', () => saveComment(itemId, comment.value));
  form.append(comment);
  $('prev').disabled = state.index === 0;
  $('next').disabled = !complete(itemId);
  $('next').textContent = state.index === state.order.length - 1 ? 'Finish' : 'Next';
  writeHash();
  updateProgress();
}

function renderDone() {
  $('item').hidden = true;
  $('login').hidden = true;
  $('done').hidden = false;
  $('done-text').textContent = `You rated all ${state.order.length} items. Your answers are saved; you may close this page.`;
  updateProgress();
}

async function send(itemId, body) {
  state.pending += 1;
  document.body.dataset.saving = 'true';
  setStatus('saving…');
  try {
    const data = await api('PUT', `/api/rater/${encodeURIComponent(state.rater)}/${encodeURIComponent(itemId)}`, body);
    state.answers = data.answers;
    setStatus('saved');
  } catch (error) {
    setStatus(`not saved: ${error.message}`, true);
  } finally {
    state.pending -= 1;
    if (state.pending === 0) document.body.dataset.saving = 'false';
    if (state.order[state.index] === itemId) $('next').disabled = !complete(itemId);
    updateProgress();
  }
}

function saveValue(itemId, metricId, value) {
  const entry = (state.answers[itemId] ??= { values: {} });
  entry.values = { ...entry.values, [metricId]: value };
  $('next').disabled = !complete(itemId);
  return send(itemId, { values: { [metricId]: value } });
}

function saveComment(itemId, comment) {
  return send(itemId, { values: {}, comment });
}

function go(index) {
  if (index >= state.order.length) return renderDone();
  state.index = Math.max(0, index);
  renderItem();
  window.scrollTo(0, 0);
}

async function startRater(rater) {
  state.rater = rater;
  localStorage.setItem('sbeval-survey-rater', rater);
  const data = await api('GET', `/api/rater/${encodeURIComponent(rater)}`);
  state.order = data.order;
  state.answers = data.answers;
  const wanted = new URLSearchParams(location.hash.slice(1)).get('item');
  const firstOpen = state.order.findIndex((id) => !complete(id));
  if (firstOpen < 0) return renderDone();
  // Resume where the rater left off: the first unfinished item (or the one in the URL, if earlier).
  const fromUrl = wanted ? state.order.indexOf(wanted) : -1;
  go(fromUrl >= 0 && fromUrl < firstOpen ? fromUrl : firstOpen);
}

async function main() {
  state.survey = await api('GET', '/api/survey');
  $('title').textContent = state.survey.title;
  document.title = state.survey.title;
  $('intro').textContent = state.survey.instructions;
  $('login-form').addEventListener('submit', (event) => {
    event.preventDefault();
    startRater($('rater-input').value.trim()).catch((e) => setStatus(e.message, true));
  });
  $('prev').addEventListener('click', () => go(state.index - 1));
  $('next').addEventListener('click', () => go(state.index + 1));
  $('review').addEventListener('click', () => go(0));
  $('replay').addEventListener('click', async () => {
    const itemId = state.order[state.index];
    try {
      setStatus('starting the replay…');
      const { url } = await api('POST', `/api/replay/${encodeURIComponent(itemId)}`);
      $('replay-frame').src = url;
      $('replay-frame').hidden = false;
      setStatus('');
    } catch (error) {
      setStatus(error.message, true);
    }
  });
  const rater = readRaterFromUrl() ?? localStorage.getItem('sbeval-survey-rater');
  if (rater) await startRater(rater);
  else $('login').hidden = false;
  document.body.dataset.loaded = 'true';
}

main().catch((error) => setStatus(error.message, true));
