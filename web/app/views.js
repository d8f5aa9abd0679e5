// From a worker snapshot to the matrices the heatmaps draw: slicing, labelling, no arithmetic
// (except "mean of heads", in mean-of-heads.js).
import { meanOfHeads } from './mean-of-heads.js';

export const KINDS = {
  cross: { title: 'Cross-attention', short: 'cross', rowTitle: 'target step', colTitle: 'source token' },
  encoder: { title: 'Encoder self-attention', short: 'encoder', rowTitle: 'source token (query)', colTitle: 'source token (key)' },
  self: { title: 'Decoder self-attention', short: 'self', rowTitle: 'target step', colTitle: 'target position' },
};

/** How many layers the attention of `kind` has. */
export function layersOf(snap, kind) {
  return kind === 'encoder' ? snap.dims.encoderLayers : snap.dims.decoderLayers;
}

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

const stepLabel = (row) => `${row.step + 1}) ${row.output}`;

/** The heatmap spec of one attention kind, layer and head at the snapshot's position. */
export function attentionSpec(snap, kind, layer, head) {
  const { heads, src } = snap.dims;
  const source = snap.source.pieces;
  const headName = head === 'mean' ? 'mean of heads' : `head ${head}`;
  const rows = snap.rows;
  if (kind === 'encoder') {
    const values = [];
    for (let q = 0; q < src; q++) {
      // encoder tensor: [layers, heads, src, src]; the query row q of one head.
      const all = head === 'mean'
        ? meanOfHeads(Array.from({ length: heads }, (_, h) => block(snap.encoder, heads, src * src, layer, h).subarray(q * src, (q + 1) * src)))
        : block(snap.encoder, heads, src * src, layer, head).subarray(q * src, (q + 1) * src);
      values.push(all);
    }
    return {
      values, rowLabels: source, colLabels: source, highlightRow: -1,
      describe: (r, c) => `“${source[r]}” attends to “${source[c]}”`,
      ariaLabel: `Encoder self-attention, layer ${layer}, ${headName}: ${src} source tokens attending to each other`,
    };
  }
  if (kind === 'cross') {
    return {
      values: rows.map((row, k) => pick(snap.cross[k], heads, src, layer, head)),
      rowLabels: rows.map(stepLabel), colLabels: source, highlightRow: rows.length - 1,
      describe: (r, c) => `step ${r + 1}, producing “${rows[r].output}”, attends to “${source[c]}”`,
      ariaLabel: `Cross-attention, layer ${layer}, ${headName}: ${rows.length} target steps over ${src} source tokens`,
    };
  }
  const positions = rows.map((row) => row.input);
  return {
    values: rows.map((row, k) => pick(snap.self[k], heads, k + 1, layer, head)),
    rowLabels: rows.map(stepLabel), colLabels: positions, highlightRow: rows.length - 1,
    describe: (r, c) => `step ${r + 1}, producing “${rows[r].output}”, attends to position ${c} “${positions[c]}”`,
    ariaLabel: `Decoder self-attention, layer ${layer}, ${headName}: ${rows.length} target steps over earlier positions`,
  };
}
