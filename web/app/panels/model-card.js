// The card of a model the reader brought (a file opened or a model file's URL): what its file says
// of itself (name, description, licence, source: its __metadata__, models/FORMAT.md), its size
// (parameters and file bytes, from its safetensors header) and its generation defaults when the
// file has them. The file's text is untrusted: it is only ever set as text, never as HTML.
import { formatBytes } from '../worker/client.js';

/** The rows of the card: [label, text] for each field the model has. */
export function modelCardRows(info) {
  const g = info.generation;
  const generation = g ? [
    g.strategy && `${g.strategy}`,
    g.beam_size && `beam size ${g.beam_size}`,
    g.max_length && `max length ${g.max_length}`,
    g.length_penalty !== undefined && g.length_penalty !== null && `length penalty ${g.length_penalty}`,
    g.alpha !== undefined && g.alpha !== null && `α ${g.alpha}`,
  ].filter(Boolean).join(', ') : '';
  return [
    ['Name', info.name],
    ['Description', info.description],
    ['Licence', info.license],
    ['Source', info.source],
    ['Parameters', info.file?.parameters !== undefined ? info.file.parameters.toLocaleString('en') : ''],
    ['File', info.file?.bytes !== undefined ? `${formatBytes(info.file.bytes)} (${info.file.bytes.toLocaleString('en')} bytes)` : ''],
    ['Generation defaults', generation],
  ].filter(([, text]) => text !== undefined && text !== null && text !== '');
}

/** Shows the card of `info` in `root` (a section with a <dl>) for a model brought by the reader; hides it otherwise. */
export function renderModelCard(root, info, entry) {
  const brought = !!(entry?.local || entry?.fileUrl);
  root.hidden = !brought || !info;
  if (root.hidden) return;
  const list = root.querySelector('dl');
  list.replaceChildren();
  for (const [label, text] of modelCardRows(info)) {
    const row = document.createElement('div');
    row.dataset.field = label.toLowerCase().replace(/ /g, '-');
    const dt = document.createElement('dt');
    dt.textContent = label;
    const dd = document.createElement('dd');
    dd.textContent = String(text);
    row.append(dt, dd);
    list.append(row);
  }
}
