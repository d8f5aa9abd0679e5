// The "Break the model" panel: attention overrides, head masks, sub-layer skips and "copy the
// source encoding into the decoder" (the engine's interventions, src/model/interventions.h), the
// classic experiments of the attention papers as presets, and the words the page uses to say what is switched
// off. It edits a plain interventions object ({attention, maskHeads, skip, copySourceEncoding},
// as in the engine's DecodeOptions) and reports every change; main.js re-translates with it.
// Nothing is computed here: the engine does the breaking.
// The attention sites are the model's (web/app/model/sites.js): every list of sites here is its table.
import { SKIPS, hasInterventions, isMatrix, normalizeInterventions, noInterventions } from '../state/state.js';
import { customWeightsEditor } from './custom-weights.js';
import { copiedBySourceEncoding, growsWithSteps, mainSite, shortLabel, siteNamed, siteWith, skipOf } from '../model/sites.js';
import { hasDecoder, hasEncoder, takes } from '../model/support.js';

/** How the page names a site in a sentence: "cross-attention", "encoder self-attention". */
const siteLabel = (sites, name) => siteNamed(sites, name)?.label.toLowerCase() ?? name;

export const PATTERN_LABEL = { uniform: 'uniform', beginning: 'on the beginning', end: 'on the end', custom: 'custom' };
const PATTERN_HELP = {
  uniform: 'every position gets 1/K',
  beginning: 'the first three positions get 0.5, 0.25, 0.15; the rest share 0.1',
  end: 'everything on the last position (decoder self-attention: the current token)',
  custom: 'your own weights, one per source token, normalised to sum to 1; several lines of text give a matrix (a row per query)',
};

export const SKIP_LABEL = {
  encoderSelfAttention: 'Encoder self-attention',
  decoderSelfAttention: 'Decoder self-attention',
  crossAttention: 'Cross-attention (“no attention”)',
  ffn: 'Feed-forward (FFN)',
  layerNorm: 'LayerNorm (every one)',
};
const SKIP_SHORT = {
  encoderSelfAttention: 'no encoder self-attention',
  decoderSelfAttention: 'no decoder self-attention',
  crossAttention: 'no cross-attention (“no attention”)',
  ffn: 'no FFN',
  layerNorm: 'no LayerNorm',
};

// MAIN: the model's main site (sites.js mainSite, where generated tokens look at the source).
const MAIN = Symbol('main site');
const allCross = (pattern) => ({ attention: [{ site: MAIN, layer: '*', head: '*', pattern }], maskHeads: [], skip: [] });
const skipping = (...skip) => ({ attention: [], maskHeads: [], skip });

export const COPY_SOURCE_LABEL = 'Copy the source encoding into the decoder';
export const COPY_SOURCE_HELP = 'Every cross-attention sub-layer outputs the mean of the encoder output instead of attending: '
  + 'the decoder sees the source only as one averaged vector. The attention still runs and is shown, but is not used.';

export const LAST_STATE_LABEL = 'Last state only';
export const LAST_STATE_HELP = 'The decoder gets the encoder\'s final state instead of attending (the RNN seed\'s picture before attention): '
  + 'the attention still runs and is shown, but is not used.';

/** Why a model that refuses them does not offer these (the page's words, not the engine's). */
export const NOT_HERE = {
  copySourceEncoding: 'Not for this model: its decoder has no source encoding to replace.',
  lastSourceState: 'Not for this model: its encoder gives one vector per source token, not one final state '
    + '(“Copy the source encoding” hands the decoder their mean instead).',
};

