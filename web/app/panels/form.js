// The form of the demo page: sentence, model picker (with each model's download size), decoding
// mode and its options, and the words a small word-level model knows.
import { allowModelFile, findModel, httpUrl, models, unknownModelMessage } from '../../models.js';
import { formatBytes } from '../worker/client.js';
import { byId as $, esc } from '../util/html.js';
import { parseState, takesAlpha } from '../state/state.js';
import { cutsWords } from '../util/pieces.js';

/** The form's fields from the URL state. */
export function fillForm(st) {
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
}

/** The form's fields as URL state changes (invalid ones take their defaults). */
export function readForm(st) {
  const f = $('controls');
  const fresh = parseState(new URLSearchParams({
    s: $('sentence').value.trim() || st.s, model: $('model').value, mode: f.mode.value, beam: $('beam').value,
    lp: $('lp').value, alpha: $('alpha').value, temp: $('temp').value, topk: $('topk').value, topp: $('topp').value,
    seed: $('seed').value, ...(st.pairs ? { pairs: st.pairs } : {}),
  }).toString());
  return { s: fresh.s, model: fresh.model, pairs: fresh.pairs, mode: fresh.mode, beam: fresh.beam, lp: fresh.lp, alpha: fresh.alpha,
    temp: fresh.temp, topk: fresh.topk, topp: fresh.topp, seed: fresh.seed };
}

export function showModeOptions() {
  const mode = $('controls').mode.value;
  $('beam-options').hidden = mode !== 'beam';
  $('sample-options').hidden = mode !== 'sample';
  $('alpha-field').hidden = !takesAlpha($('lp').value);
}

/**
 * A link named a model this page does not have (`asked`): say so, and which one is shown
 * instead, rather than quietly translating with another model.
 */
export function noteUnknownModel(asked, shown, { onLoadFile } = {}) {
  const notice = $('notice');
  notice.hidden = !asked || asked === shown;
  if (notice.hidden) return;
  // Gone once the reader picks a model.
  $('model').addEventListener('change', () => { notice.hidden = true; }, { once: true });
  const file = httpUrl(asked);
  if (file) {
    // A model file on another site: loaded only when the reader says so (web/models.js findModel).
    notice.textContent = `The link asks for the model file ${file.href}, on another site (${file.host}). Showing “${findModel(shown).label}” until you choose to load it. `;
    const load = Object.assign(document.createElement('button'), { type: 'button', className: 'small', textContent: `Load the model from ${file.host}` });
    load.addEventListener('click', () => {
      notice.hidden = true;
      allowModelFile(file.href);
      addModelOption(file.href);
      $('model').value = file.href;
      onLoadFile?.(file.href);
    });
    notice.append(load);
    return;
  }
  const msg = findModel(asked)?.trained
    ? `“${findModel(asked).label}” was trained on sentence pairs the link does not carry intact (its pairs= parameter is missing or changed)`
    : unknownModelMessage(asked);
  notice.textContent = `The link asks for a model this page does not have: ${msg}. Showing “${findModel(shown).label}” instead; pick another above.`;
}

// Each model's download size in bytes (null: its file is missing), measured when the page's
// bundle is built (web/build-page.mjs modelSizes): the picker asks the server nothing. The sources
// run unbundled (a test that imports them) have none, and show the labels alone.
// eslint-disable-next-line no-undef
const SIZES = typeof __ATTNSCOPE_MODEL_SIZES__ === 'undefined' ? {} : __ATTNSCOPE_MODEL_SIZES__;

/** A model's option: its label and download size; a model whose file is missing is not offered. */
function modelOption(m) {
  const size = SIZES[m.id];
  const opt = new Option(size === null ? `${m.label} (not available)` : size ? `${m.label} · ${formatBytes(size)}` : m.label, m.id);
  opt.dataset.label = m.label;
  opt.disabled = size === null;
  return opt;
}

/** The models of the manifest as the options of `select` (grouped as the manifest groups them). */
export function buildModelPicker(select = $('model')) {
  const groups = new Map();
  for (const m of models) {
    const opt = modelOption(m);
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

/**
 * Adds a model the manifest does not list to the picker (once), in its group: a model trained in
 * the page, or a model file a link named by its URL.
 */
export function addModelOption(id) {
  const select = $('model');
  if ([...select.options].some((o) => o.value === id)) return;
  const kind = findModel(id)?.trained ? 'trained' : 'file';
  let group = select.querySelector(`optgroup[data-kind=${kind}]`);
  if (!group) {
    group = document.createElement('optgroup');
    group.label = kind === 'trained' ? 'Trained in this page' : 'Model files';
    group.dataset.kind = kind;
    select.append(group);
  }
  const opt = new Option(findModel(id).label, id);
  opt.dataset.label = opt.text;
  group.append(opt);
}

/**
 * The longest sentence the model reads, in its own tokens: the engine's one limit on the text
 * (it refuses a longer one, and says so). The box itself takes any length.
 */
export function renderLengthHint(info) {
  const hint = $('length-hint');
  const max = info?.hasDecoder ? info.config?.max_positions : null;
  hint.hidden = !max;
  const unit = cutsWords(info?.tokenizer) ? 'pieces' : 'tokens';
  // A decoder-only model's context holds the prompt (after <s> where it reads one: info.prependBos)
  // and the continuation (info.input 'prompt').
  hint.textContent = !max ? '' : info.input === 'prompt'
    ? `${info.prependBos ? '<s>, the prompt' : 'The prompt'} and its continuation share this model's ${max} positions; it refuses a prompt that leaves none.`
    : `This model reads at most ${max} ${unit} (</s> included); it refuses a longer sentence.`;
}

/** The words a small word-level model knows, as chips that add themselves to the sentence. */
export function renderVocabHint(info) {
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
