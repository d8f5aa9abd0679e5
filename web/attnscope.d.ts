// Type declarations for attnscope (web/attnscope.js).

export class AttnscopeError extends Error {}

export interface RuntimeOptions {
  /** The engine's .wasm bytes (skips fetching it). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Where to fetch the .wasm from (default: next to attnscope-wasm.js). */
  wasmUrl?: string | URL;
}

export function init(options?: RuntimeOptions): Promise<unknown>;
/** Bytes currently allocated on the engine's heap. */
export function heapInUse(): Promise<number>;

/** Corpus BLEU (13a, mixed case, as sacreBLEU) of some sentences. */
export interface BleuFigures {
  bleu: number;
  /** n-gram precisions in percent, n = 1..4 */
  precisions: number[];
  brevityPenalty: number; hypLen: number; refLen: number;
}
/** One bin of source lengths: minWords..maxWords words (maxWords null: no upper bound). */
export type LengthBin = { minWords: number; maxWords: number | null; sentences: number } &
  (BleuFigures | { bleu: null });
export interface BleuByLength {
  /** The bins' upper edges, e.g. [8, 12, 16, 20] */
  edges: number[];
  bins: LengthBin[];
  total: BleuFigures & { sentences: number };
}
/** BLEU per bin of source length (white-space words) of given translations. */
export function bleuByLength(sources: string[], translations: string[], references: string[],
  options?: { bins?: number[] }): Promise<BleuByLength>;

export interface Progress { loaded: number; total: number; url?: string }

/** An induction-heads corpus (Olsson et al. 2022): symbol words, each sequence as a [source, target] pair, the probes as texts. */
export interface InductionCorpus { symbols: string[]; pairs: [string, string][]; probes: string[] }
/** @deprecated name: an InductionCorpus. */
export type RepeatedSequences = InductionCorpus;
/** Made by the engine from a seed: each sequence is halfLength symbols, then the same again. */
export function repeatedSequences(options?: {
  halfLength?: number; minHalfLength?: number; maxPrefix?: number; symbols?: number; sequences?: number; seed?: number; probes?: number;
}): Promise<InductionCorpus>;
/** Made by the engine from a seed: walks on a random successor map of their own (the induction preset's data). */
export function successorWalks(options?: {
  symbols?: number; length?: number; jump?: number; sequences?: number; seed?: number; probeLength?: number; probes?: number;
}): Promise<InductionCorpus>;
/** Model#inductionScores: per layer and head, and the two halves' losses (nats per token). */
export interface InductionScores {
  layers: number; heads: number;
  /** [layer][head]: mean attention from a repeated token to the token after its earlier occurrence. */
  prefixMatching: number[][];
  /** [layer][head]: mean attention from a token to the one before it. */
  previousToken: number[][];
  /** [layer][head]: Σ Re λ / Σ |λ| of the head's OV circuit over the symbols, in [-1, 1]. */
  copying: number[][];
  lossFirstHalf: number; lossRepeatedHalf: number;
  /** The first probe's context, <bos> first, and its attention [layers, heads, T, T]. */
  tokens: string[];
  attention: AttentionTensor;
}

/**
 * Loads a model: a URL (fetched; a path in Node), a Response, or the file's bytes (an
 * ArrayBuffer or Uint8Array, e.g. `await file.arrayBuffer()` of a picked File). Before any byte
 * enters the engine its safetensors header is read, and a file that cannot fit in the engine's
 * WebAssembly memory (2 GiB: its tensors as the load holds them, an allowance for activations
 * from its config, and the engine's own; web/model-header.js) is refused with an
 * AttnscopeError that states the size and the limit; a download is stopped as soon as its header
 * has arrived. A truncated or corrupt header is an AttnscopeError too. A download, or a file read
 * from a path in Node, is read no further than it must be: 8 bytes that give no safetensors
 * header length (over 100,000,000: a PNG, an HTML page, a ZIP) stop it, with the engine's words
 * for what the bytes look like; a Content-Length beyond the end of the last tensor, or any byte
 * after it, is trailing data and is refused, the download cancelled (docs/reliability.md).
 * A URL, path, Response or Blob is streamed into the engine as it arrives (JavaScript holds one
 * chunk at a time, never the file); bytes in hand are read from where they are.
 */
