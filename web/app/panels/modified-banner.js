// The banner of a modified model: which preset (if any), what is switched off, and the
// translation of the unmodified model beside (the worker's 'outcome').
import { byId as $ } from '../util/html.js';
import { describeInterventions, presetOf } from './interventions.js';
import { hasInterventions } from '../state/state.js';

/** iv: the interventions the shown translation was made with; original: {text, tokens} or null. */
export function renderModified(iv, original, sites) {
  const app = $('app');
  const on = hasInterventions(iv);
  app.dataset.modified = String(on);
  $('modified').hidden = !on;
  $('modified-badge').hidden = !on;
  $('original-line').hidden = !on || !original;
  // The banner is a live region: touch it only when what it says changes.
  const key = on ? JSON.stringify([iv, original?.text]) : '';
  if (!on || key === $('modified').dataset.key) return;
  $('modified').dataset.key = key;
  const preset = presetOf(iv, sites);
  $('modified-title').textContent = preset ? `Modified model: “${inSentence(preset.label)}”.` : 'Modified model.';
  $('modified-list').replaceChildren(...describeInterventions(iv, sites).map(({ kind, text }) => {
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

/**
 * A preset's name inside a sentence: in its own casing ("No FFN" → "no FFN", "LayerNorm only"
 * stays), only a plain capitalised first word lowered.
 */
export function inSentence(label) {
  const first = label.split(/[\s(]/)[0];
  return /^[A-Z][a-z'’-]*$/.test(first) ? label[0].toLowerCase() + label.slice(1) : label;
}
