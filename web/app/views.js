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

/** The largest value of a list of rows (where the colour scale of a map that is not weights ends). */
export function largest(rows) {
  let m = 0;
  for (const row of rows) for (const v of row) if (v > m) m = v;
  return m;
}

/**
 * The heatmap spec of one attention kind, layer and head at the snapshot's position; with
 * `vnorm`, the engine's ‖α·f(x)‖ (the snapshot must come from a session with capture.vectors)
 * on a colour scale from 0 to the map's largest value.
 */
export function attentionSpec(snap, kind, layer, head, vnorm = false) {
  if (vnorm && snap.vectors) {
    const spec = attentionSpec({ ...snap, encoder: snap.vencoder, cross: snap.vcross, self: snap.vself }, kind, layer, head);
    return {
      ...spec, scale: { min: 0, max: largest(spec.values) }, legendLabel: '‖α·f(x)‖',
      describe: (r, c) => `${spec.describe(r, c)} (‖α·f(x)‖)`, ariaLabel: `${spec.ariaLabel} (‖α·f(x)‖)`,
    };
  }
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

/** The encoder rollout [src × src] as a heatmap spec. */
export function rolloutSpec(snap) {
  const { src } = snap.dims;
  const source = snap.source.pieces;
  const values = Array.from({ length: src }, (_, q) => snap.rollout.subarray(q * src, (q + 1) * src));
  return {
    values, rowLabels: source, colLabels: source, highlightRow: -1, legendLabel: 'rollout weight',
    describe: (r, c) => `after the encoder, “${source[r]}” draws on input “${source[c]}”`,
    ariaLabel: `Attention rollout through the encoder: ${src} output positions over ${src} input tokens`,
  };
}