export function loadModel(
  source: string | URL | Response | Blob | ArrayBuffer | Uint8Array,
  options?: RuntimeOptions & {
    onProgress?: (p: Progress) => void;
    /** Cancels a download or a file's read: the load rejects with the abort reason's message. */
    signal?: AbortSignal;
    /** Decoder-step products on int8 weights: faster, approximate (the encoder stays exact). */
    int8?: boolean;
    /**
     * Keep the weights of a file stored as F16 or BF16 in 16 bits, as the file holds them (default true);
     * false expands them to binary32: twice their memory, the same results bit for bit.
     */
    binary16?: boolean;
  },
): Promise<Model>;

export interface ModelConfig {
  /** The model family (absent from older files: 'transformer'). */
  architecture: string;
  d_model: number; n_heads: number; d_ff: number;
  n_encoder_layers: number; n_decoder_layers: number;
  activation: 'relu' | 'gelu' | 'swish'; norm: 'post' | 'pre'; positions: 'sinusoidal' | 'learned' | 'sinusoidal_halves';
  max_positions: number; embedding_scale: number; shared_embeddings: boolean; tied_output: boolean;
  layer_norm_eps: number; src_append_eos: boolean;
  special_tokens: { pad: number; unk: number; bos: number; eos: number };
  /** Target ids the decoder never chooses (Marian: its pad). */
  suppress_tokens?: number[];
}

export interface ModelInfo {
  /** The file's own words (its __metadata__, models/FORMAT.md); '' when absent. Untrusted text: show it as text. */
  name: string; description: string; license: string; source: string;
  /** The file: its size in bytes and its tensors' elements (parameters), from its header; absent for a model trained in the page or by createTrainer. */
  file?: { bytes: number; parameters: number };
  /** The file's generation defaults, when it has them (a converted Hugging Face model's generation config). */
  generation?: {
    strategy?: 'greedy' | 'beam' | 'sample'; beam_size?: number; nbest?: number;
    /** Generated tokens, </s> included (Hugging Face's max_length - 1). */
    max_length?: number; min_length?: number;
    length_penalty?: 'none' | 'average' | 'gnmt' | 'power'; alpha?: number;
    early_stopping?: 'bound' | 'heuristic' | 'early' | 'never';
    no_repeat_ngram_size?: number; repetition_penalty?: number;
  };
  config: ModelConfig;
  tokenizer: { type: 'word' | 'bpe' | 'wordpiece' | 'sentencepiece'; lowercase?: boolean; split_punctuation?: boolean; merges?: string[];
    unk?: string; max_chars_per_word?: number; never_split?: string[]; language_codes?: boolean; pieces?: number };
  /** The target side's tokenizer (encodes forced target text, decodes the output); the same as `tokenizer` unless the file has a `tgt_tokenizer`. */
  tgtTokenizer: ModelInfo['tokenizer'];
  srcVocabSize: number; tgtVocabSize: number;
  /** Loaded with `int8: true`. */
  int8: boolean;
  /** Weights kept in binary16: loaded with `binary16: true` (the default) from a file that stores them as F16. */
  binary16: boolean;
  /** Weights kept in bfloat16: loaded with `binary16: true` (the default) from a file that stores them as BF16. */
  bfloat16: boolean;
  /** The model family, as config.architecture. */
  architecture: string;
  /** The architecture in words and as a diagram, as the model's family describes itself (show it without knowing the family). */
  architectureDescription: ArchitectureDescription;
  /** false for an encoder-only model (BERT): translate() throws; encode(), fillMask(), headStudy() apply. */
  hasDecoder: boolean;
  /** false for a decoder-only model (GPT): no encoder, no cross-attention, no source encoding. */
  hasEncoder: boolean;
  /** The decoder layers session.logitLens() reads out; 0 where the model has no lens (an RNN, an encoder-only model). */
  logitLensLayers: number;
  /**
   * What translate() starts from: 'source' (an encoder-decoder translates it), 'prompt' (a
   * decoder-only model continues it: the prompt, <bos> first where it reads one, opens its own
   * context, one attention site 'self' over that context), 'text' (encoder-only: encode() and
   * fillMask() read it).
   */
  input: 'source' | 'prompt' | 'text';
  /**
   * input 'prompt': true where the model reads <bos> before every prompt, as the tokenizer it
   * comes from adds one (the file's config.prepend_bos; GPT-2 from Hugging Face: false).
   * DecodeOptions.prependBos overrides it. false for the other inputs.
   */
  prependBos: boolean;
  /** The model's attention sites, from its family's table, in table order. */
  sites: readonly AttentionSiteInfo[];
  /**
   * The model-wide interventions its family refuses (an error if used), by option name:
   * 'maskHeads', a skip name ('encoderSelfAttention', 'decoderSelfAttention', 'crossAttention',
   * 'ffn', 'layerNorm'), 'copySourceEncoding', 'lastSourceState'.
   */
  refusedInterventions: readonly string[];
}