/** The classic experiments. A preset replaces whatever was set before. */
export const PRESETS = [
  { id: 'uniform', label: 'Uniform attention', help: 'Cross-attention spread evenly over the source (every layer and head)', iv: allCross('uniform') },
  { id: 'beginning', label: 'Attention on the beginning', help: 'Cross-attention mostly on the first source tokens', iv: allCross('beginning') },
  { id: 'end', label: 'Attention on the end', help: 'Cross-attention all on the last source token', iv: allCross('end') },
  { id: 'no-attention', label: 'No attention', help: 'Skip cross-attention: the decoder never sees the source', iv: skipping('crossAttention') },
  { id: 'only-decoder-self', label: 'Only decoder self-attention', help: 'Skip encoder self-attention and cross-attention', iv: skipping('encoderSelfAttention', 'crossAttention') },
  { id: 'copy-source', label: 'Copy the source encoding', help: COPY_SOURCE_HELP, iv: { ...skipping(), copySourceEncoding: true } },
  { id: 'no-ffn', label: 'No FFN', help: 'Skip every position-wise feed-forward sub-layer', iv: skipping('ffn') },
  { id: 'no-layernorm', label: 'No LayerNorm', help: 'Every LayerNorm becomes the identity', iv: skipping('layerNorm') },
  { id: 'layernorm-only', label: 'LayerNorm only', help: 'Skip every attention and FFN sub-layer: only the residual stream and its LayerNorms remain',
    iv: skipping('encoderSelfAttention', 'decoderSelfAttention', 'crossAttention', 'ffn') },
  { id: 'residual-only', label: 'Residual only, a.k.a. dropout only', help: 'Skip every sub-layer and every LayerNorm: the embeddings go straight to the output',
    iv: skipping('encoderSelfAttention', 'decoderSelfAttention', 'crossAttention', 'ffn', 'layerNorm') },
];

/** A preset's interventions for a model of `sites` (its main site named). */
export function presetInterventions(preset, sites) {
  const iv = structuredClone({ ...preset.iv, attention: [] });
  iv.attention = preset.iv.attention.map((a) => ({ ...a, site: a.site === MAIN ? mainSite(sites)?.name : a.site }));
  return iv;
}

/**
 * Whether a preset applies to a model of `sites` whose `info` says what it refuses: its attention
 * items need a site where generated tokens look at the source, and the model must take each of
 * its skips and options.
 */
export function presetApplies(preset, sites, info) {
  if (preset.iv.attention.length && !siteWith(sites, { queries: 'target', keys: 'source' })) return false;
  const iv = presetInterventions(preset, sites);
  return same(fitInterventions(iv, sites, 0, info), iv);
}

const same = (a, b) => JSON.stringify(normalizeInterventions(a)) === JSON.stringify(normalizeInterventions(b));

/** The preset `iv` is exactly, or undefined. */
export const presetOf = (iv, sites) => (hasInterventions(iv) ? PRESETS.find((p) => same(presetInterventions(p, sites), iv)) : undefined);

const where = (a) => {
  const layer = a.layer === '*' ? 'all layers' : `layer ${a.layer + 1}`;
  const head = a.head === '*' ? 'all heads' : `head ${a.head + 1}`;
  return `${layer}, ${head}`;
};
const fmtWeight = (w) => String(Number(w.toFixed(4)));
const fmtRow = (row) => row.map(fmtWeight).join(', ');
const fmtCustom = (w) => (isMatrix(w) ? `custom matrix, ${w.length} rows [${w.map(fmtRow).join('; ')}]` : `custom [${fmtRow(w)}]`);

/** What `iv` switches off or replaces on a model of `sites`, one short phrase per item (for the banner). */
export function describeInterventions(iv, sites) {
  const out = [];
  for (const a of iv.attention) {
    const pattern = a.pattern === 'custom' ? fmtCustom(a.weights) : PATTERN_LABEL[a.pattern];
    out.push({ kind: 'attention', text: `${siteLabel(sites, a.site)} ${pattern} (${where(a)})` });
  }
  if (iv.maskHeads.length > 6) {
    const per = sites.map((s) => [s, iv.maskHeads.filter((m) => m.site === s.name).length]).filter(([, n]) => n);
    out.push({ kind: 'mask', text: `${iv.maskHeads.length} heads masked (${per.map(([s, n]) => `${shortLabel(s).toLowerCase()} ${n}`).join(', ')})` });
  } else {
    for (const m of iv.maskHeads) out.push({ kind: 'mask', text: `${siteLabel(sites, m.site)} layer ${m.layer + 1} head ${m.head + 1} masked` });
  }
  for (const k of iv.skip) out.push({ kind: 'skip', text: SKIP_SHORT[k] });
  if (iv.copySourceEncoding) out.push({ kind: 'copy', text: 'source encoding copied into the decoder (cross-attention outputs the encoder mean)' });
  if (iv.lastSourceState) out.push({ kind: 'last', text: 'last state only (the decoder gets the encoder\'s final state, not its attention)' });
  return out;
}

