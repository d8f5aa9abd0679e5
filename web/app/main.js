// The demo page: form, "Break the model" panel, stepper, output lines, logits, attention views,
// beam view, the "Analyses" card (web/app/analyses.js), URL state. It only displays what the engine (in web/app/worker.js) returns.
import { formatBytes, getEngine } from './client.js';
import { HEATMAP_CSS, Heatmap, FONT_FAMILY, heatmapSVGBody, svgDocument } from './heatmap.js';
import { KINDS, attentionSpec, layersOf } from './views.js';
import { formatLogit, logitsSVG, renderLogits } from './logits.js';
import { beamLegendHTML, beamTreeSVG, pathTo } from './beam.js';
import { exportAs } from './export.js';
import { decodeOptions, formatState, hasInterventions, noInterventions, parseState, strategyOptions } from './state.js';
import { InterventionsPanel, SITE_LABEL, describeInterventions, editsOf, fitInterventions, presetOf, PATTERN_LABEL } from './interventions.js';
import { findModel, modelUrl, models } from '../models.js';
import { AnalysesPanel, PATTERN_RULES } from './analyses.js';

const $ = (id) => document.getElementById(id);
const app = $('app');
const engine = getEngine();
engine.request('init').catch(() => {}); // start the worker and the WebAssembly compile at once

const style = document.createElement('style');
style.textContent = HEATMAP_CSS;
document.head.append(style);

let st = parseState(location.search);
let snap = null; // the latest snapshot from the worker
let info = null; // the current model's info
let queue = Promise.resolve();
let pending = 0;
let playing = null;
let firstHeatmapSeen = false;
let original = null; // {text, tokens}: where the unmodified model ends, beside a modified one
const outcomes = new Map(); // key -> promise of an 'outcome' answer (the unmodified translations)

const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const headName = (h) => (h === 'mean' ? 'mean of heads' : `head ${h}`);

// ----------------------------------------------------------------------------------- requests

/** Runs engine work one piece at a time; a snapshot it returns becomes the page's state. */
let slowTimer = 0;
function run(work) {
  pending++;
  app.dataset.busy = 'true';
  // "working…" only when the engine takes long enough to notice (a big model loading).
  clearTimeout(slowTimer);
  slowTimer = setTimeout(() => app.classList.toggle('slow', pending > 0), 300);
  queue = queue.then(async () => {
    try {
      const result = await work();
      if (result?.sid) apply(result);
      showError(null);
    } catch (e) {
      stopPlay();
      showError(e);
    } finally {
      if (--pending === 0) {
        app.dataset.busy = 'false';
        app.classList.remove('slow');
      }
    }
  });
  return queue;
}

function apply(next) {
  snap = next;
  st.step = snap.steps;
  writeURL();
  render();
}

function writeURL() {
  history.replaceState(null, '', formatState(st) + location.hash);
}

function showError(e) {
  const box = $('error');
  box.hidden = !e;
  box.textContent = e ? (e.name === 'AttnscopeError' ? e.message : `${e.message}`) : '';
}

/** Where a re-translation should go: the same step, or the end if the current one is done. */
const keepStep = () => (snap ? (snap.done ? 'end' : snap.steps) : st.step);

/** Sessions keep the value and query/key vectors (memory) only while a view needs them. */
const needsVectors = () => st.vnorm || st.an === 'vectors';
let vectorsAsked = null;
/** Re-translates at the same step, with vectors, once per session that lacks them. */
function fetchVectors() {
  if (!snap || snap.vectors || vectorsAsked === snap.sid) return;
  vectorsAsked = snap.sid;
  translate({ step: keepStep() });
}

/** How the unmodified model translates `text` with `options` (asked once per sentence and options). */
function outcomeOf(url, text, options, onProgress) {
  const key = JSON.stringify([url, text, options]);
  if (!outcomes.has(key)) {
    const promise = engine.request('outcome', { url, text, options }, onProgress);
    promise.catch(() => outcomes.delete(key));
    outcomes.set(key, promise);
    if (outcomes.size > 50) outcomes.delete(outcomes.keys().next().value);
  }
  return outcomes.get(key);
}