/**
 * A model's architecture as its family describes it: one sentence, and a diagram of blocks in
 * columns with labelled links between them. Plain text throughout (from the model file's config):
 * show it as text.
 */
export interface ArchitectureDescription {
  /** The family in a few words, e.g. "RNN encoder-decoder"; the diagram's title. */
  family: string;
  /** The architecture in one sentence: its layers, heads, widths and vocabulary. */
  words: string;
  /** The diagram's boxes, each column's read top to bottom. */
  blocks: readonly {
    /** Unique within the description; what links name. */
    id: string;
    /** The column it stands in: 'Encoder' or 'Decoder'. */
    column: string;
    label: string;
    detail: string;
  }[];
  /** Arrows between blocks (by id), each with its caption, e.g. {from: 'enc', to: 'dec', label: 'memory'}. */
  links: readonly { from: string; to: string; label: string }[];
}

/**
 * One attention site of a model: where attention weights are computed. Everything that
 * shows attention iterates over `model.info.sites` instead of naming sites.
 */
export interface AttentionSiteInfo {
  /** What to pass as `site` (a transformer has 'encoder', 'self' and 'cross'). */
  name: string;
  /** A title for it, e.g. "Cross-attention". */
  label: string;
  /** Whose tokens the rows (queries) and columns (keys) are. */
  queries: 'source' | 'target';
  keys: 'source' | 'target';
  layers: number;
  heads: number;
  /** true: one map per decoding step ([layers, heads, keys]); false: once per source ([layers, heads, queries, keys]). */
  perStep: boolean;
  /** The `interventions.skip` name that switches this site's sub-layer off, e.g. 'crossAttention'. */
  skip: string;
  /** Whether custom attention weights fit it (its keys are the source, not a prefix that grows each step). */
  customWeights: boolean;
  /** Whether `interventions.copySourceEncoding` replaces this site's output. */
  copiedBySourceEncoding: boolean;
  /** Whether the family records this site's q, k and v (valueWeightedAttention and attentionLogits need them; an RNN's score has none). */
  queryKeyValues: boolean;
}

export interface Tokenized { pieces: string[]; ids: number[]; unknown: string[] }

export interface DecodeOptions {
  strategy?: 'greedy' | 'beam' | 'sample';
  beamSize?: number; nbest?: number;
  lengthPenalty?: 'none' | 'average' | 'gnmt' | 'power'; alpha?: number;
  /** When beam search stops: 'bound' (default: nothing live can still win) or Hugging Face's early_stopping False / True / "never" as 'heuristic' / 'early' / 'never'. */
  earlyStopping?: 'bound' | 'heuristic' | 'early' | 'never';
  maxLength?: number; maxLengthA?: number; maxLengthB?: number; minLength?: number;
  /** n > 0: no token may complete an n-gram the hypothesis already has (generated tokens, no <s>). 0 = off. */
  noRepeatNgram?: number;
  /** θ in (0, 1000]: each generated token's logit x becomes x / θ if x > 0, else x · θ (CTRL). 1 = off. */
  repetitionPenalty?: number;
  temperature?: number; topK?: number; topP?: number; seed?: number;
  /** Target ids, or target text, forced at the start. */
  prefix?: number[] | string;
  /** Alternatives reported per step (default 10). */
  alternatives?: number;
  /** What to record (defaults: attention and logits on, vectors off). */
  capture?: { attention?: boolean; logits?: boolean; vectors?: boolean };
  /** Break the model on purpose (rules in src/model/interventions.h). */
  interventions?: Interventions;
  /**
   * Decoder-only models: read the prompt after <bos> (true) or without it (false), whatever
   * info.prependBos says (TransformerLens's prepend_bos). An empty prompt is <bos> alone either
   * way. Other models refuse it.
   */
  prependBos?: boolean;
}

/** A site name from `model.info.sites`. */
export type AttentionSite = string;

