// The page's one HTML/SVG escaper: every piece of untrusted text (tokens, sentences, model names)
// that goes into markup built as a string passes through it. DOM nodes get textContent instead.

/** `s` as text that is safe inside HTML or SVG markup and inside double-quoted attributes. */
export const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/** The page's element with this id. */
export const byId = (id) => document.getElementById(id);

// A press of Next re-renders every panel: writing a value a node already has still costs style
// and layout work (a text write replaces the node), so the panels write only what changed.

/** Writes `text` only when it differs. */
export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/** Sets `el[prop]` (disabled, hidden, …) only when it differs. */
export function setProp(el, prop, value) {
  if (el[prop] !== value) el[prop] = value;
}

/** "1 candidate", "2 candidates": a count and its noun, singular for one (`many`: an irregular plural). */
export const counted = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
