// A model's architecture in words and as a list of blocks (what web/app/views/architecture-diagram.js
// draws). The engine's model family writes it (model.info.architectureDescription, the worker
// passes it on): nothing on the page knows a family by name, and a new family brings its own.
// Nothing here is HTML: the words and labels are plain text, put on the page as text nodes.

/**
 * `info` (the worker's model description) as {family, words, blocks: [{id, column, label, detail}],
 * links: [{from, to, label}]}: the description its family gave.
 */
export function describeArchitecture(info) {
  return info.architectureDescription;
}