export interface Interventions {
  /** Replace attention weights; layer/head '*' (or omitted) = all. */
  attention?: { site?: AttentionSite; layer?: number | '*'; head?: number | '*';
    pattern?: 'uniform' | 'beginning' | 'end' | 'custom';
    /** custom: one row (every query) or a matrix (row i for query i; later queries reuse the last row). */
    weights?: number[] | number[][] }[];
  /** Zero these heads' outputs (they still attend, and their maps are still reported). */
  maskHeads?: { site: AttentionSite; layer: number; head: number }[];
  /** Drop whole sub-layers (they still run for display, but add nothing) or every LayerNorm. */
  skip?: ('encoderSelfAttention' | 'decoderSelfAttention' | 'crossAttention' | 'ffn' | 'layerNorm')[];
  /** Copy the source encoding into the decoder: every cross-attention sub-layer outputs the mean of the encoder output. */
  copySourceEncoding?: boolean;
  /** "Last state only": the decoder gets the encoder's final state instead of its attention (an RNN; a transformer refuses it). */
  lastSourceState?: boolean;
}

/** An encoder-only model's reading of one text ("[CLS] pieces [SEP]"). */
export interface Encoding {
  tokens: string[]; ids: number[];
  /** 0 up to and including the first [SEP], then 1. */
  segments: number[];
  unknown: string[];
  /** Per site of info.sites: [layers, heads, T, T]. */
  attention: Record<string, AttentionTensor>;
  /** The final hidden states, [T, d]. */
  hidden: AttentionTensor;
  /** With `vectors: true`: 'layers.<l>.q' | 'k' | 'v' | 'transformed_values' ([heads * T, d]) | 'output', 'embedding_sum', 'pooled', ... */
  vectors?: Record<string, AttentionTensor>;
}
export interface MaskCandidate { id: number; token: string; prob: number; logit: number }
export interface FillMaskResult extends Encoding {
  masks: { position: number; topK: MaskCandidate[] }[];
}

/** Shares of attention (each in [0, 1], overlapping: they need not sum to 1). */
export interface AttentionShares {
  /** on [CLS] */ cls: number;
  /** on every [SEP] */ sep: number;
  /** on pieces made only of punctuation */ punct: number;
  /** on position i − 1 (0 for the first row) */ prev: number;
  /** on position i + 1 (0 for the last row) */ next: number;
}
export type AttentionPattern = 'vertical' | 'diagonal' | 'vertical+diagonal' | 'block' | 'heterogeneous';
export interface HeadStudy {
  tokens: string[];
  /** [layer][head]: Kovaleva et al. (2019)'s class of each head's map. */
  patterns: AttentionPattern[][];
  shares: {
    /** [layer]: mean over heads and query rows of the raw weights alpha. */
    raw: AttentionShares[];
    /** [layer]: the same of alpha_ij·‖f_h(x_j)‖, each row renormalised to 1 (Kobayashi et al. 2020). */
    norm: AttentionShares[];
    /** [layer][head] */
    rawHeads: AttentionShares[][];
    /** [layer][head] */
    normHeads: AttentionShares[][];
  };
  /** The self-attention it was computed from: [layers, heads, T, T]. */
  attention: AttentionTensor;
}
export interface TextAnalysis {
  tokens: string[];
  /** The site the rollout and the pattern classes read: the self-attention over the input. */
  site: string;
  /** Attention rollout (Abnar & Zuidema 2020) through that site: [T, T]. */
  rollout: AttentionTensor;
  /** [layer * heads + head]: Kovaleva et al. (2019)'s class of each head of that site. */
  patterns: AttentionPattern[];
  /** Per once-per-source site: its attention [layers, heads, T, T]. */
  attention: Record<string, AttentionTensor>;
  /** Per once-per-source site with per-head projections: ‖α·f(x)‖ (Kobayashi et al. 2020), [layers, heads, T, T]. */
  valueWeighted: Record<string, AttentionTensor>;
}
export interface HeadAblation {
  /** Masked-token accuracy (top-1 == the original piece), nothing switched off. */
  baseAccuracy: number;
  /** Masked positions over all sentences. */
  positions: number;
  baseCorrect: number;
  sentences: number;
  /** [layer][head]: correct predictions with that head switched off. */
  correct: number[][];
  /** [layer][head]: accuracy with that head off − baseAccuracy. */
  delta: number[][];
}

