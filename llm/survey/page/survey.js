// The survey page: by invitation only. The rater's link carries a token in its fragment
// (#invite=…), which the page keeps in this browser and sends with every request (X-Survey-Token);
// the server knows the rater from it. Then one item at a time in the rater's own order. Every change
// is sent to the server at once (PUT api/me/<item>), which writes it atomically before it answers; a
// reload asks the server for the answers and resumes at the first unfinished item.

/** @typedef {import('../page-data.js').PublicSurvey} PublicSurvey */
/** @typedef {import('../page-data.js').PublicItem} PublicItem */
/** @typedef {import('../page-data.js').RaterAnswer} RaterAnswer */
/** @typedef {import('../page-data.js').RaterView} RaterView */
/** @typedef {PublicSurvey['metrics'][number]} Metric */

/**
 * The page's element with that id: index.html has every id this script asks for.
 * @param {string} id
 */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** @param {string} id */
const $button = (id) => /** @type {HTMLButtonElement} */ ($(id));
/** @param {string} id */
const $img = (id) => /** @type {HTMLImageElement} */ ($(id));
const TOKEN_KEY = 'sbeval-survey-token';

/**
 * @typedef {object} SurveyState
 * @property {PublicSurvey | null} survey
 * @property {string | null} token
 * @property {string[]} order
 * @property {Record<string, RaterAnswer>} answers
 * @property {number} index
 * @property {number} pending
 */

/** @type {SurveyState} */
const state = { survey: null, token: null, order: [], answers: {}, index: 0, pending: 0 };

/** The survey, once loaded: everything that shows an item runs after `main` loaded it. */
function survey() {
  if (!state.survey) throw new Error('the survey is not loaded yet (cannot happen: items are shown only after it loaded)');
  return state.survey;
}

/**
 * @param {string} text
 * @param {boolean} [error]
 */
function setStatus(text, error = false) {
  $('status').textContent = text;
  $('status').className = error ? 'error' : '';
}

/**
 * @param {'GET' | 'PUT' | 'POST'} method
 * @param {string} url
 * @param {unknown} [body]
 * @returns {Promise<any>} The JSON the server sent (typed by the caller).
 */
async function api(method, url, body) {
  /** @type {Record<string, string>} */
  const headers = { 'x-survey-token': state.token ?? '' };
  if (method !== 'GET') headers['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers, body: method === 'GET' ? undefined : JSON.stringify(body ?? {}) });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error ?? `${url}: HTTP ${res.status}`);
  return data;
}

/** @param {string} itemId */
function complete(itemId) {
  const values = state.answers[itemId]?.values ?? {};
  return survey().metrics.every((m) => typeof values[m.id] === 'number');
}

function updateProgress() {
  const answered = state.order.filter(complete).length;
  const p = $('progress');
  p.dataset.answered = String(answered);
  p.dataset.total = String(state.order.length);
  p.textContent = `${answered} of ${state.order.length} items rated`;
}

/** The invitation from the link (kept in this browser), and the item in the URL; the token leaves the address bar. */
function readHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  const invite = params.get('invite');
  if (invite) localStorage.setItem(TOKEN_KEY, invite);
  return { token: invite ?? localStorage.getItem(TOKEN_KEY), item: params.get('item') };
}

function writeHash() {
  history.replaceState(null, '', `#item=${encodeURIComponent(state.order[state.index] ?? '')}`);
}

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string>} [attrs]
 * @param {string} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
