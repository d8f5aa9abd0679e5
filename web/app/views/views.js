// From attention data to the matrices the heatmaps draw: slicing, labelling, no arithmetic
// (except "mean of heads", in mean-of-heads.js). A view takes tokens and a tensor and knows
// nothing of the model family: which site it is comes in as the engine's description of it.
import { meanOfHeads } from './mean-of-heads.js';
import { labelOf } from '../util/pieces.js';

/** One head's block of a [layers, heads, ...size] tensor (a view, not a copy). */
function block(data, heads, size, layer, head) {
  const offset = (layer * heads + head) * size;
  return data.subarray(offset, offset + size);
}

/** head: a head index, or 'mean' for the mean of the layer's heads. */
function pick(data, heads, size, layer, head) {
  if (head !== 'mean') return block(data, heads, size, layer, head);
  return meanOfHeads(Array.from({ length: heads }, (_, h) => block(data, heads, size, layer, h)));
}

/** The largest value of a list of rows (where the colour scale of a map that is not weights ends). */
export function largest(rows) {
  let m = 0;
  for (const row of rows) for (const v of row) if (v > m) m = v;
  return m;
}

/**
 * The rows of one layer and head of an attention map. `map`: {rows: [{shape: [layers, heads,
 * keys], data}] (one tensor per query; a step that fed several positions at once, a prompt's
 * first step, is [layers, heads, queries, keys] and gives a row per query)} or {tensor:
 * {shape: [layers, heads, queries, keys], data}}.
 */
export function headRows(map, layer, head) {
  if (map.rows) {
    return map.rows.flatMap((t) => (t.shape.length === 4 ? tensorRows(t, layer, head) : [pick(t.data, t.shape[1], t.shape[2], layer, head)]));
  }
  return tensorRows(map.tensor, layer, head);
}

function tensorRows(tensor, layer, head) {
  const [, heads, queries, keys] = tensor.shape;
  const size = queries * keys;
  return Array.from({ length: queries }, (_, q) => {
    const row = (h) => block(tensor.data, heads, size, layer, h).subarray(q * keys, (q + 1) * keys);
    return head === 'mean' ? meanOfHeads(Array.from({ length: heads }, (_, h) => row(h))) : row(head);
  });
}

/**
 * The heatmap spec of one layer and head of an attention map: `map` is {site (the engine's
 * description: label, queries, keys), queries: {labels, text(i)}, keys: {labels, text(i)},
 * highlightRow, and the tensors (see headRows)}. With `vnorm`, the values are the engine's
 * ‖α·f(x)‖, on a colour scale from 0 to the map's largest value.
 */
export function attentionSpec(map, layer, head, vnorm = false) {
  const { site, queries, keys } = map;
  const headName = head === 'mean' ? 'mean of heads' : `head ${head + 1}`; // 1-based: people read it
  const values = headRows(map, layer, head);
  const nouns = { source: 'input tokens', target: map.context ? 'positions' : site.perStep ? 'target steps' : 'target tokens' };
  const spec = {
    values, rowLabels: queries.labels, colLabels: keys.labels, highlightRow: map.highlightRow,
    describe: (r, c) => `${queries.text(r)} attends to ${keys.text(c)}`,
    ariaLabel: `${site.label}, layer ${layer + 1}, ${headName}: ${values.length} ${nouns[site.queries]} over ${site.perStep && site.keys === 'target' ? 'earlier positions' : `${keys.labels.length} ${nouns[site.keys]}`}`,
  };
  if (!vnorm) return spec;
  return {
    ...spec, scale: { min: 0, max: largest(values) }, legendLabel: '‖α·f(x)‖',
    describe: (r, c) => `${spec.describe(r, c)} (‖α·f(x)‖)`, ariaLabel: `${spec.ariaLabel} (‖α·f(x)‖)`,
  };
}

/**
 * The rollout [T × T] as a heatmap spec (tokens as the page shows them: web/app/util/pieces.js):
 * through the encoder, over the source; or a prompt's (snap.input 'prompt'), over the prompt as the
 * model reads it (source.pieces: <s> first only where it reads one).
 */
export function rolloutSpec(snap) {
  const prompt = snap.input === 'prompt';
  const source = snap.source.pieces.map(labelOf(snap));
  const src = source.length;
  const values = Array.from({ length: src }, (_, q) => snap.rollout.subarray(q * src, (q + 1) * src));
  const through = prompt ? 'the layers' : 'the encoder';
  return {
    values, rowLabels: source, colLabels: source, highlightRow: -1, legendLabel: 'rollout weight',
    describe: (r, c) => `after ${through}, “${source[r]}” draws on input “${source[c]}”`,
    ariaLabel: `Attention rollout through ${prompt ? 'the prompt\'s causal self-attention' : 'the encoder'}: ${src} output positions over ${src} input tokens`,
  };
}
