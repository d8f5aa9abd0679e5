// The demo page: wires the store (web/app/state/store.js), the conversation with the engine's worker
// (requests.js, which appends each step it returns to step-store.js) and one module per panel:
// form.js, stepper.js, output-panel.js, logits-panel.js, attention-view.js (with model-view.js
// and beam-view.js), modified-banner.js, the "Break the model" panel (interventions.js) and the
// "Analyses" card (analyses.js) and the Training panel (training.js). It only displays what the
// engine returns.
import { findModel, modelUrl, noteTrainingPresets } from '../models.js';
import { AnalysesPanel } from './panels/analyses.js';
import { BleuByLengthPanel } from './panels/bleu-by-length.js';
import { renderArchitecture } from './panels/architecture-panel.js';
import { describeArchitecture } from './model/architecture.js';
import { EncoderPage } from './panels/encoder-page.js';
import { AttentionView, shownInterventions } from './views/attention-view.js';
import { CompareView } from './panels/compare.js';
import { getEngine } from './worker/client.js';
import { exportAs } from './util/export.js';
import { exportData } from './util/data-export.js';
import { paneData, paneSVG } from './views/pane-export.js';
import { wireForceAny } from './panels/force-any.js';
import { addModelOption, buildModelPicker, fillForm, noteUnknownModel, readForm, renderLengthHint, renderVocabHint, showModeOptions } from './panels/form.js';
import { HEATMAP_CSS } from './views/heatmap.js';
import { byId as $ } from './util/html.js';
import { InterventionsPanel } from './panels/interventions.js';
import { logitsData, logitsSVG } from './views/logits.js';
import { labelOf } from './util/pieces.js';
import { renderLogitsPanel } from './panels/logits-panel.js';
import { renderModified } from './panels/modified-banner.js';
import { renderOutput } from './panels/output-panel.js';
import { renderInputKind } from './panels/prompt-mode.js';
import { LogitLensPanel } from './panels/logit-lens.js';
import { AttributionPanel } from './panels/attribution.js';
import { createRequests } from './worker/requests.js';
import { formatState, hasInterventions, noInterventions, parseState } from './state/state.js';
import { createPlayer, renderStepper, trackStepperHeight } from './panels/stepper.js';
import { pageStore } from './state/store.js';
import { TrainingPanel } from './panels/training.js';
import { OpenModel, applyGeneration, offerModel } from './panels/open-model.js';
import { renderModelCard } from './panels/model-card.js';
import { readModelUrl } from './state/model-url.js';
import { TRAINED_PREFIX } from './state/trained.js';

const app = $('app');
const engine = getEngine(); // starts the worker and the WebAssembly compile at once

const style = document.createElement('style');
style.textContent = HEATMAP_CSS;
document.head.append(style);

const { search, refused: refusedModelUrl } = readModelUrl(location.search, location.href); // ?model-url=URL is model=URL
// A link to a model trained in a page may name one of the engine's training presets: the page
// reads it once the worker has said which there are (such a link waits for the engine to train
// anyway). Without them, only a name of the first preset is a model (state/trained.js).
if (new URLSearchParams(search).get('model')?.startsWith(TRAINED_PREFIX)) {
  await engine.request('trainingPresets').then(noteTrainingPresets, (e) => console.warn('attnscope: no training presets:', e.message));
}
const store = pageStore(parseState(search));
/** The parts of the URL state the attention card shows (a change redraws it). */
const VIEW_KEYS = ['view', 'layer', 'head', 'kind', 'vnorm', 'pin'];

// The URL keeps the page's state. A step's answer writes it a moment later, off the step's path:
// history.replaceState took ~8 ms of a press of Next in Chromium, which then also re-reads the
// page's icon on the main thread (tests/bench/page_latency.mjs). #app[data-url-pending] says a
// write is due (the browser tests' idle() waits for it); pagehide writes it at once.
let urlTimer = 0;
function writeURL({ soon = false } = {}) {
  clearTimeout(urlTimer);
  if (soon) {
    app.dataset.urlPending = 'true';
    urlTimer = setTimeout(writeURL, 200);
    return;
  }
  delete app.dataset.urlPending;
  history.replaceState(null, '', formatState(store.get().st) + location.hash);
}
addEventListener('pagehide', () => { if (app.dataset.urlPending) writeURL(); });

function showError(e) {
  const box = $('error');
  box.hidden = !e;
  box.textContent = e ? (e.name === 'AttnscopeError' ? e.message : `${e.message}`) : '';
}