function translate({ step = 1 } = {}) {
  stopPlay();
  readForm();
  writeURL();
  const entry = findModel(st.model);
  const url = modelUrl(entry);
  const text = st.s;
  const asked = st.iv;
  const want = { ...st, vectors: needsVectors() };
  return run(async () => {
    const bar = $('progress-bar');
    const onProgress = ({ loaded, total }) => {
      $('progress').hidden = false;
      bar.max = total || loaded || 1;
      bar.value = loaded;
      $('progress-text').textContent = `Loading ${entry.label}: ${formatBytes(loaded)}${total ? ` of ${formatBytes(total)}` : ''}`;
    };
    try {
      let options = decodeOptions(want);
      let unmodified = null;
      let fitted = null; // {iv, dims}: the interventions as sent, and the model's shape
      if (hasInterventions(asked)) {
        // Fit the interventions to this model and sentence (a link made with another model, a
        // custom row of another length), and get the unmodified translation to show beside.
        const described = await engine.request('load', { url }, onProgress);
        unmodified = await outcomeOf(url, text, strategyOptions(want), onProgress);
        const iv = fitInterventions(asked, described.config, unmodified.source.ids.length);
        if (st.iv === asked) st.iv = iv;
        options = decodeOptions({ ...want, iv });
        const { n_encoder_layers: encoderLayers, n_decoder_layers: decoderLayers, n_heads: heads } = described.config;
        fitted = { iv, dims: { encoderLayers, decoderLayers, heads } };
      }
      let result;
      try {
        result = await engine.request('open', { url, text, options, step, replace: snap?.sid }, onProgress);
      } catch (e) {
        if (fitted && e.name === 'AttnscopeError') {
          // Said in the panel too, beside the controls that caused it (a custom row of the wrong
          // length…); with nothing translated yet (a link to a broken matrix) the panel still
          // gets the model's shape, so the interventions can be edited or reset.
          panel.showError(e.message);
          if (!snap) panel.render(fitted.iv, fitted.dims, unmodified.source.pieces);
        }
        throw e;
      }
      panel.showError(null);
      info = result.info;
      original = unmodified;
      renderModelInfo();
      return result;
    } catch (e) {
      if (/cannot fetch model/.test(e.message)) e.message = `Could not load the model “${entry.label}”: ${e.message.replace(/^cannot fetch model '[^']*': /, '')}`;
      throw e;
    } finally {
      $('progress').hidden = true;
    }
  });
}

/** A request on the current session. */
const nav = (type, args = {}) => run(async () => (snap ? engine.request(type, { sid: snap.sid, ...args }) : null));
const next = () => { if (snap && !snap.done) nav('step'); };
const prev = () => { if (snap && snap.steps > 0) nav('back'); };

function force(tokenId) {
  stopPlay();
  const row = snap?.rows.at(-1);
  if (row) nav('force', { step: row.step, token: tokenId });
}

function selectPath(ids) {
  nav('select', { path: ids });
}

function startPlay() {
  if (!snap) return;
  if (snap.done) nav('goto', { step: 0 });
  playing = setInterval(() => {
    if (!snap || (snap.done && pending === 0)) stopPlay();
    else if (pending === 0) next();
  }, 650);
  const b = $('play');
  b.innerHTML = '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M3 2h4v12H3zM9 2h4v12H9z"/></svg><span>Pause</span>';
  b.setAttribute('aria-label', 'Pause');
}

function stopPlay() {
  if (!playing) return;
  clearInterval(playing);
  playing = null;
  const b = $('play');
  b.innerHTML = '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M4 2v12l10-6z"/></svg><span>Play</span>';
  b.setAttribute('aria-label', 'Play');
}

// --------------------------------------------------------------------------------------- form

function fillForm() {
  $('sentence').value = st.s;
  $('model').value = st.model;
  for (const r of document.querySelectorAll('input[name=mode]')) r.checked = r.value === st.mode;
  $('beam').value = st.beam;
  $('lp').value = st.lp;
  $('alpha').value = st.alpha;
  $('temp').value = st.temp;
  $('topk').value = st.topk;
  $('topp').value = st.topp;
  $('seed').value = st.seed;
  $('scale').value = 'prob';
  showModeOptions();
  if (hasInterventions(st.iv)) panel.open = true;
}

