// A model's architecture in words and as a list of blocks (what web/app/views/architecture-diagram.js
// draws), from the engine's description of it (model.info: config, sites, vocabulary sizes).
// One describer per model family, registered in FAMILIES by its config.architecture: a new
// family adds one function and one line; a family without one is described from its site table.
// Nothing here is HTML: the words and labels are plain text, put on the page as text nodes.

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const CELL = { gru: 'GRU', lstm: 'LSTM' };
const STYLE = { bahdanau: 'Bahdanau', luong: 'Luong' };
const SCORE = { additive: 'additive (concat, with v)', dot: 'dot', scaled_dot: 'scaled dot', general: 'general (bilinear)', cosine: 'cosine', location: 'location' };

/** The vocabulary line every family shares. */
const vocabulary = (info) => `vocabulary ${info.srcVocabSize} source, ${info.tgtVocabSize} target ${info.tokenizer?.type === 'bpe' ? 'pieces' : 'words'}`;

/**
 * The transformer (Vaswani et al. 2017): embeddings + positions, N encoder layers (self-attention,
 * FFN), M decoder layers (masked self-attention, cross-attention, FFN), the output projection.
 */
function transformer(info) {
  const c = info.config;
  const heads = plural(c.n_heads, 'head');
  const positions = `${c.positions ?? 'sinusoidal'} positions`;
  return {
    family: 'Transformer encoder-decoder',
    words: `Transformer encoder-decoder: ${plural(c.n_encoder_layers, 'encoder layer')} and ${plural(c.n_decoder_layers, 'decoder layer')}, `
      + `${heads} per attention, d_model ${c.d_model}, FFN ${c.d_ff} (${c.activation ?? 'relu'}), ${c.norm ?? 'post'}-LayerNorm, ${positions}; ${vocabulary(info)}.`,
    blocks: [
      { id: 'src', column: 'Encoder', label: 'Source embedding', detail: `d_model ${c.d_model} + ${positions}` },
      { id: 'enc', column: 'Encoder', label: `Encoder layer × ${c.n_encoder_layers}`, detail: `self-attention (${heads}) · FFN ${c.d_ff}` },
      { id: 'tgt', column: 'Decoder', label: 'Target embedding', detail: `d_model ${c.d_model} + ${positions}` },
      { id: 'dec', column: 'Decoder', label: `Decoder layer × ${c.n_decoder_layers}`, detail: `masked self-attn · cross-attn (${heads}) · FFN ${c.d_ff}` },
      { id: 'out', column: 'Decoder', label: 'Linear + softmax', detail: `${info.tgtVocabSize} target tokens` },
    ],
    links: [{ from: 'enc', to: 'dec', label: 'memory' }],
  };
}

/**
 * The RNN encoder-decoder (Cho et al. 2014; Bahdanau et al. 2015; Luong et al. 2015): a GRU or
 * LSTM encoder, a decoder RNN, and attention of a style and score, or none.
 */
function rnn(info) {
  const c = info.config;
  const cell = CELL[c.cell] ?? c.cell;
  const attended = c.attention !== 'none';
  const encoder = `${c.bidirectional ? 'bidirectional ' : ''}${cell} encoder (${plural(c.n_encoder_layers, 'layer')}, ${c.d_encoder} units${c.bidirectional ? ' per direction' : ''})`;
  const decoder = `${cell} decoder (${plural(c.n_decoder_layers, 'layer')}, ${c.d_hidden} units)`;
  const score = `${SCORE[c.score] ?? c.score} score${c.score === 'additive' && c.d_attention ? `, ${c.d_attention} units` : ''}`;
  const local = c.local_window > 0 ? `, local-p window ±${c.local_window}` : ', global';
  const attention = attended
    ? `${STYLE[c.attention] ?? c.attention} attention, ${score}${local}${c.input_feeding ? ', input feeding' : ''}`
    : 'no attention: the decoder starts from, and is fed at every step, the encoder\'s final state';
  const blocks = [
    { id: 'src', column: 'Encoder', label: 'Source embedding', detail: `${c.d_embed} values` },
    { id: 'enc', column: 'Encoder', label: `${c.bidirectional ? 'Bi-' : ''}${cell} × ${c.n_encoder_layers}`, detail: `${c.d_encoder} units${c.bidirectional ? ' per direction' : ''}` },
    { id: 'tgt', column: 'Decoder', label: 'Target embedding', detail: `${c.d_embed} values` },
  ];
  const links = [];
  const attn = { id: 'attn', column: 'Decoder', label: `${STYLE[c.attention] ?? c.attention} attention`, detail: `${SCORE[c.score] ?? c.score}${c.local_window > 0 ? `, local ±${c.local_window}` : ''}` };
  const rnnBlock = (detail) => ({ id: 'dec', column: 'Decoder', label: `${cell} × ${c.n_decoder_layers}`, detail });
  if (c.attention === 'bahdanau') {
    // Scored with the previous state s_{i−1}; the context goes into the RNN.
    blocks.push({ ...attn, detail: `${attn.detail}; scores s(i−1)` }, rnnBlock(`${c.d_hidden} units; input: embedding + context`));
    links.push({ from: 'enc', to: 'attn', label: 'encoder states' });
  } else if (attended) {
    // Luong: scored with the current state h_t; h̃ = tanh(W[c; h_t]) feeds the output.
    blocks.push(rnnBlock(`${c.d_hidden} units${c.input_feeding ? '; input: embedding + last h̃' : ''}`), { ...attn, detail: `${attn.detail}; scores h(t) → h̃` });
    links.push({ from: 'enc', to: 'attn', label: 'encoder states' });
  } else {
    blocks.push(rnnBlock(`${c.d_hidden} units; input: embedding + final state`));
    links.push({ from: 'enc', to: 'dec', label: 'final state only' });
  }
  blocks.push({ id: 'out', column: 'Decoder', label: 'Linear + softmax', detail: `${info.tgtVocabSize} target tokens` });
  return {
    family: 'RNN encoder-decoder',
    words: `RNN encoder-decoder: ${encoder}, ${decoder}, ${attention}; ${vocabulary(info)}.`,
    blocks, links,
  };
}