export class Model {
  readonly info: ModelInfo;
  readonly config: ModelConfig;
  vocab(side?: 'source' | 'target'): readonly string[];
  tokenId(token: string, side?: 'source' | 'target'): number;
  tokenize(text: string, options?: { side?: 'source' | 'target' }): Tokenized;
  /** Encoder-only models: a sentence or a pair ('A [SEP] B'), its attention and hidden states. */
  encode(text: string, options?: { vectors?: boolean; interventions?: Interventions }): Encoding;
  /** Encoder-only models: the topK best pieces (default 5) for every [MASK]. */
  fillMask(text: string, options?: { topK?: number; interventions?: Interventions }): FillMaskResult;
  /** Encoder-only models: pattern class of every head and the [CLS]/[SEP]/punct/prev/next shares, raw and norm-weighted. */
  headStudy(text: string, options?: { interventions?: Interventions }): HeadStudy;
  /** Encoder-only models: rollout, pattern classes and value-weighted attention of the text's encoding. */
  textAnalysis(text: string, options?: { interventions?: Interventions }): TextAnalysis;
  /** Encoder-only models: one head's q·kᵀ/√d_head row for one position (before the softmax) and its attention row. */
  textAttentionLogits(text: string, options: { site: string; layer?: number; head?: number; query?: number; interventions?: Interventions }):
    { logits: Float32Array; weights: Float32Array };
  /** Encoder-only models: masked-token accuracy on `sentences` with each head switched off in turn. */
  headAblation(sentences: string[], options?: { onProgress?: (done: number, total: number) => void }): HeadAblation;
  translate(text: string, options?: DecodeOptions): Session;
  /**
   * Decoder-only models (info.input 'prompt'): continues `prompt`, as translate() does. The
   * prompt's P tokens are session.source.pieces (<bos> first only where the model reads one); the
   * first step's attention has a row per position of them: [layers, heads, P, P].
   */
  generate(prompt: string, options?: DecodeOptions): Session;
  /** Teacher-forced log-probability of `target` after `source` (a decoder-only model: after the prompt, read as prependBos says). */
  score(source: string, target: string, options?: { interventions?: Interventions; prependBos?: boolean }):
    { logProb: number; tokens: string[]; tokenLogProbs: Float32Array };
  embeddingPca(side?: 'source' | 'target'): AttentionTensor;
  positionalEncoding(): AttentionTensor;
  /** Language models: induction heads on probes whose second half repeats the first. */
  inductionScores(probes: string[], symbols: string[]): InductionScores;
  embeddingCosine(srcIds: ArrayLike<number>, tgtIds: ArrayLike<number>): AttentionTensor;
  /** Encoder-only models: what drove the best piece of every [MASK] of `text`, left to right (`step`: the [MASK]'s position). */
  maskAttribution(text: string, options?: AttributionOptions): TokenAttribution[];
  headImportance(pairs: [string, string][], options?: {
    onProgress?: (done: number, total: number) => void; bleu?: boolean;
    /** Only the heads [first, first + count) of the sweep's order (count -1: to the last). */
    heads?: { first?: number; count?: number };
    /** Decoder-only models: the prompts read after <bos> or not, as DecodeOptions.prependBos. */
    prependBos?: boolean;
  }): {
    baseLogLikelihood: number; tokens: number; baseBleu?: number;
    heads: { site: AttentionSite; layer: number; head: number; deltaLogLikelihood: number; deltaBleu?: number }[];
  };
  /** Translates every source and scores the translations per bin of source length (Bahdanau et al. 2015). */
  bleuByLength(pairs: [string, string][], options?: Omit<DecodeOptions, 'capture' | 'prefix'> & {
    /** The bins' upper edges in words (default [8, 12, 16, 20]). */
    bins?: number[];
    onProgress?: (done: number, total: number) => void;
  }): BleuByLength & { translations: string[] };
  dispose(): void;
  [Symbol.dispose](): void;
}

export interface Hypothesis {
  ids: number[]; tokens: string[]; text: string;
  score: number; normalizedScore: number; finished: boolean; node: number;
}

export interface Alternative { id: number; token: string; logit: number; logProb: number; prob: number }

export interface StepRecord {
  step: number;
  expansions: {
    hypothesis: number; node: number; prefix: number[]; prefixTokens: string[]; score: number; top: Alternative[];
    /** With capture.attention: this hypothesis' attention at this step, per per-step site name. */
    attention?: Record<string, AttentionTensor>;
  }[];
  forced: boolean; forcedToken?: number; forcedLogProb?: number;
  /** From step() and force() (not history()): the session after the step, as `state()` gives it. */
  state?: SessionState;
}

