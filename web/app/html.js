// The page's one HTML/SVG escaper: every piece of untrusted text (tokens, sentences, model names)
// that goes into markup built as a string passes through it. DOM nodes get textContent instead.

/** `s` as text that is safe inside HTML or SVG markup and inside double-quoted attributes. */
export const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/** The page's element with this id. */
export const byId = (id) => document.getElementById(id);