function readForm() {
  const f = $('controls');
  const fresh = parseState(new URLSearchParams({
    s: $('sentence').value.trim() || st.s, model: $('model').value, mode: f.mode.value, beam: $('beam').value,
    lp: $('lp').value, alpha: $('alpha').value, temp: $('temp').value, topk: $('topk').value, topp: $('topp').value,
    seed: $('seed').value,
  }).toString());
  Object.assign(st, { s: fresh.s, model: fresh.model, mode: fresh.mode, beam: fresh.beam, lp: fresh.lp, alpha: fresh.alpha,
    temp: fresh.temp, topk: fresh.topk, topp: fresh.topp, seed: fresh.seed });
}

function showModeOptions() {
  const mode = $('controls').mode.value;
  $('beam-options').hidden = mode !== 'beam';
  $('sample-options').hidden = mode !== 'sample';
  $('alpha-field').hidden = $('lp').value !== 'gnmt';
}

function buildModelPicker() {
  const select = $('model');
  const groups = new Map();
  for (const m of models) {
    const opt = new Option(m.label, m.id);
    opt.dataset.label = m.label;
    if (!m.group) select.append(opt);
    else {
      if (!groups.has(m.group)) {
        const g = document.createElement('optgroup');
        g.label = m.group;
        groups.set(m.group, g);
        select.append(g);
      }
      groups.get(m.group).append(opt);
    }
  }
}

/** Adds each model's download size to the picker; marks the ones the server does not have. */
async function probeModelSizes() {
  await Promise.all([...$('model').options].map(async (opt) => {
    try {
      const res = await fetch(modelUrl(findModel(opt.value)), { method: 'HEAD' });
      if (res.status === 404) {
        opt.textContent = `${opt.dataset.label} (not available)`;
        opt.disabled = opt.value !== st.model;
      } else if (res.ok && Number(res.headers.get('content-length'))) {
        opt.textContent = `${opt.dataset.label} · ${formatBytes(Number(res.headers.get('content-length')))}`;
      }
    } catch { /* offline: leave the label as it is */ }
  }));
}

function renderModelInfo() {
  const hint = $('vocab-hint');
  if (info?.sourceWords) {
    hint.hidden = false;
    hint.innerHTML = `<span class="muted">${esc(info.name)} knows only these words (click to add):</span> `;
    for (const w of info.sourceWords) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'chip';
      b.textContent = w;
      b.addEventListener('click', () => {
        const input = $('sentence');
        input.value = `${input.value.trim()} ${w}`.trim();
        input.focus();
      });
      hint.append(b, ' ');
    }
  } else {
    hint.hidden = true;
    hint.replaceChildren();
  }
}

// ------------------------------------------------------------------------------------- render

function render() {
  if (!snap) return;
  app.dataset.renders = Number(app.dataset.renders ?? 0) + 1;
  app.dataset.steps = snap.steps;
  app.dataset.done = String(snap.done);
  renderStepper();
  renderModified();
  renderOutput();
  renderLogitsPanel();
  renderView();
  analyses.render(snap);
  panel.render(st.iv, { encoderLayers: snap.dims.encoderLayers, decoderLayers: snap.dims.decoderLayers, heads: snap.dims.heads }, snap.source.pieces);
}

/** The interventions the shown translation was made with (the snapshot's, not the panel's). */
const shownInterventions = () => snap?.options?.interventions ?? noInterventions();

function renderModified() {
  const iv = shownInterventions();
  const on = hasInterventions(iv);
  app.dataset.modified = String(on);
  $('modified').hidden = !on;
  $('modified-badge').hidden = !on;
  $('original-line').hidden = !on || !original;
  // The banner is a live region: touch it only when what it says changes.
  const key = on ? JSON.stringify([iv, original?.text]) : '';
  if (!on || key === $('modified').dataset.key) return;
  $('modified').dataset.key = key;
  const preset = presetOf(iv);
  $('modified-title').textContent = preset ? `Modified model: “${preset.label.toLowerCase()}”.` : 'Modified model.';
  $('modified-list').replaceChildren(...describeInterventions(iv).map(({ kind, text }) => {
    const chip = document.createElement('span');
    chip.className = `mod-chip ${kind}`;
    chip.textContent = text;
    return chip;
  }));
  if (original) {
    $('original').textContent = original.text;
    $('original').dataset.tokens = original.tokens.join(' ');
  }
}