function el(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

// The pictures need the invitation like the API: fetched with the token, shown from a blob URL.
/** @type {Map<string, string>} */
const pictures = new Map();
/**
 * @param {HTMLImageElement} img
 * @param {string} path
 */
async function showPicture(img, path) {
  img.removeAttribute('src');
  const old = pictures.get(img.id);
  if (old) URL.revokeObjectURL(old);
  pictures.delete(img.id);
  img.dataset.picture = path;
  const res = await fetch(`/${path}`, { headers: { 'x-survey-token': state.token ?? '' } });
  if (!res.ok) return setStatus(`picture not available: HTTP ${res.status}`, true);
  const blob = await res.blob();
  // The rater may have moved on to another item meanwhile.
  if (img.dataset.picture !== path) return;
  const url = URL.createObjectURL(blob);
  pictures.set(img.id, url);
  img.src = url;
}

/** @param {PublicItem} item */
function renderLevel(item) {
  // The item's id is in the title because the replay viewer is titled by it.
  $('item-title').textContent = `Item ${state.index + 1} of ${state.order.length} (${item.id}) — target letter "${item.letter}"`;
  void showPicture($img('start-image'), item.start);
  $('final-image').hidden = !item.final;
  $('no-final').hidden = Boolean(item.final);
  if (item.final) void showPicture($img('final-image'), item.final);
  $('grid').textContent = item.grid ?? '(no drop grid in this folder)';
  $('replay-frame').hidden = true;
  $('replay-frame').removeAttribute('src');
  $('history-note').textContent = item.historyNote ?? '';
  $('history').replaceChildren(
    ...item.history.map((m) => {
      const box = el('div', { class: 'message' });
      box.append(
        el('div', { class: 'role' }, m.role === 'assistant' ? 'Model response' : m.role === 'system' ? 'System prompt' : 'Prompt'),
        el('pre', {}, m.content),
      );
      return box;
    }),
  );
}

/**
 * @param {string} itemId
 * @param {Metric} metric
 * @param {Record<string, number>} values
 */
function metricBox(itemId, metric, values) {
  const box = el('fieldset', { class: 'metric', 'data-metric': metric.id });
  box.append(el('legend', {}, metric.name), el('p', { class: 'question' }, metric.question));
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
}

function renderItem() {
  const itemId = state.order[state.index];
  const item = survey().items.find((i) => i.id === itemId);
  if (!item) throw new Error(`item ${itemId} is not in the survey (cannot happen: the order lists the survey's items)`);
  $('login').hidden = true;
  $('done').hidden = true;
  $('item').hidden = false;
  $('item').dataset.item = itemId;
  $('item').dataset.index = String(state.index);
  renderLevel(item);
  const values = state.answers[itemId]?.values ?? {};
  const comment = el('textarea', { id: 'comment', placeholder: 'Comment (optional)' });
  comment.value = state.answers[itemId]?.comment ?? '';
  comment.addEventListener('change', () => saveComment(itemId, comment.value));
  $('ratings').replaceChildren(...survey().metrics.map((m) => metricBox(itemId, m, values)), comment);
  $button('prev').disabled = state.index === 0;
  $button('next').disabled = !complete(itemId);
  $('next').textContent = state.index === state.order.length - 1 ? 'Finish' : 'Next';
  writeHash();
  updateProgress();
}

function renderHelp() {
  $('instructions').textContent = survey().instructions;
  $('metric-help').replaceChildren(
    ...survey().metrics.map((metric) => {
      const box = el('div', { class: 'metric-help' });
      box.append(el('strong', {}, metric.name), el('p', {}, metric.instructions));
      for (const [title, list] of /** @type {Array<[string, string[]]>} */ ([
        ['Do not penalise:', metric.notPenalised],
        ['Do penalise:', metric.penalised],
      ])) {
        if (!list.length) continue;
        const ul = el('ul');
        ul.append(...list.map((t) => el('li', {}, t)));
        box.append(el('div', {}, title), ul);
      }
      return box;
    }),
  );
}

function renderDone() {
  $('item').hidden = true;
  $('login').hidden = true;
  $('done').hidden = false;
  $('done-text').textContent = `You rated all ${state.order.length} items. Your answers are saved; you may close this page.`;
  updateProgress();
}

/**
 * @param {string} itemId
 * @param {{ values: Record<string, number>, comment?: string }} body
 */
async function send(itemId, body) {
  state.pending += 1;
  document.body.dataset.saving = 'true';
  setStatus('saving…');
  try {
    const data = await api('PUT', `api/me/${encodeURIComponent(itemId)}`, body);
    state.answers[itemId] = data.answer;
    setStatus('saved');
  } catch (error) {
    setStatus(`not saved: ${/** @type {Error} */ (error).message}`, true);
  } finally {
    state.pending -= 1;
    if (state.pending === 0) document.body.dataset.saving = 'false';
    if (state.order[state.index] === itemId) $button('next').disabled = !complete(itemId);
    updateProgress();
  }
}

/**
 * @param {string} itemId
 * @param {string} metricId
 * @param {number} value
 */
function saveValue(itemId, metricId, value) {
  const entry = (state.answers[itemId] ??= { values: {} });
  entry.values = { ...entry.values, [metricId]: value };
  $button('next').disabled = !complete(itemId);
  return send(itemId, { values: { [metricId]: value } });
}

/**
 * @param {string} itemId
 * @param {string} comment
 */
function saveComment(itemId, comment) {
  return send(itemId, { values: {}, comment });
}

/** @param {number} index */
function go(index) {
  if (index >= state.order.length) return renderDone();
  state.index = Math.max(0, index);
  renderItem();
  const level = $('item').querySelector('.level');
  if (level) level.scrollTop = 0;
}

/** @param {string | null} wanted */
async function start(wanted) {
  /** @type {RaterView} */
  const me = await api('GET', 'api/me');
  state.order = me.order;
  state.answers = me.answers;
  document.body.dataset.rater = me.rater;
  const firstOpen = state.order.findIndex((id) => !complete(id));
  if (firstOpen < 0) return renderDone();
  // Resume where the rater left off: the first unfinished item (or the one in the URL, if earlier).
  const fromUrl = wanted ? state.order.indexOf(wanted) : -1;
  go(fromUrl >= 0 && fromUrl < firstOpen ? fromUrl : firstOpen);
}

async function replay() {
  const itemId = state.order[state.index];
  try {
    setStatus('starting the replay…');
    const { url } = await api('POST', `api/replay/${encodeURIComponent(itemId)}`, {});
    /** @type {HTMLIFrameElement} */ ($('replay-frame')).src = url;
    $('replay-frame').hidden = false;
    setStatus('');
  } catch (error) {
    setStatus(/** @type {Error} */ (error).message, true);
  }
}

async function main() {
  const { token, item } = readHash();
  state.token = token;
  $('prev').addEventListener('click', () => go(state.index - 1));
  $('next').addEventListener('click', () => go(state.index + 1));
  $('review').addEventListener('click', () => go(0));
  $('replay').addEventListener('click', replay);
  if (!token) {
    $('login').hidden = false;
  } else {
    /** @type {PublicSurvey} */
    const loaded = await api('GET', 'api/survey');
    state.survey = loaded;
    $('title').textContent = loaded.title;
    document.title = loaded.title;
    renderHelp();
    await start(item);
  }
  document.body.dataset.loaded = 'true';
}

main().catch((/** @type {Error} */ error) => {
  setStatus(error.message, true);
  if (!state.survey) $('login').hidden = false;
  document.body.dataset.loaded = 'true';
});