/**
 * What the interventions do to one attention map of `site` (the engine's description of it):
 * skipped (its sub-layer adds nothing), the pattern its weights were replaced by (the last
 * matching override wins, as in the engine), whether the head is masked, and whether its output
 * is replaced by the copied source encoding. `head` may be 'mean' (any head of the layer).
 */
export function editsOf(iv, site, layer, head) {
  if (!iv || !site) return { skipped: false, pattern: null, masked: false, copied: false, lastState: false };
  const hit = (h) => head === 'mean' || h === '*' || h === head;
  let pattern = null;
  for (const a of iv.attention ?? []) if (a.site === site.name && (a.layer === '*' || a.layer === layer) && hit(a.head)) pattern = a.pattern;
  return {
    skipped: (iv.skip ?? []).includes(skipOf(site)),
    pattern,
    masked: (iv.maskHeads ?? []).some((m) => m.site === site.name && m.layer === layer && hit(m.head)),
    copied: copiedBySourceEncoding(site) && iv.copySourceEncoding === true,
    lastState: copiedBySourceEncoding(site) && iv.lastSourceState === true,
  };
}

/**
 * `iv` made to fit a model (its site table) and a source: overrides and masks of sites, layers
 * or heads the model does not have are dropped (a link made with a bigger model), a custom row
 * takes the source's length (cut, or padded with 1s), and custom weights never sit on a site
 * whose keys grow with every step (decoder self-attention: the engine refuses them). With the
 * model's `info`, what its family refuses (head masks, a skip, copying the source encoding, the
 * last state only: info.refusedInterventions) is dropped too. A custom matrix is left as typed:
 * the engine says which row does not fit, and the page shows it.
 */
export function fitInterventions(iv, sites, sourceLength, info = null) {
  const ok = (name, layer, head) => {
    const site = siteNamed(sites, name);
    return !!site && (layer === '*' || layer < site.layers) && (head === '*' || head < site.heads);
  };
  const attention = [];
  for (const a of iv.attention) {
    if (!ok(a.site, a.layer, a.head) || (a.pattern === 'custom' && growsWithSteps(siteNamed(sites, a.site)))) continue;
    if (a.pattern !== 'custom' || !sourceLength || isMatrix(a.weights) || a.weights.length === sourceLength) {
      attention.push(a);
      continue;
    }
    let weights = Array.from({ length: sourceLength }, (_, i) => a.weights[i] ?? 1);
    if (!weights.some((w) => w > 0)) weights = weights.map(() => 1);
    attention.push({ ...a, weights });
  }
  const maskHeads = takes(info, 'maskHeads') ? iv.maskHeads.filter((m) => ok(m.site, m.layer, m.head)) : [];
  const fitted = { ...iv, attention, maskHeads, skip: iv.skip.filter((k) => takes(info, k)) };
  for (const option of ['copySourceEncoding', 'lastSourceState']) if (!takes(info, option)) delete fitted[option];
  return normalizeInterventions(fitted, sites);
}

const el = (tag, props = {}, ...children) => {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
};
const option = (value, label, selected, disabled = false) => Object.assign(new Option(label, String(value), false, selected), { disabled });

/** The panel. `root` is the <details> of index.html; onChange(iv) gets every edit. */
export class InterventionsPanel {
  #root;
  #onChange;
  #iv = noInterventions();
  #sites = null; // the model's site table (web/app/model/sites.js)
  #info = null; // the model's info: what it refuses (web/app/model/support.js)
  #source = [];
  #key = '';