function renderStepper() {
  const beam = snap.options?.strategy === 'beam';
  const parts = [`Step ${snap.steps} of at most ${snap.maxLength}`];
  if (beam) parts.push(`${snap.live.length} in the beam, ${snap.finished.length} finished`);
  if (snap.done) parts.push(snap.hitMaxLength ? 'stopped at the length limit' : 'finished');
  else if (snap.steps === 0) parts.push('press Next (→) to generate the first token');
  $('step-status').textContent = parts.join(' · ');
  $('first').disabled = $('prev').disabled = snap.steps === 0;
  $('next').disabled = $('last').disabled = snap.done;
}

function renderOutput() {
  const src = $('source-tokens');
  src.replaceChildren(...snap.source.pieces.map((p) => {
    const t = document.createElement('span');
    t.className = 'tok';
    t.textContent = p;
    if (snap.source.unknown.includes(p) || p === '<unk>') t.classList.add('unknown');
    return t;
  }));
  if (snap.source.unknown.length) {
    const w = document.createElement('span');
    w.className = 'warn';
    w.textContent = ` unknown to this model: ${snap.source.unknown.join(', ')}`;
    src.append(w);
  }
  const lines = $('lines');
  lines.replaceChildren();
  if (!snap.rows.length) {
    const li = document.createElement('li');
    li.className = 'placeholder';
    li.textContent = 'Nothing generated yet. Press Next (or →) to run the first step.';
    lines.append(li);
  }
  snap.rows.forEach((row, k) => {
    const li = document.createElement('li');
    li.dataset.step = k + 1;
    if (k === snap.rows.length - 1) {
      li.classList.add('current');
      li.setAttribute('aria-current', 'step');
    }
    li.innerHTML = `<button type="button" class="line" title="Go to step ${k + 1}"><span class="n">${k + 1})</span> <span class="in"></span> <span class="arrow">→</span> <span class="out"></span></button>`;
    li.querySelector('.in').textContent = row.input;
    li.querySelector('.out').textContent = row.output;
    if (row.forced) {
      const f = document.createElement('span');
      f.className = 'badge';
      f.textContent = 'forced';
      li.firstChild.append(' ', f);
    }
    li.firstChild.addEventListener('click', () => { stopPlay(); nav('goto', { step: k + 1 }); });
    lines.append(li);
  });
  lines.lastElementChild?.scrollIntoView?.({ block: 'nearest' });
  $('translation').textContent = snap.path.text;
  $('translation').dataset.tokens = snap.path.tokens.join(' ');
}

function renderLogitsPanel() {
  const row = snap.rows.at(-1);
  $('logits-title').textContent = row ? `Logits of step ${row.step + 1}` : 'Logits';
  const cap = $('logits-caption');
  if (!row) {
    cap.textContent = 'The scores of the next token appear here once a step has run.';
  } else {
    const prefix = [snap.bos, ...snap.path.tokens.slice(0, row.step)].join(' ');
    cap.innerHTML = `After “<span class="mono"></span>”, the model's top ${row.top.length} candidates. ${row.forced ? '<b>You forced this step.</b> ' : ''}Click another token to force it and continue from there.`;
    cap.querySelector('.mono').textContent = prefix;
  }
  renderLogits($('bars'), row, { scale: $('scale').value, onForce: force });
}

// The views (heatmaps, model grid, beam tree) live in #view-body.
let mainMap = null;
let thumbs = null; // {key, maps: [[Heatmap]]}

function setOptions(select, values, labels, current) {
  const want = values.map(String).join(',');
  if (select.dataset.values !== want) {
    select.replaceChildren(...values.map((v, i) => new Option(labels[i], v)));
    select.dataset.values = want;
  }
  select.value = String(current);
}