export interface SessionState {
  done: boolean; hitMaxLength: boolean; steps: number; maxLength: number;
  live: Hypothesis[]; finished: Hypothesis[]; nbest: Hypothesis[];
}

/** A copy, owned by the caller. */
export interface AttentionTensor { shape: number[]; data: Float32Array }

export interface BeamNode {
  id: number; parent: number; step: number; tokenId: number; token: string;
  logProb: number; score: number; status: 'live' | 'finished' | 'pruned' | 'cut';
}

export interface HeadSelector { layer?: number; head?: number }

export class Session {
  readonly model: Model;
  step(): StepRecord;
  run(): this;
  back(): this;
  force(token: number | string, hypothesis?: number): StepRecord;
  /** The state returned by the last step, force, back or run (no engine call; so are the getters below). */
  state(): SessionState;
  readonly done: boolean;
  readonly hitMaxLength: boolean;
  readonly steps: number;
  readonly maxLength: number;
  readonly translation: string;
  /** What the model reads: a source with </s> where it appends one; a prompt with <bos> first only where it reads one. */
  readonly source: Tokenized;
  hypotheses(): Hypothesis[];
  finished(): Hypothesis[];
  nbest(): Hypothesis[];
  history(step: number): StepRecord;
  /**
   * One site's attention. Per-step site: at `step` for `hypothesis`, [layers, heads, keys] (one
   * head: [keys]); a decoder-only model's first step, [layers, heads, 1 + prompt, 1 + prompt]. Once-per-source site: `step` ignored, [layers, heads, queries, keys].
   * An unknown site is an AttnscopeError listing the model's sites.
   */
  attention(site: AttentionSite, step?: number, select?: HeadSelector & { hypothesis?: number }): AttentionTensor;
  /** Thin wrapper: attention('encoder', 0, select). */
  encoderAttention(select?: HeadSelector): AttentionTensor;
  /** Thin wrapper: attention('cross', step, select). */
  crossAttention(step: number, select?: HeadSelector & { hypothesis?: number }): AttentionTensor;
  /** Thin wrapper: attention('self', step, select). */
  selfAttention(step: number, select?: HeadSelector & { hypothesis?: number }): AttentionTensor;
  logits(step: number, options?: { hypothesis?: number; logProbs?: boolean }): Float32Array;
  beamTree(): BeamNode[];
  rollout(): AttentionTensor;
  attentionLogits(kind: AttentionSite, select?: { layer?: number; head?: number; query?: number; step?: number; hypothesis?: number }): Float32Array;
  valueWeightedAttention(kind: AttentionSite, step?: number, select?: HeadSelector & { hypothesis?: number }): AttentionTensor;
  encoderPatterns(): ('diagonal' | 'vertical' | 'vertical+diagonal' | 'block' | 'heterogeneous')[];
  /** Decoder-only models, after the first step: the rollout through the prompt's causal self-attention, [P, P] (P: session.source.pieces). */
  promptRollout(): AttentionTensor;
  /** Decoder-only models, after the first step: the pattern class of every head on the prompt's map, [layer * heads + head]. */
  promptPatterns(): ('diagonal' | 'vertical' | 'vertical+diagonal' | 'block' | 'heterogeneous')[];
  /** The logit lens along the leading hypothesis: per step and decoder layer, the top-k tokens and the chosen token's probability and rank. Throws for a model without a lens. */
  logitLens(k?: number, select?: { ids?: ArrayLike<number> }): LogitLens;
  /** What drove the prediction of `step` (by default the token chosen there), per input token, with τ per head against the attention. */
  attribution(step: number, options?: AttributionOptions & { hypothesis?: number; token?: number }): TokenAttribution;
  /** attribution() of every step of the path to `hypothesis` at step `last` (default: the last step's first), and τ per head averaged over them. */
  sentenceAttribution(options?: AttributionOptions & { last?: number; hypothesis?: number }): { steps: TokenAttribution[]; meanAgreement?: AttentionAgreement };
  /** What attribution(step, options) would cost, counted before anything runs. */
  attributionCost(step: number, options?: AttributionOptions & { hypothesis?: number; token?: number }): AttributionCost;
  /** What sentenceAttribution(options) would cost: the sum over its steps. */
  sentenceAttributionCost(options?: AttributionOptions & { last?: number; hypothesis?: number }): AttributionCost;
  detokenize(ids: ArrayLike<number>): string;
  dispose(): void;
  [Symbol.dispose](): void;
}