const panel = new InterventionsPanel($('break'), {
  onChange: (iv) => {
    store.setState({ iv });
    requests.translate({ step: requests.keepStep() });
  },
});
// Encoder-only models (BERT): their own panel, in place of the translation panels.
const encoder = new EncoderPage($('encoder'), { engine, showError });
const requests = createRequests({
  store, engine,
  ui: { showError, stopPlay: () => player.stop(), readForm: () => store.setState(readForm(store.get().st)), panel,
    encoderOnly: async (chosen) => {
      // The "Break the model" panel edits the encoder-only model too: what it takes, on its input pieces.
      panel.render(chosen.iv, chosen.info.sites, [], chosen.info);
      const study = await encoder.show(chosen);
      panel.render(chosen.iv, chosen.info.sites, study.tokens, chosen.info);
      renderModified(chosen.iv, null, chosen.info.sites);
    } },
});
const player = createPlayer({ store, requests });

/** Once, after the first map is drawn: its time, then the offline cache. */
function markFirstHeatmap() {
  if (app.dataset.firstHeatmapMs) return;
  const m = performance.mark('attnscope:first-heatmap');
  app.dataset.firstHeatmapMs = m.startTime.toFixed(0);
  console.info(`attnscope: first heatmap after ${m.startTime.toFixed(0)} ms`);
  // After the first picture is on screen (the task after the next frame; a timeout alone ran
  // before that frame): the offline cache.
  requestAnimationFrame(() => setTimeout(() => {
    if ('serviceWorker' in navigator && location.protocol !== 'file:') {
      navigator.serviceWorker.register(new URL('../sw.js', import.meta.url)).catch((e) => console.warn('attnscope: no offline cache:', e.message));
    }
  }, 0));
}

const attention = new AttentionView({
  store, onGoto: (step) => requests.goto(step), onSelectPath: (ids) => requests.selectPath(ids),
  onNeedTree: () => requests.loadTree(), onFirstHeatmap: markFirstHeatmap,
});

new BleuByLengthPanel($('bleu-length')); // precomputed figures: no engine, no state
const lens = new LogitLensPanel($('logit-lens'), { engine });
const attribution = new AttributionPanel($('attribution'), { engine });

const analyses = new AnalysesPanel($('analyses'), {
  engine,
  state: () => store.get().st,
  set: (changes) => store.setState(changes),
  needVectors: () => requests.fetchVectors(),
  sites: () => store.get().snap?.sites,
});

// A model trained in the panel: every view switches to it (a link to it re-trains it on load;
// meanwhile `restoring` holds the first translation back until the model exists).
let restoring = false;
const training = new TrainingPanel($('training'), {
  engine,
  onTrained: (id, pairs) => {
    addModelOption(id);
    if (restoring) return;
    $('model').value = id;
    // Other pairs than the toy's: the page's sentence may use words the model never saw, so the
    // views show the sentence the panel watched.
    if (pairs) $('sentence').value = training.sentence;
    store.setState({ model: id, pairs });
    requests.translate({ step: 'end' });
  },
});
const compare = new CompareView({ store, engine, root: $('compare-view') });
// A model file the reader opens (picker or drop) is chosen and translated like a shipped one.
const opener = new OpenModel({ engine, showError, onOpened: () => requests.translate({ step: 1 }) });

// A model file named by its URL starts with its own generation defaults (info.generation), once,
// unless the link chose the decoding itself.
const generationApplied = new Set();
function startWithGeneration(info, entry) {
  if (!entry?.fileUrl || !info?.generation || generationApplied.has(entry.id)) return;
  generationApplied.add(entry.id);
  if (entry.id === first.model && new URLSearchParams(search).has('mode')) return;
  applyGeneration(info.generation);
  requests.translate({ step: 1 });
}

function renderLogits(snap) {
  renderLogitsPanel(snap, { scale: $('scale').value, onForce: (id) => requests.force(id), onContrast: (id) => attribution.contrastWith(id) });
}

/**
 * Runs one panel's render and keeps its time in the page's timeline as attnscope:render:NAME (the
 * latest only): the page-latency benchmark (tests/bench/page_latency.mjs) says which panel a
 * press of Next waits for.
 */
function timed(name, draw) {
  const start = performance.now();
  draw();
  performance.clearMeasures(`attnscope:render:${name}`);
  performance.measure(`attnscope:render:${name}`, { start });
}

/** Everything, for a new snapshot. */
function render({ st, snap, original, info }) {
  app.dataset.renders = Number(app.dataset.renders ?? 0) + 1;
  app.dataset.steps = snap.steps;
  app.dataset.done = String(snap.done);
  timed('stepper', () => renderStepper(snap));
  timed('modified', () => renderModified(shownInterventions(snap), original, snap.sites));
  timed('output', () => renderOutput(snap, { onGoto: (step) => requests.goto(step) }));
  timed('logits', () => renderLogits(snap));
  timed('attention', () => attention.render());
  timed('analyses', () => analyses.render(snap));
  timed('logit-lens', () => lens.render(snap, info));
  timed('attribution', () => attribution.render(snap));
  timed('break', () => panel.render(st.iv, snap.sites, snap.source.pieces, info));
}

