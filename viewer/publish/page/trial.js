// A published competition's trial page (`sbeval publish`): the trial named in the URL fragment
// (`#team=…&letter=…&trial=…`), its verdict as the stability file recorded it, the failure reason of a
// trial without a level, and the replay recomputed in this page from the level's XML by the playground's
// evaluation (viewer/play/evaluate.ts) and panel — with a visible mark when the two disagree. The
// trials of one team and letter come in a classic script beside the page (data/…js, written by
// orchestrator/publish/site.ts), so the page works from file:// and asks for nothing outside its folder.

import { evaluateXml } from '../../play/evaluate.js';
import { clearPanel, openTrial, showImage, wirePanel } from '../../play/page/panel.js';
import { agrees, dataScriptName } from '../verdict.js';

const $ = (id) => document.getElementById(id);

/** The data scripts loaded so far, by file name: each calls `sbevalSiteData` with its trials. */
const loaded = new Map();

window.sbevalSiteData = (group) => loaded.set(dataScriptName(group.team, group.letter), group);

function loadGroup(team, letter) {
  const name = dataScriptName(team, letter);
  if (loaded.has(name)) return Promise.resolve(loaded.get(name));
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = `data/${encodeURIComponent(name)}`;
    script.onload = () => (loaded.has(name) ? resolve(loaded.get(name)) : reject(new Error(`${name} holds no trials`)));
    script.onerror = () => reject(new Error(`no trials of ${team} ${letter} in this site`));
    document.head.append(script);
  });
}

const verdictText = (v) => `stability ${v.score} — ${v.movingObjects} of ${v.startingObjects} objects moving`;

/** Shows one trial and gives what the page shows (what the tests read). */
async function show(team, letter, trial) {
  const group = await loadGroup(team, letter);
  const t = group.trials.find((x) => x.trial === String(trial));
  if (!t) throw new Error(`no trial ${trial} of ${team} ${letter} in this site`);
  $('title').textContent = `${team} · ${letter} · trial ${trial}`;
  $('recorded').textContent = t.recorded ? verdictText(t.recorded) : 'no stability recorded';
  $('reason').hidden = !t.reason;
  $('reason').textContent = t.reason ? `failed: ${t.reason}` : '';
  $('mismatch').hidden = true;
  clearPanel();
  if (!t.xml) {
    $('verdict').textContent = 'no level to replay';
    return { recorded: t.recorded, reason: t.reason, page: null, agree: t.recorded === null };
  }
  const result = evaluateXml(`${team} ${letter} ${trial}`, t.xml);
  const page = result.ok
    ? { score: result.stability.score, startingObjects: result.stability.startingObjects, movingObjects: result.stability.movingObjects }
    : null;
  $('verdict').textContent = page ? verdictText(page) : `failed: ${result.reason}`;
  const agree = agrees(t.recorded, page);
  $('mismatch').hidden = agree;
  document.body.dataset.agree = String(agree);
  if (result.ok) {
    openTrial(result);
    await showImage(result.image);
  }
  return { recorded: t.recorded, reason: t.reason, page, agree };
}

function fromHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  const team = params.get('team');
  const letter = params.get('letter');
  const trial = params.get('trial');
  if (team === null || letter === null || trial === null) return;
  show(team, letter, trial)
    .catch((err) => {
      $('verdict').textContent = err.message;
    })
    .finally(() => {
      document.body.dataset.shown = location.hash;
    });
}

function main() {
  wirePanel();
  // The page's own entry point for tools and tests.
  window.sbevalTrial = { show };
  window.addEventListener('hashchange', fromHash);
  fromHash();
  document.body.dataset.ready = 'true';
}

main();