/** How session.attribution() scores the input (src/analysis/attribution.h). */
export interface AttributionOptions {
  /** Gradient × input (default), integrated gradients (Sundararajan et al. 2017) or leave-one-out erasure. */
  method?: 'gradient-input' | 'integrated-gradients' | 'erasure';
  /** Integrated gradients: points of the midpoint rule, 1 to 4096 (default 32), and at most the cap of AttributionCost.maxSteps. */
  steps?: number;
  /** Integrated gradients: start from zero embeddings or from every token's <pad> embedding. */
  baseline?: 'zero' | 'pad';
  /** Explain log p(token) − log p(contrast) instead (Yin & Neubig 2022): a token's text or id. */
  contrast?: string | number;
}

/** The work of an attribution call, counted before it runs (src/analysis/attribution_cost.h). */
export interface AttributionCost {
  /** Multiply-adds, about: a forward over T tokens of a model of P parameters is P·T, its backward twice that. */
  work: number;
  /** Forwards (with their backwards for the gradient methods). */
  passes: number;
  /** The most integrated-gradients steps this input allows within the engine's budget (32 to 4096: the default always runs). */
  maxSteps: number;
}

/** Kendall's τ-b between each head's attention row and |attribution| over the same tokens. */
export interface AttentionAgreement {
  /** The attention site compared: cross-attention (translation), the self-attention (decoder-only, encoder-only). */
  site: string;
  layers: number;
  heads: number;
  /** [layer * heads + head]; NaN where τ is undefined (a constant row). */
  tau: Float64Array;
}

/** One explained prediction: a score per input token. */
export interface TokenAttribution {
  step: number;
  token: string;
  tokenId: number;
  contrast?: string;
  sourceTokens: string[];
  sourceScores: Float32Array;
  /** <bos> first, then the prefix (decoder-only: the prompt as the model read it, <bos> first only where it reads one, and the prefix). */
  targetTokens: string[];
  targetScores: Float32Array;
  /** The score explained: log p(token), or log p(token) − log p(contrast). */
  f: number;
  sum: number;
  /** Integrated gradients: the score at the baseline (the target's leading <bos>, where it has one, kept as it is), and |sum − (f − fBaseline)|. */
  fBaseline?: number;
  completenessError?: number;
  /** Integrated gradients: completenessError / |f − fBaseline| (Infinity when only the change is 0). */
  completenessShare?: number;
  /** Integrated gradients: 0 when completenessShare is within 5%; else the steps that would bring it within (1/m²), at most the cap: the steps used when they are the cap. */
  suggestedSteps?: number;
  agreement?: AttentionAgreement;
}

/** One decoder layer's reading at one step of session.logitLens(k). */
export interface LogitLensLayer {
  /** The k most probable tokens of this layer's readout, most probable first. */
  top: { id: number; piece: string; p: number }[];
  /** The probability of the token chosen at this step, and its rank (1: the most probable). */
  chosen: { p: number; rank: number };
}

/** session.logitLens(k): per step taken (id and piece of the token chosen there), per decoder layer, first to last. */
export interface LogitLens {
  layers: number;
  steps: { id: number; token: string; layers: LogitLensLayer[] }[];
}

/** Sizes a model trained in the page may have (inclusive ranges); the CLI has no such limits. */
export const TRAIN_LIMITS: Readonly<{
  layers: readonly [number, number]; heads: readonly [number, number];
  dModel: readonly [number, number]; dFf: readonly [number, number];
  batchTokens: readonly [number, number];
  /** At most this many pairs, each side at most pairLength characters. */
  pairs: number; pairLength: number;
}>;