store.subscribe((state, changed, before) => {
  if (changed.has('st')) writeURL({ soon: changed.has('snap') });
  if (changed.has('info')) {
    renderVocabHint(state.info);
    renderLengthHint(state.info);
    $('arch-family').textContent = describeArchitecture(state.info).family;
    renderArchitecture($('arch-body'), state.info, { name: findModel(state.st.model)?.label });
    renderModelCard($('model-card'), state.info, findModel(state.st.model));
    lens.setModel(state.info);
    startWithGeneration(state.info, findModel(state.st.model));
  }
  if (changed.has('snap')) encoder.hide(); // a translation arrived: the translation panels return
  if (changed.has('info') || changed.has('snap')) renderInputKind(state.info); // prompt or translation words
  if (changed.has('snap') || before.st.compare !== state.st.compare) compare.sync();
  if (!state.snap) return;
  if (changed.has('snap')) render(state);
  else if (changed.has('st') && VIEW_KEYS.some((k) => before.st[k] !== state.st[k])) attention.render();
});

// ------------------------------------------------------------------------------------- export

async function exportView(which, format) {
  const { snap, st } = store.get();
  if (!snap) return;
  const data = format === 'csv' || format === 'json'; // the values drawn, not the picture
  const save = (what, base) => (data ? exportData(format, what(), base) : exportAs(format, what(), base));
  try {
    const base = `attnscope-${st.model}-step${snap.steps}`;
    if (which === 'analysis') {
      const pane = document.querySelector(`#analyses .an-pane[data-an="${st.an}"]`);
      const name = { rollout: 'Attention rollout', vectors: 'Vectors', importance: 'Head importance', timeline: 'Training timeline' }[st.an];
      const title = `${name} · “${st.s}” · ${st.model}`;
      await save(() => (data ? paneData(pane, title, name) : paneSVG(pane, title, name)), `attnscope-${st.model}-${st.an}`);
    } else if (which === 'logits') {
      const row = snap.rows.at(-1);
      if (!row) return;
      const title = `Logits of step ${row.step + 1} · “${st.s}” · ${st.model}`;
      await save(() => (data ? logitsData(row, title, labelOf(snap)) : logitsSVG(row, title, $('scale').value, labelOf(snap))), `${base}-logits`);
    } else {
      const title = `“${st.s}” · ${st.model} · step ${snap.steps}`;
      const view = data ? attention.data(title) : attention.svg(title);
      await save(() => view.data ?? view.svg, `${base}-${view.name}`);
    }
  } catch (e) {
    showError(e);
  }
}

// ------------------------------------------------------------------------------------- events

const vocabs = new Map(); // model url -> promise of its target vocabulary
wireForceAny({
  vocab: () => {
    const url = store.get().snap?.url;
    if (!vocabs.has(url)) vocabs.set(url, engine.request('vocab', { url, side: 'target' }));
    return vocabs.get(url);
  },
  enabled: () => !!store.get().snap?.rows.length,
  onForce: (id) => requests.force(id),
  label: (piece) => labelOf(store.get().snap ?? {})(piece),
});