/**
 * BERT (Devlin et al. 2019): token + position + segment embeddings, N post-LN encoder layers
 * (GELU), the masked-language-model head (tied to the token embeddings); no decoder.
 */
function bert(info) {
  const c = info.config;
  const heads = plural(c.n_heads, 'head');
  const blocks = [
    { id: 'src', column: 'Encoder', label: 'Token + position + segment', detail: `d_model ${c.d_model}, ${c.max_positions} positions, LayerNorm` },
    { id: 'enc', column: 'Encoder', label: `Encoder layer × ${c.n_layers}`, detail: `self-attention (${heads}) · FFN ${c.d_ff} (GELU)` },
    { id: 'mlm', column: 'Encoder', label: 'MLM head', detail: `transform + LayerNorm, tied decoder: ${info.srcVocabSize} pieces` },
  ];
  return {
    family: 'BERT encoder-only',
    words: `BERT encoder-only: ${plural(c.n_layers, 'layer')}, ${heads} each, d_model ${c.d_model}, FFN ${c.d_ff} (GELU), post-LayerNorm, `
      + `learned positions (${c.max_positions}) and 2 segments${c.pooler ? ', a pooler' : ''}, a masked-language-model head; vocabulary ${info.srcVocabSize} WordPiece pieces.`,
    blocks, links: [],
  };
}

function decoderOnly(info) {
  const c = info.config;
  const heads = plural(c.n_heads, 'head');
  const act = c.activation === 'gelu_tanh' ? 'GELU, tanh' : String(c.activation ?? 'gelu').toUpperCase();
  const ffn = c.d_ff ? `FFN ${c.d_ff} (${act})` : 'no FFN';
  const blocks = [
    { id: 'emb', column: 'Decoder', label: 'Token + position', detail: `d_model ${c.d_model}, ${c.positions ?? 'learned'} positions (${c.max_positions})` },
    { id: 'dec', column: 'Decoder', label: `Decoder layer × ${c.n_layers}`, detail: `causal self-attention (${heads}) · ${ffn}` },
    { id: 'out', column: 'Decoder', label: 'Linear + softmax', detail: `${c.tied_output === false ? '' : 'tied: '}${info.tgtVocabSize} ${info.tokenizer?.type === 'word' ? 'words' : 'pieces'}` },
  ];
  return {
    family: 'Decoder-only (GPT)',
    words: `Decoder-only language model (GPT): ${plural(c.n_layers, 'layer')}, ${heads} each, d_model ${c.d_model}, ${ffn}, ${c.norm ?? 'pre'}-LayerNorm, `
      + `${c.positions ?? 'learned'} positions (${c.max_positions}: <s>, the prompt and the continuation), no encoder; vocabulary ${info.tgtVocabSize} ${info.tokenizer?.type === 'word' ? 'words' : 'pieces'}.`,
    blocks, links: [],
  };
}

/** A family without a describer: what its site table says. */
function generic(info) {
  const sites = info.sites ?? [];
  return {
    family: `${info.architecture ?? info.config?.architecture ?? 'unknown'} model`,
    words: `${info.architecture ?? 'Unknown'} model with ${sites.length ? sites.map((s) => `${s.label.toLowerCase()} (${plural(s.layers, 'layer')} × ${plural(s.heads, 'head')})`).join(', ') : 'no attention'}; ${vocabulary(info)}.`,
    blocks: sites.map((s) => ({ id: s.name, column: s.queries === 'source' ? 'Encoder' : 'Decoder', label: s.label, detail: `${plural(s.layers, 'layer')} × ${plural(s.heads, 'head')}` })),
    links: [],
  };
}

/** config.architecture -> describer (absent architecture = transformer, as in models/FORMAT.md). */
export const FAMILIES = { transformer, rnn, bert, decoder_only: decoderOnly };

/**
 * `info` (the worker's model description: config, sites, vocabulary sizes, tokenizer) as
 * {family, words, blocks: [{id, column, label, detail}], links: [{from, to, label}]}.
 */
export function describeArchitecture(info) {
  const name = info?.config?.architecture ?? info?.architecture ?? 'transformer';
  return (FAMILIES[name] ?? generic)(info);
}