function renderPickers(kind) {
  const L = layersOf(snap, kind);
  if (st.layer >= L) st.layer = L - 1;
  const H = snap.dims.heads;
  if (st.head !== 'mean' && st.head >= H) st.head = 0;
  setOptions($('layer'), [...Array(L).keys()], [...Array(L).keys()].map((l) => `${l + 1} of ${L}`), st.layer);
  const heads = [...Array(H).keys()];
  setOptions($('head'), [...heads, 'mean'], [...heads.map((h) => `${h + 1} of ${H}`), 'mean of heads'], st.head);
}

const CAPTIONS = {
  cross: 'Rows: decoding steps (the token each produced). Columns: source tokens. Each row shows where the decoder looked in the source while choosing that row’s token; a row sums to 1. The orange row is the current step.',
  encoder: 'Rows: source tokens (queries). Columns: source tokens (keys). How each source token gathers context from the others in the encoder — computed once, before decoding starts.',
  self: 'Rows: decoding steps. Columns: the target tokens fed to the decoder so far (<s> and earlier outputs). A step can only look back; grey cells are the masked future.',
  model: 'Every layer × head at once. Hover a thumbnail for exact values; click one (or focus it and press Enter) to open it.',
  beam: 'Every candidate the search looked at, by step. Scores are cumulative log-probabilities (closer to 0 is better). Click a node or a hypothesis to follow its path in the other views.',
};

function renderView() {
  const view = st.view;
  for (const tab of document.querySelectorAll('#attention [role=tab]')) {
    const on = tab.dataset.view === view;
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
  }
  $('view-panel').setAttribute('aria-labelledby', `tab-${view}`);
  const isMap = view === 'cross' || view === 'encoder' || view === 'self';
  $('layer-field').hidden = $('head-field').hidden = !isMap;
  $('kind-field').hidden = view !== 'model';
  $('pruned-field').hidden = view !== 'beam';
  $('vnorm-field').hidden = !isMap;
  $('vnorm').value = st.vnorm ? '1' : '0';
  const vnorm = isMap && st.vnorm && snap.vectors;
  $('view-caption').textContent = CAPTIONS[view] + (vnorm
    ? ' Shown: ‖α·f(x)‖ (Kobayashi et al. 2020), each weight times the norm of what that token sends through the head (W_O·v); rows no longer sum to 1.'
    : '');
  $('pattern-help').hidden = !(view === 'model' && st.kind === 'encoder');
  $('pattern-help').textContent = `Badges: the pattern class of each encoder head on this sentence (Kovaleva et al. 2019). ${PATTERN_RULES}`;
  if (!isMap) renderViewNote(view);
  const body = $('view-body');
  body.dataset.view = view;
  if (isMap) {
    renderPickers(view);
    renderViewNote(view);
    if (!mainMap || !body.contains(mainMap.root)) {
      body.replaceChildren();
      thumbs = null;
      mainMap = new Heatmap(body, { onSelect: (r) => { if (view !== 'encoder' && r >= 0 && r < snap.rows.length - 1) nav('goto', { step: r + 1 }); } });
      mainMap.root.id = 'heatmap';
    }
    const empty = view !== 'encoder' && !snap.rows.length;
    const placeholder = body.querySelector('.placeholder');
    placeholder?.remove();
    mainMap.root.hidden = empty;
    if (empty) {
      body.insertAdjacentHTML('afterbegin', '<p class="placeholder">No step yet: press Next (or →).</p>');
      return;
    }
    mainMap.set(attentionSpec(snap, view, st.layer, st.head, vnorm));
    markFirstHeatmap();
  } else if (view === 'model') {
    renderModelView(body);
  } else {
    renderBeamView(body);
  }
  writeURL();
}