function wire() {
  const { translate, keepStep } = requests;
  $('controls').addEventListener('submit', (e) => { e.preventDefault(); translate({ step: 1 }); });
  $('model').addEventListener('change', () => {
    const before = findModel(store.get().st.model);
    const after = findModel($('model').value);
    if (after?.example && $('sentence').value.trim() === before?.example) $('sentence').value = after.example;
    translate({ step: 1 });
  });
  for (const r of document.querySelectorAll('input[name=mode]')) r.addEventListener('change', () => { showModeOptions(); translate({ step: 1 }); });
  for (const id of ['beam', 'lp', 'alpha', 'temp', 'topk', 'topp', 'seed']) {
    $(id).addEventListener('change', () => { showModeOptions(); translate({ step: 1 }); });
  }
  $('compare').addEventListener('change', () => store.setState({ compare: $('compare').value || null }));
  $('progress-cancel').addEventListener('click', () => {
    if (!opener.cancel()) engine.request('cancelLoad', { url: modelUrl(findModel(store.get().st.model)) });
  });
  $('modified-reset').addEventListener('click', () => { store.setState({ iv: noInterventions() }); translate({ step: keepStep() }); });
  const showPanel = () => {
    panel.open = true;
    $('break').scrollIntoView({ block: 'start', behavior: 'smooth' });
    $('break').querySelector('summary').focus({ preventScroll: true });
  };
  $('modified-edit').addEventListener('click', showPanel);
  $('modified-badge').addEventListener('click', showPanel);
  const start = () => requests.goto(0);
  const end = () => requests.goto('end');
  const next = () => { player.stop(); requests.next(); };
  const prev = () => { player.stop(); requests.prev(); };
  $('first').addEventListener('click', start);
  $('prev').addEventListener('click', prev);
  $('next').addEventListener('click', next);
  $('last').addEventListener('click', end);
  $('play').addEventListener('click', () => (player.playing ? player.stop() : player.start()));
  $('pieces').addEventListener('change', () => {
    document.body.classList.toggle('show-pieces', $('pieces').checked);
    // Every view shows tokens (web/app/util/pieces.js): all are drawn again.
    if (store.get().snap) render(store.get());
    compare.redraw();
  });
  $('scale').addEventListener('change', () => { const { snap } = store.get(); if (snap) renderLogits(snap); });
  $('vnorm').addEventListener('change', () => {
    store.setState({ vnorm: $('vnorm').value === '1' });
    if (store.get().st.vnorm) requests.fetchVectors();
  });
  for (const b of document.querySelectorAll('[data-export]')) {
    b.addEventListener('click', () => exportView(b.dataset.export, b.dataset.format));
  }
  document.addEventListener('keydown', (e) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const t = e.target;
    if (t instanceof Element && t.closest('input, select, textarea, [contenteditable]')) return;
    if (t instanceof Element && t.getAttribute('role') === 'tab' && (e.key === 'ArrowLeft' || e.key === 'ArrowRight')) {
      // Arrow keys move between tabs, as tab lists do.
      const tabs = [...t.closest('[role=tablist]').querySelectorAll('[role=tab]')];
      const i = tabs.indexOf(t) + (e.key === 'ArrowRight' ? 1 : -1);
      const to = tabs[(i + tabs.length) % tabs.length];
      e.preventDefault();
      to.focus();
      to.click();
      return;
    }
    const keys = { ArrowRight: next, ArrowLeft: prev, Home: start, End: end };
    if (keys[e.key]) {
      e.preventDefault();
      keys[e.key]();
    }
  });
}

buildModelPicker();
buildModelPicker($('compare'));
trackStepperHeight();
const first = store.get().st;
if (findModel(first.model)?.trained) addModelOption(first.model);
if (findModel(first.model)?.fileUrl) offerModel(first.model);
fillForm(first);
$('compare').value = first.compare ?? '';
const asked = new URLSearchParams(search).get('model');
if (!opener.noteReopen(asked)) {
  noteUnknownModel(asked, first.model, { onLoadFile: (url) => { offerModel(url); requests.translate({ step: first.step }); } });
}
if (refusedModelUrl) opener.noteRefusedUrl(refusedModelUrl, first.model);
if (hasInterventions(first.iv)) panel.open = true;
wire();
if (findModel(first.model)?.trained) {
  // A link to a model trained in a page: train it again (same recipe, same weights), then show it.
  restoring = true;
  training.restore(first.model, first.pairs).then((id) => {
    restoring = false;
    if (id && id !== first.model) showError(new Error(`re-training made “${id}”, not the link's “${first.model}”`));
    requests.translate({ step: first.step, restore: true });
  });
} else {
  training.start();
  requests.translate({ step: first.step, restore: true });
}

// For tests and the curious: the latest snapshot and state, and how many steps the page holds.
window.attnscope = {
  get snapshot() { return store.get().snap; },
  get state() { return { ...store.get().st }; },
  get storedSteps() { return requests.steps.size; },
  /** Whether the page asks for the next step before Next is pressed (web/app/worker/requests.js; the benchmark turns it off to time a press that waits for the worker). */
  get lookAhead() { return requests.lookAhead; },
  set lookAhead(on) { requests.lookAhead = on; },
  engine,
  /** Resolves when every request is answered and drawn, and the URL written. */
  idle: () => requests.idle().then(() => compare.idle()).then(() => encoder.idle()).then(() => { if (app.dataset.urlPending) writeURL(); }),
  /** The encoder-only panel: whether it shows, and the engine's answers it draws ({study, ablation, ablationSource}). */
  encoder: { get active() { return encoder.active; }, get shown() { return encoder.shown; }, idle: () => encoder.idle() },
  /** The Training panel's epochs ({history, training, id}; attention as the engine returned it). */
  get training() { return training.snapshot(); },
  /** The compare view's other model: its latest snapshot, and when it has caught up. */
  compare: { get snapshot() { return compare.snapshot; }, idle: () => compare.idle() },
};