  constructor(root, { onChange }) {
    this.#root = root;
    this.#onChange = onChange;
    this.presets = root.querySelector('#presets');
    this.skips = root.querySelector('#skips');
    this.overrides = root.querySelector('#overrides');
    this.masks = root.querySelector('#masks');
    root.querySelector('#add-override').addEventListener('click', () => {
      this.#change((iv) => iv.attention.push({ site: mainSite(this.#sites).name, layer: '*', head: '*', pattern: 'uniform' }));
      this.overrides.querySelector('li:last-child select')?.focus();
    });
    for (const k of SKIPS) {
      const box = el('input', { type: 'checkbox', id: `skip-${k}`, value: k });
      box.dataset.skip = k;
      box.addEventListener('change', () => this.#change((iv) => {
        iv.skip = box.checked ? [...iv.skip, k] : iv.skip.filter((x) => x !== k);
      }));
      this.skips.append(el('label', { className: 'check' }, box, ' ', el('span', { textContent: SKIP_LABEL[k] })));
    }
    this.copySource = root.querySelector('#copy-source');
    root.querySelector('#copy-source-label').textContent = COPY_SOURCE_LABEL;
    root.querySelector('#copy-source-help').textContent = COPY_SOURCE_HELP;
    this.copySource.addEventListener('change', () => this.#change((iv) => {
      if (this.copySource.checked) iv.copySourceEncoding = true;
      else delete iv.copySourceEncoding;
    }));
    this.lastState = root.querySelector('#last-state');
    root.querySelector('#last-state-label').textContent = LAST_STATE_LABEL;
    root.querySelector('#last-state-help').textContent = LAST_STATE_HELP;
    this.lastState.addEventListener('change', () => this.#change((iv) => {
      if (this.lastState.checked) iv.lastSourceState = true;
      else delete iv.lastSourceState;
    }));
    this.problem = root.querySelector('#break-error');
    for (const p of PRESETS) {
      const b = el('button', { type: 'button', className: 'preset', title: p.help, textContent: p.label });
      b.dataset.preset = p.id;
      b.setAttribute('aria-pressed', 'false');
      b.addEventListener('click', () => this.#set(presetInterventions(p, this.#sites)));
      this.presets.append(b);
    }
    const reset = el('button', { type: 'button', className: 'preset reset', id: 'reset-interventions', textContent: 'Reset', title: 'Back to the trained model, unmodified' });
    reset.addEventListener('click', () => this.#set(noInterventions()));
    this.presets.append(reset);
  }

  get open() { return this.#root.open; }
  set open(v) { this.#root.open = v; }

  /**
   * Shows why the engine refused the interventions (null: it took them); `undone`: the change was
   * rolled back, and the controls show the interventions in use again.
   */
  showError(message, { undone = false } = {}) {
    this.problem.hidden = !message;
    const shown = hasDecoder(this.#info) ? 'The translation shown' : 'What is shown';
    this.problem.textContent = !message ? ''
      : undone ? `The engine refused this change: ${message.replace(/\.$/, '')}. It was undone: ${shown.toLowerCase()} and these controls are as before.`
        : `The engine refused these interventions: ${message.replace(/\.$/, '')}. ${shown} is still the previous one.`;
    if (message) this.open = true;
  }

  /**
   * Shows `iv` for a model of `sites` (its site table) and a source; `info` (the model's info) says
   * what the model refuses, which is not offered.
   */
  render(iv, sites, sourcePieces = [], info = this.#info) {
    const key = JSON.stringify([iv, sites, sourcePieces, info?.refusedInterventions, info?.hasDecoder, info?.hasEncoder]);
    if (key === this.#key) return;
    this.#key = key;
    this.#iv = normalizeInterventions(iv, sites);
    this.#sites = sites;
    this.#source = sourcePieces;
    this.#info = info;
    this.#renderOffer();
    // Rebuilding moves focus away: put it back on the control with the same key.
    const focused = this.#root.contains(document.activeElement) ? document.activeElement.dataset.key : undefined;

    const preset = presetOf(this.#iv, this.#sites);
    for (const b of this.presets.querySelectorAll('[data-preset]')) b.setAttribute('aria-pressed', String(b.dataset.preset === preset?.id));
    this.presets.querySelector('.reset').disabled = !hasInterventions(this.#iv);
    for (const box of this.skips.querySelectorAll('input')) box.checked = this.#iv.skip.includes(box.value);
    this.copySource.checked = this.#iv.copySourceEncoding === true;
    this.lastState.checked = this.#iv.lastSourceState === true;
    const count = this.#root.querySelector('#break-count');
    const n = describeInterventions(this.#iv, this.#sites ?? []).length;
    count.hidden = n === 0;
    count.textContent = `${n} active`;
    if (sites) {
      this.#renderOverrides();
      this.#renderMasks();
    }
    if (focused) this.#root.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus();
  }

  /** Offers only what the model takes (web/app/model/support.js), in its own words. */
  #renderOffer() {
    const info = this.#info;
    const decoder = hasDecoder(info);
    // A model with one stack (encoder-only, or decoder-only) names its sub-layers by its sites' own labels.
    const oneStack = !decoder || !hasEncoder(info);
    const words = this.#root.querySelector('summary .muted');
    if (words) words.textContent = !decoder ? 'switch heads or sub-layers off, or decide where it looks, and watch the guesses for [MASK] change'
      : `switch parts of the network off, or decide where it looks, and watch the ${hasEncoder(info) ? 'translation' : 'continuation'} change`;
    for (const b of this.presets.querySelectorAll('[data-preset]')) {
      b.hidden = !presetApplies(PRESETS.find((p) => p.id === b.dataset.preset), this.#sites ?? [], info);
    }
    for (const box of this.skips.querySelectorAll('input')) {
      const label = box.closest('label');
      label.hidden = !takes(info, box.value);
      // An encoder-only or decoder-only model's one attention is the site that carries this skip: its own name.
      const site = oneStack && (this.#sites ?? []).find((s) => skipOf(s) === box.value);
      label.querySelector('span').textContent = site ? site.label : SKIP_LABEL[box.value];
    }
    // Replacing cross-attention needs an encoder and a decoder; a model with both may still refuse an option.
    const crossing = !oneStack;
    const replace = this.copySource.closest('fieldset')?.querySelector('h3');
    if (replace) replace.hidden = !crossing;
    for (const [box, option, help] of [[this.copySource, 'copySourceEncoding', COPY_SOURCE_HELP], [this.lastState, 'lastSourceState', LAST_STATE_HELP]]) {
      const ok = takes(info, option);
      box.closest('label').hidden = !crossing;
      box.disabled = !ok;
      box.closest('label').classList.toggle('unavailable', !ok);
      const hint = this.#root.querySelector(`#${box.getAttribute('aria-describedby')}`);
      hint.hidden = !crossing;
      hint.textContent = ok ? help : NOT_HERE[option];
    }
    this.masks.closest('.break-section').hidden = !takes(info, 'maskHeads');
  }

  #set(iv) {
    const next = normalizeInterventions(iv, this.#sites);
    this.render(next, this.#sites, this.#source); // at once, before the engine answers
    this.#onChange(next);
  }

  /** Applies `edit` to a copy of the interventions and reports it. */
  #change(edit) {
    const iv = structuredClone(this.#iv);
    edit(iv);
    this.#set(iv);
  }

  #site(name) { return siteNamed(this.#sites, name); }

  #renderOverrides() {
    const items = this.#iv.attention.map((a, i) => {
      const update = (patch) => this.#change((iv) => {
        const rule = { ...iv.attention[i], ...patch };
        if (growsWithSteps(this.#site(rule.site)) && rule.pattern === 'custom') rule.pattern = 'uniform';
        if (rule.layer !== '*' && rule.layer >= this.#site(rule.site).layers) rule.layer = '*';
        if (rule.pattern === 'custom' && !rule.weights) rule.weights = this.#source.map(() => 1);
        if (rule.pattern !== 'custom') delete rule.weights;
        iv.attention[i] = rule;
      });
      const select = (name, label, values, current, onPick) => {
        const s = el('select', { name });
        s.dataset.key = `att-${i}-${name}`;
        s.setAttribute('aria-label', `${label} of override ${i + 1}`);
        s.append(...values);
        s.value = String(current);
        s.addEventListener('change', () => onPick(s.value));
        return el('label', { className: 'inline' }, `${label} `, s);
      };
      const site = this.#site(a.site);
      const L = site.layers;
      const H = site.heads;
      const pick = (v) => (v === '*' ? '*' : Number(v));
      const row = el('div', { className: 'override-row' },
        select('site', 'Attention', this.#sites.map((s) => option(s.name, shortLabel(s).toLowerCase(), s.name === a.site)), a.site, (v) => update({ site: v })),
        select('layer', 'Layer', [option('*', 'all', a.layer === '*'), ...[...Array(L).keys()].map((l) => option(l, `${l + 1}`, l === a.layer))], a.layer, (v) => update({ layer: pick(v) })),
        select('head', 'Head', [option('*', 'all', a.head === '*'), ...[...Array(H).keys()].map((h) => option(h, `${h + 1}`, h === a.head))], a.head, (v) => update({ head: pick(v) })),
        select('pattern', 'Pattern', Object.keys(PATTERN_LABEL).map((p) => {
          const growing = p === 'custom' && growsWithSteps(site);
          const o = option(p, PATTERN_LABEL[p], p === a.pattern, growing);
          o.title = growing ? `${site.label} looks at a growing prefix: a fixed row cannot fit it` : PATTERN_HELP[p];
          return o;
        }), a.pattern, (v) => update({ pattern: v })),
      );
      const remove = el('button', { type: 'button', className: 'small remove', textContent: 'Remove', title: 'Remove this override' });
      remove.dataset.key = `att-${i}-remove`;
      remove.setAttribute('aria-label', `Remove override ${i + 1}`);
      remove.addEventListener('click', () => this.#change((iv) => iv.attention.splice(i, 1)));
      row.append(remove);
      const li = el('li', {}, row, el('p', { className: 'hint pattern-help', textContent: PATTERN_HELP[a.pattern] }));
      li.dataset.site = a.site;
      li.dataset.pattern = a.pattern;
      if (a.pattern === 'custom') {
        li.append(customWeightsEditor({
          index: i, site, weights: a.weights, source: this.#source,
          onChange: (weights) => this.#change((iv) => { iv.attention[i].weights = weights; }),
        }));
      }
      return li;
    });
    this.overrides.replaceChildren(...items);
    this.overrides.hidden = items.length === 0;
  }

  #renderMasks() {
    // One compact grid: a row per site × layer, a column per head.
    const H = Math.max(...this.#sites.map((s) => s.heads));
    const table = el('table', { className: 'mask-grid' });
    const head = el('tr', {}, el('td'), el('td'));
    for (let h = 0; h < H; h++) head.append(el('th', { scope: 'col', textContent: `${h + 1}`, title: `head ${h + 1}` }));
    table.append(el('thead', {}, head));
    for (const { name: site, label, layers: L, heads } of this.#sites) {
      const body = el('tbody');
      body.dataset.site = site;
      const siteLabelText = label.toLowerCase();
      for (let l = 0; l < L; l++) {
        const tr = el('tr');
        if (l === 0) tr.append(el('th', { scope: 'rowgroup', rowSpan: L, className: 'site', textContent: shortLabel({ label }) }));
        tr.append(el('th', { scope: 'row', textContent: `L${l + 1}`, title: `layer ${l + 1}` }));
        for (let h = 0; h < heads; h++) {
          const box = el('input', { type: 'checkbox', className: 'mask' });
          Object.assign(box.dataset, { site, layer: l, head: h, key: `mask-${site}-${l}-${h}` });
          box.checked = this.#iv.maskHeads.some((m) => m.site === site && m.layer === l && m.head === h);
          box.setAttribute('aria-label', `Mask ${siteLabelText} layer ${l + 1} head ${h + 1}`);
          box.title = `${siteLabelText}, layer ${l + 1}, head ${h + 1}`;
          box.addEventListener('change', () => this.#change((iv) => {
            iv.maskHeads = box.checked ? [...iv.maskHeads, { site, layer: l, head: h }]
              : iv.maskHeads.filter((m) => !(m.site === site && m.layer === l && m.head === h));
          }));
          tr.append(el('td', {}, box));
        }
        body.append(tr);
      }
      table.append(body);
    }
    this.masks.replaceChildren(table);
  }
}