export interface TrainOptions {
  /** A fresh word-level model (vocabularies built from the pairs): encoder and decoder layers each (default 1). */
  layers?: number;
  heads?: number;    // default 1
  dModel?: number;   // default 64
  dFf?: number;      // default 2 · dModel
  /** 'rnn': a fresh RNN encoder-decoder (the fields below) instead of a transformer (default 'transformer'). */
  family?: 'transformer' | 'rnn';
  cell?: 'gru' | 'lstm';                        // RNN, default 'gru'
  attention?: 'bahdanau' | 'luong' | 'none';    // RNN, default 'bahdanau'
  score?: 'additive' | 'dot' | 'scaled_dot' | 'general' | 'cosine' | 'location';  // RNN, default 'additive'
  dEmbed?: number;         // RNN, default 32
  dHidden?: number;        // RNN, default 64
  dEncoder?: number;       // RNN, per direction; default 0: dHidden / directions
  dAttention?: number;     // RNN additive score; default 0: dHidden
  bidirectional?: boolean; // RNN encoder, default true
  inputFeeding?: boolean;  // RNN Luong, default false
  localWindow?: number;    // RNN Luong local-p D, default 0: global attention
  /** Initial weights, batch order and dropout (default 1). */
  seed?: number;
  lr?: number;             // default 1e-3 (Adam, betas 0.9 / 0.98, eps 1e-9)
  batchTokens?: number;    // default 24: length-bucketed batches of about this many tokens
  labelSmoothing?: number; // default 0
  dropout?: number;        // default 0
  clipNorm?: number;       // default 0: no clipping
  warmup?: number;         // > 0: inverse-square-root schedule with this warmup; default constant lr
  countExact?: boolean;    // default true; false: no exact-match count after each epoch (`exact` null)
  /** Continue training this model file (bytes, a URL or a Response) instead of a fresh one (no family or architecture fields then). */
  from?: string | URL | Response | ArrayBuffer | Uint8Array;
}

export interface EpochReport {
  /** 1 after the first epoch. */
  epoch: number;
  /** Mean loss per target token over the epoch. */
  loss: number;
  /** Pairs whose greedy translation equals the target, out of `total` (null with countExact: false). */
  exact: number | null;
  total: number;
  /** Time of the training pass (without the exact count). */
  seconds: number;
  /** Optimiser steps so far. */
  updates: number;
  /** The weights after the epoch (the trainer owns it: disposed when the next epoch ends). */
  model: Model;
}

/** `pairs`: CSV text ("source,target" per line), such lines, or [source, target] pairs. */
export function createTrainer(pairs: string | string[] | [string, string][], options?: TrainOptions): Promise<Trainer>;

/** A fresh model the demo page's Training panel offers, as its family registers it in the engine. */
export interface TrainingPreset {
  /** Unique, in a trained model's name in the page: lowercase letters, digits and '-' ('rnn-bahdanau'). */
  id: string;
  /** For a picker: 'RNN, Bahdanau attention'. */
  label: string;
  /** The model family that registers it (a fresh model's `family`). */
  family: string;
  /** Whether the model has heads (a recipe's `heads` sets the option `heads`). */
  heads: boolean;
  /** The option a recipe's width sets: 'dModel', 'dHidden'. */
  width: string;
  /** The width's name for a knob: 'd_model', 'hidden size'. */
  widthLabel: string;
  /** The learning rate proposed for it (the toy models' recipes). */
  proposedLr: number;
  /** The fixed createTrainer options; a recipe adds layers, heads (where it has heads), [width], seed and lr. */
  options: Readonly<TrainOptions>;
  /** What it trains on: 'pairs' (sentence pairs: the Training panel) or 'induction' (successor walks, its size fixed in `options`). */
  task: 'pairs' | 'induction';
}

/** Every family's Training panel presets, the default family's first first. */
export function trainingPresets(): Promise<readonly Readonly<TrainingPreset>[]>;

export class Trainer {
  /** Epochs trained so far. */
  readonly epochs: number;
  /** The model after the last epoch, or null (owned by the trainer). */
  readonly model: Model | null;
  readonly training: boolean;
  runEpoch(): EpochReport;
  /** Runs up to `epochs` epochs, yielding to the event loop between them; stop() or `signal` ends it early. */
  train(options?: { epochs?: number; onEpoch?: (report: EpochReport) => void | Promise<void>; signal?: AbortSignal }):
    Promise<{ epochs: number; stopped: boolean; last: EpochReport | null }>;
  stop(): void;
  /** The pairs the next epochs train on (a corpus drawn afresh each epoch); the model and optimiser carry on. */
  setPairs(pairs: string | string[] | [string, string][]): void;
  /** The current weights as a .safetensors file. */
  exportBytes(): Uint8Array;
  dispose(): void;
  [Symbol.dispose](): void;
}