/** Under a map of a modified model: what was done to it. */
function renderViewNote(view) {
  const note = $('view-note');
  const iv = shownInterventions();
  const parts = [];
  if (hasInterventions(iv) && (view === 'cross' || view === 'encoder' || view === 'self')) {
    const e = editsOf(iv, view, st.layer, st.head);
    const what = st.head === 'mean' ? `in layer ${st.layer + 1}` : `layer ${st.layer + 1}, head ${st.head + 1}`;
    if (e.pattern) parts.push(st.head === 'mean' ? `Overridden: heads of layer ${st.layer + 1} attend by a pattern (“${PATTERN_LABEL[e.pattern]}”), not by their own weights.` : `Overridden: these weights are the “${PATTERN_LABEL[e.pattern]}” pattern, not the head's own.`);
    if (e.masked) parts.push(`Masked (${what}): the head still attends, as shown, but its output is zeroed.`);
    if (e.skipped) parts.push(`Skipped: the ${SITE_LABEL[view]} still runs, as shown, but adds nothing to the model.`);
    if (e.copied) parts.push('Source encoding copied in: this attention still runs, as shown, but the sub-layer outputs the mean of the encoder output instead.');
  }
  note.hidden = parts.length === 0;
  note.textContent = parts.join(' ');
}

function markFirstHeatmap() {
  if (firstHeatmapSeen) return;
  firstHeatmapSeen = true;
  const m = performance.mark('attnscope:first-heatmap');
  app.dataset.firstHeatmapMs = m.startTime.toFixed(0);
  console.info(`attnscope: first heatmap after ${m.startTime.toFixed(0)} ms`);
  // After the first picture: the model sizes for the picker, and the offline cache.
  setTimeout(() => {
    probeModelSizes();
    if ('serviceWorker' in navigator && location.protocol !== 'file:') {
      navigator.serviceWorker.register(new URL('../sw.js', import.meta.url)).catch((e) => console.warn('attnscope: no offline cache:', e.message));
    }
  }, 0);
}

function renderModelView(body) {
  const kind = st.kind;
  $('kind').value = kind;
  mainMap = null;
  const L = layersOf(snap, kind);
  const H = snap.dims.heads;
  const key = `${kind}:${L}:${H}`;
  if (kind !== 'encoder' && !snap.rows.length) {
    thumbs = null;
    body.innerHTML = '<p class="placeholder">No step yet: press Next (or →).</p>';
    return;
  }
  if (thumbs?.key !== key || !body.contains(thumbs.grid)) {
    body.replaceChildren();
    const grid = document.createElement('div');
    grid.className = 'model-grid';
    grid.style.setProperty('--heads', H);
    grid.append(Object.assign(document.createElement('span'), { className: 'corner' }));
    for (let h = 0; h < H; h++) grid.append(Object.assign(document.createElement('span'), { className: 'col-head', textContent: `head ${h + 1}` }));
    const maps = [];
    for (let l = 0; l < L; l++) {
      grid.append(Object.assign(document.createElement('span'), { className: 'row-head', textContent: `layer ${l + 1}` }));
      maps.push([]);
      for (let h = 0; h < H; h++) {
        const cell = document.createElement('div');
        cell.className = 'thumb';
        cell.dataset.layer = l;
        cell.dataset.head = h;
        grid.append(cell);
        const open = () => { st.layer = l; st.head = h; st.view = kind; renderView(); };
        maps[l].push(new Heatmap(cell, { onSelect: open }));
      }
    }
    const legend = document.createElement('div');
    legend.className = 'legend-bar';
    legend.innerHTML = '<span>0</span><i aria-hidden="true"></i><span>1</span><span class="muted">attention weight</span>';
    body.append(grid, legend);
    thumbs = { key, grid, maps };
  }
  for (let l = 0; l < L; l++) {
    for (let h = 0; h < H; h++) {
      const spec = attentionSpec(snap, kind, l, h);
      thumbs.maps[l][h].set({
        ...spec, compact: true, size: 84, legend: false, ariaLabel: `${KINDS[kind].title}, layer ${l + 1}, head ${h + 1}`,
        describe: (r, c) => `layer ${l + 1}, head ${h + 1}: ${spec.describe(r, c)}`,
      });
      const cell = thumbs.maps[l][h].root.parentElement;
      cell.classList.toggle('selected', l === st.layer && h === st.head);
      let badge = cell.querySelector('.pattern');
      const pattern = kind === 'encoder' ? snap.patterns?.[l * H + h] : null;
      if (pattern) {
        if (!badge) {
          badge = document.createElement('span');
          badge.className = 'pattern';
          cell.append(badge);
        }
        badge.textContent = pattern;
        badge.dataset.pattern = pattern;
        badge.title = `${pattern}. ${PATTERN_RULES}`;
      } else {
        badge?.remove();
      }
      const e = editsOf(shownInterventions(), kind, l, h);
      const mod = [e.skipped && 'skipped', e.masked && 'masked', e.pattern && PATTERN_LABEL[e.pattern], e.copied && 'source copied'].filter(Boolean).join(' · ');
      if (mod) cell.dataset.mod = mod;
      else delete cell.dataset.mod;
    }
  }
  markFirstHeatmap();
}

