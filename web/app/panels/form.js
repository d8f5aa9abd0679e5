// The form of the demo page: sentence, model picker (with each model's download size), decoding
// mode and its options, and the words a small word-level model knows.
import { findModel, modelUrl, models, unknownModelMessage } from '../../models.js';
import { formatBytes } from '../worker/client.js';
import { byId as $, esc } from '../util/html.js';
import { parseState } from '../state/state.js';

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
  $('alpha-field').hidden = $('lp').value !== 'gnmt';
}

/**
 * A link named a model this page does not have (`asked`): say so, and which one is shown
 * instead, rather than quietly translating with another model.
 */
export function noteUnknownModel(asked, shown) {
  const notice = $('notice');
  notice.hidden = !asked || asked === shown;
  if (notice.hidden) return;
  const msg = findModel(asked)?.trained
    ? `“${findModel(asked).label}” was trained on sentence pairs the link does not carry intact (its pairs= parameter is missing or changed)`
    : unknownModelMessage(asked);
  notice.textContent = `The link asks for a model this page does not have: ${msg}. Showing “${findModel(shown).label}” instead; pick another above.`;
  // Gone once the reader picks a model.
  $('model').addEventListener('change', () => { notice.hidden = true; }, { once: true });
}

/** The models of the manifest as the options of `select` (grouped as the manifest groups them). */
export function buildModelPicker(select = $('model')) {
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

/** Adds a model trained in the page to the picker (once), in its own group. */
export function addTrainedOption(id) {
  const select = $('model');
  if ([...select.options].some((o) => o.value === id)) return;
  let group = select.querySelector('optgroup[data-trained]');
  if (!group) {
    group = document.createElement('optgroup');
    group.label = 'Trained in this page';
    group.dataset.trained = '';
    select.append(group);
  }
  const opt = new Option(findModel(id).label, id);
  opt.dataset.label = opt.text;
  group.append(opt);
}

/** Adds each model's download size to the picker; marks the ones the server does not have. */
export async function probeModelSizes(current) {
  await Promise.all([...$('model').options].filter((opt) => !findModel(opt.value)?.trained).map(async (opt) => {
    try {
      const res = await fetch(modelUrl(findModel(opt.value)), { method: 'HEAD' });
      if (res.status === 404) {
        opt.textContent = `${opt.dataset.label} (not available)`;
        opt.disabled = opt.value !== current;
      } else if (res.ok && Number(res.headers.get('content-length'))) {
        opt.textContent = `${opt.dataset.label} · ${formatBytes(Number(res.headers.get('content-length')))}`;
      }
    } catch { /* offline: leave the label as it is */ }
  }));
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