function renderBeamView(body) {
  mainMap = null;
  thumbs = null;
  const { svg } = beamTreeSVG(snap.tree, { showPruned: $('pruned').checked, path: snap.path.ids });
  const list = (title, hyps, cls) => (hyps.length ? `<h3>${title}</h3><ol class="hyps ${cls}">${hyps.map((h, i) => `<li><button type="button" class="hyp" data-i="${i}" data-list="${cls}"><span class="text">${esc(h.text || h.tokens.join(' '))}</span> <span class="score">score ${formatLogit(h.score)}${h.normalizedScore !== h.score ? ` · normalized ${formatLogit(h.normalizedScore)}` : ''}</span></button></li>`).join('')}</ol>` : '');
  body.innerHTML = `<div class="beam-legend">${beamLegendHTML()}</div>
    <div class="tree-scroll" tabindex="0" aria-label="Beam tree">${svg}</div>
    <div class="hyp-lists">
      ${snap.done ? list('n-best (best first)', snap.nbest, 'nbest') : list('In the beam now', snap.live, 'live') + list('Finished so far', snap.finished, 'finished')}
    </div>`;
  const lists = { nbest: snap.nbest, live: snap.live, finished: snap.finished };
  body.querySelectorAll('.hyp').forEach((b) => {
    const h = lists[b.dataset.list][Number(b.dataset.i)];
    if (snap.path.ids.join() === h.ids.join()) b.classList.add('selected');
    b.addEventListener('click', () => selectPath(h.ids));
  });
  body.querySelectorAll('.node').forEach((g) => {
    const pick = () => selectPath(pathTo(snap.tree, Number(g.dataset.node)));
    g.addEventListener('click', pick);
    g.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); pick(); } });
  });
}

// ------------------------------------------------------------------------------------- export

function viewSVG() {
  const kind = st.view;
  const title = `${KINDS[kind]?.title ?? ''}`;
  const sentence = `“${st.s}” · ${st.model} · step ${snap.steps}`;
  if (kind === 'cross' || kind === 'encoder' || kind === 'self') {
    return mainMap.svg(`${title} · layer ${st.layer + 1} · ${headName(st.head)} · ${sentence}`);
  }
  if (kind === 'beam') {
    return beamTreeSVG(snap.tree, { showPruned: $('pruned').checked, path: snap.path.ids, title: `Beam search · ${sentence}` }).svg;
  }
  // Model view: every thumbnail on one sheet.
  const L = layersOf(snap, st.kind);
  const H = snap.dims.heads;
  const cell = 100;
  const parts = [`<text x="0" y="18" font-family='${FONT_FAMILY}' font-size="15" font-weight="600" fill="#1f2328">${esc(`${KINDS[st.kind].title}, every layer × head · ${sentence}`)}</text>`];
  for (let h = 0; h < H; h++) parts.push(`<text x="${70 + h * cell}" y="44" font-family='${FONT_FAMILY}' font-size="12" fill="#1f2328">head ${h + 1}</text>`);
  for (let l = 0; l < L; l++) {
    parts.push(`<text x="0" y="${60 + l * cell + 40}" font-family='${FONT_FAMILY}' font-size="12" fill="#1f2328">layer ${l + 1}</text>`);
    for (let h = 0; h < H; h++) {
      const spec = { ...attentionSpec(snap, st.kind, l, h), compact: true, size: 84, legend: false };
      parts.push(heatmapSVGBody(spec, 0, 70 + h * cell, 56 + l * cell).body);
    }
  }
  return svgDocument(Math.max(480, 70 + H * cell), 60 + L * cell, parts.join('\n'));
}

async function exportView(which, format) {
  if (!snap) return;
  try {
    const base = `attnscope-${st.model}-step${snap.steps}`;
    if (which === 'logits') {
      const row = snap.rows.at(-1);
      if (!row) return;
      await exportAs(format, logitsSVG(row, `Logits of step ${row.step + 1} · “${st.s}” · ${st.model}`, $('scale').value), `${base}-logits`);
    } else {
      const name = st.view === 'model' ? `model-${st.kind}` : st.view;
      await exportAs(format, viewSVG(), `${base}-${name}${['cross', 'encoder', 'self'].includes(st.view) ? `-L${st.layer + 1}-${st.head === 'mean' ? 'mean' : `H${st.head + 1}`}` : ''}`);
    }
  } catch (e) {
    showError(e);
  }
}

// ------------------------------------------------------------------------------------- events

function wire() {
  $('controls').addEventListener('submit', (e) => { e.preventDefault(); translate({ step: 1 }); });
  $('model').addEventListener('change', () => {
    const before = findModel(st.model);
    const after = findModel($('model').value);
    if ($('sentence').value.trim() === before?.example) $('sentence').value = after.example;
    translate({ step: 1 });
  });
  for (const r of document.querySelectorAll('input[name=mode]')) r.addEventListener('change', () => { showModeOptions(); translate({ step: 1 }); });
  for (const id of ['beam', 'lp', 'alpha', 'temp', 'topk', 'topp', 'seed']) {
    $(id).addEventListener('change', () => { showModeOptions(); translate({ step: 1 }); });
  }
  const resetInterventions = () => { st.iv = noInterventions(); translate({ step: keepStep() }); };
  $('modified-reset').addEventListener('click', resetInterventions);
  const showPanel = () => {
    panel.open = true;
    $('break').scrollIntoView({ block: 'start', behavior: 'smooth' });
    $('break').querySelector('summary').focus({ preventScroll: true });
  };
  $('modified-edit').addEventListener('click', showPanel);
  $('modified-badge').addEventListener('click', showPanel);
  $('first').addEventListener('click', () => { stopPlay(); nav('goto', { step: 0 }); });
  $('prev').addEventListener('click', () => { stopPlay(); prev(); });
  $('next').addEventListener('click', () => { stopPlay(); next(); });
  $('last').addEventListener('click', () => { stopPlay(); nav('goto', { step: 'end' }); });
  $('play').addEventListener('click', () => (playing ? stopPlay() : startPlay()));
  $('layer').addEventListener('change', () => { st.layer = Number($('layer').value); renderView(); });
  $('head').addEventListener('change', () => { st.head = $('head').value === 'mean' ? 'mean' : Number($('head').value); renderView(); });
  $('kind').addEventListener('change', () => { st.kind = $('kind').value; renderView(); });
  $('pruned').addEventListener('change', () => renderView());
  $('scale').addEventListener('change', () => snap && renderLogitsPanel());
  for (const tab of document.querySelectorAll('#attention [role=tab]')) {
    tab.addEventListener('click', () => { st.view = tab.dataset.view; if (snap) renderView(); });
  }
  $('vnorm').addEventListener('change', () => {
    st.vnorm = $('vnorm').value === '1';
    if (st.vnorm && snap && !snap.vectors) fetchVectors();
    else if (snap) renderView();
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
    const keys = { ArrowRight: next, ArrowLeft: prev, Home: () => nav('goto', { step: 0 }), End: () => nav('goto', { step: 'end' }) };
    if (keys[e.key]) {
      e.preventDefault();
      stopPlay();
      keys[e.key]();
    }
  });
}

const analyses = new AnalysesPanel($('analyses'), {
  engine,
  state: () => st,
  set: (changes) => { Object.assign(st, changes); writeURL(); },
  needVectors: fetchVectors,
});

const panel = new InterventionsPanel($('break'), {
  onChange: (iv) => {
    st.iv = iv;
    translate({ step: keepStep() });
  },
});

buildModelPicker();
fillForm();
wire();
translate({ step: st.step });

// For tests and the curious: the latest snapshot and state.
window.attnscope = { get snapshot() { return snap; }, get state() { return { ...st }; }, engine, idle: () => queue };
