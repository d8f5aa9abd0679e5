// A decoding session (Session, made by Model#translate / generate): its steps, state and history,
// the attention of each site, logits, the beam tree, and the analyses of a session (rollout,
// value-weighted attention, attention logits, the prompt's maps, the logit lens, attribution).

import { AttnscopeError, check, handleOf, own, release } from './runtime.js';
import { attributionArgs, int, ints, siteOf } from './arguments.js';

// One head's slice of an attention tensor [layers, heads, ...], or the whole tensor when neither is given.
function pickHead(tensor, layer, head, what) {
  const [layers, heads] = tensor.shape;
  if (layer === undefined && head === undefined) return tensor;
  if (!Number.isInteger(layer) || layer < 0 || layer >= layers) {
    throw new AttnscopeError(`${what}: layer ${layer} is out of range [0, ${layers})`);
  }
  if (!Number.isInteger(head) || head < 0 || head >= heads) {
    throw new AttnscopeError(`${what}: head ${head} is out of range [0, ${heads})`);
  }
  const size = tensor.shape.slice(2).reduce((a, b) => a * b, 1);
  const offset = (layer * heads + head) * size;
  return { shape: tensor.shape.slice(2), data: tensor.data.slice(offset, offset + size) };
}

export class Session {
  #model;
  #status;  // the engine's state after the last call that changed it; getters read only this
  #source;

  constructor(model, handle, state) {
    this.#model = model;
    own(this, handle);
    this.#status = state;
  }

  #live() { return handleOf(this, 'session'); }

  get model() { return this.#model; }
  #state() { handleOf(this, 'session'); return this.#status; }

  // Calls the engine for something that changes the session. A failed call may still have
  // moved it (run() can stop half-way): then, and only then, the state is asked for again.
  #change(call) {
    const handle = this.#live();
    try {
      return check(call(handle));
    } catch (e) {
      if (e instanceof AttnscopeError) this.#status = check(handle.state());
      throw e;
    }
  }

  // A step record carries the state after it: keep that, hand the record on.
  #stepped(record) {
    this.#status = record.state;
    return record;
  }

  /**
   * Generates the next token of every live hypothesis; returns what the step computed: for
   * each hypothesis extended, its top alternatives and (capture.attention) its attention per
   * per-step site, `expansions[i].attention[site] = {shape, data}`; and `state`, the session
   * after the step (as state() gives it).
   */
  step() { return this.#stepped(this.#change((h) => h.step())); }

  /** Steps until the end. */
  run() { this.#status = this.#change((h) => h.run()); return this; }

  /** Undoes the last step (cheap: the caches are truncated, nothing is recomputed). */
  back() { this.#status = this.#change((h) => h.back()); return this; }

  /**
   * {done, hitMaxLength, steps, maxLength, live, finished, nbest}: what the last step, force,
   * back or run returned (no call into the engine).
   */
  state() { return this.#state(); }

  /** Chooses the next token (id or token string) of one live hypothesis, then goes on from it. */
  force(token, hypothesis = 0) {
    const id = typeof token === 'string' ? this.#model.tokenId(token) : token;
    if (typeof token === 'string' && id < 0) throw new AttnscopeError(`'${token}' is not in the target vocabulary`);
    if (!Number.isInteger(id)) throw new AttnscopeError(`token must be an integer id or a token string, got ${token}`);
    const tokenId = int(id, 'token id');
    const which = int(hypothesis, 'hypothesis');
    return this.#stepped(this.#change((h) => h.force(tokenId, which)));
  }

  get done() { return this.#state().done; }
  get hitMaxLength() { return this.#state().hitMaxLength; }
  /** Number of steps taken so far. */
  get steps() { return this.#state().steps; }
  get maxLength() { return this.#state().maxLength; }
  /** The live hypotheses: [{ids, tokens, text, score, node}]. */
  hypotheses() { return this.#state().live; }
  /** Hypotheses that ended (by </s>, or cut at maxLength with finished = false), in order. */
  finished() { return this.#state().finished; }
  /** The best finished hypotheses, best first (at most `nbest`). */
  nbest() { return this.#state().nbest; }
  /** The best finished translation's text, or '' while none has finished. */
  get translation() { return this.nbest()[0]?.text ?? ''; }
  /**
   * What the model reads, {pieces, ids, unknown}: the source as the encoder saw it (with </s>
   * where the model appends one), or a decoder-only model's prompt (<bos> first only where it
   * reads one: info.prependBos, or the session's prependBos option).
   */
  get source() {
    this.#source ??= check(this.#live().source());
    return this.#source;
  }

  /** Step `step`: for each hypothesis extended, its prefix, score and top alternatives. */
  history(step) { return check(this.#live().history(int(step, 'step'))); }

  /**
   * The attention of one site (a name from model.info.sites). A per-step site: at `step`, for
   * the hypothesis extended as `hypothesis`, {shape: [layers, heads, keys], data} (one head:
   * [keys]). A once-per-source site (perStep false): `step` is ignored, the shape is
   * [layers, heads, queries, keys] (one head: [queries, keys]).
   */
  attention(site, step, { layer, head, hypothesis = 0 } = {}) {
    const info = siteOf(this.#model, site);
    const at = info.perStep ? int(step, 'step') : 0;
    return pickHead(check(this.#live().attention(info.name, at, int(hypothesis, 'hypothesis'))), layer, head,
      `${info.name} attention`);
  }

  /** Thin wrapper: attention('encoder', 0, select), the encoder's self-attention [layers, heads, src, src]. */
  encoderAttention(select = {}) { return this.attention('encoder', 0, select); }

  /** Thin wrapper: attention('cross', step, select), a step's cross-attention [layers, heads, src]. */
  crossAttention(step, select = {}) { return this.attention('cross', step, select); }

  /** Thin wrapper: attention('self', step, select), a step's decoder self-attention [layers, heads, step + 1]. */
  selfAttention(step, select = {}) { return this.attention('self', step, select); }

  /** The logits (or log-probabilities) over the target vocabulary at a step. */
  logits(step, { hypothesis = 0, logProbs = false } = {}) {
    return check(this.#live().logits(int(step, 'step'), int(hypothesis, 'hypothesis'), Boolean(logProbs)));
  }

  /** Attention rollout through the encoder (Abnar & Zuidema 2020): {shape: [src, src], data}. */
  rollout() { return check(this.#live().rollout()); }

  /**
   * ‖α·f(x)‖ (Kobayashi et al. 2020) instead of the raw weights, same shapes as the attention
   * getters. kind: a site name from model.info.sites. Needs capture.vectors.
   */
  valueWeightedAttention(kind, step = 0, { hypothesis = 0, layer, head } = {}) {
    return pickHead(check(this.#live().valueWeighted(String(kind), int(step, 'step'), int(hypothesis, 'hypothesis'))), layer,
      head, 'value-weighted attention');
  }

  /**
   * One head's scores for one query before the softmax, q·kᵀ/sqrt(d_head) (the "factor" row).
   * kind: a site name from model.info.sites. For a once-per-source site `query` is a source
   * position; for a per-step site the query is the position generated at `step` by
   * `hypothesis`. Needs capture.vectors.
   */
  attentionLogits(kind, { layer = 0, head = 0, query = 0, step = 0, hypothesis = 0 } = {}) {
    return check(this.#live().attentionLogits(String(kind), int(layer, 'layer'), int(head, 'head'), int(query, 'query'),
      int(step, 'step'), int(hypothesis, 'hypothesis')));
  }

  /** The pattern class (Kovaleva et al. 2019) of every encoder head, [layer * heads + head]. */
  encoderPatterns() { return check(this.#live().encoderPatterns()); }

  /**
   * Decoder-only models, after the first step: the rollout (Abnar & Zuidema 2020) through the
   * causal self-attention the first step computed over the prompt's P tokens (source.pieces),
   * {shape: [P, P], data}, and the pattern class of every head on that map, [layer * heads + head].
   */
  promptRollout() { return check(this.#live().promptRollout()); }
  promptPatterns() { return check(this.#live().promptPatterns()); }

  /**
   * The logit lens (nostalgebraist 2020) along the leading hypothesis: per step taken and per
   * decoder layer, what the readout (final norm, output projection) makes of that layer's
   * residual stream: the top-k tokens and the probability and rank (1: the most probable) of the
   * token chosen at that step. The last layer is the step's own prediction. Throws for a model
   * without a lens (model.info.logitLensLayers is 0). ids: the path to read instead (target ids,
   * one per step taken so far, e.g. a hypothesis' prefix).
   * -> {layers, steps: [{id, token, layers: [{top: [{id, piece, p}], chosen: {p, rank}}]}]}
   */
  logitLens(k = 5, { ids } = {}) {
    return check(this.#live().logitLens(int(k, 'k'), ids == null ? null : ints(ids, 'token id')));
  }

  /**
   * What drove the prediction of `step` for the hypothesis extended there as `hypothesis` (by
   * default the token the session chose there; `token`: another id), from the model's gradients
   * (src/analysis/attribution.h). method: 'gradient-input' (default), 'integrated-gradients'
   * (`steps` points of the midpoint rule, default 32; `baseline` 'zero' or 'pad') or 'erasure';
   * `contrast`: a token (text or id) to explain log p(token) − log p(contrast) instead.
   * -> {step, token, tokenId, contrast?, sourceTokens, sourceScores (Float32Array), targetTokens
   * (<bos> first, where the model reads one), targetScores, f, sum, and for integrated gradients fBaseline, completenessError
   * (|sum − (f − fBaseline)|), completenessShare (that error over |f − fBaseline|) and
   * suggestedSteps (0 when the share is within 5%, else the steps that would bring it within, at
   * most the cap; the steps used when they are the cap already), agreement?: {site, layers, heads,
   * tau (Float64Array [layer * heads + head], NaN where
   * undefined)}: Kendall's τ-b between each head's attention row and |score| (translation: the
   * cross-attention over the source; decoder-only: the self-attention over the context)}.
   * The first call builds the family's gradient pass on the model's own weights. Integrated gradients
   * take at most the steps whose work fits the engine's budget for this model and input (see
   * attributionCost); more throws, naming that cap.
   */
  attribution(step, { hypothesis = 0, token, ...options } = {}) {
    return check(this.#live().attribution(handleOf(this.#model, 'model'), int(step, 'step'), int(hypothesis, 'hypothesis'),
      token == null ? -1 : int(token, 'token'), ...attributionArgs(this.#model, 'target', options)));
  }

  /**
   * attribution() of every step of the path to the hypothesis extended as `hypothesis` at step
   * `last` (default: the session's last step, hypothesis 0: greedy, the sentence so far), and τ per
   * head averaged over those steps: {steps: [...], meanAgreement?: {site, layers, heads, tau}}.
   */
  sentenceAttribution({ last = -1, hypothesis = 0, ...options } = {}) {
    return check(this.#live().sentenceAttribution(handleOf(this.#model, 'model'), int(last, 'last'), int(hypothesis, 'hypothesis'),
      ...attributionArgs(this.#model, 'target', options)));
  }

  /**
   * What attribution(step, options) would cost, counted before anything runs
   * (src/analysis/attribution_cost.h): {work (multiply-adds, about), passes (forwards, with
   * their backwards for the gradient methods), maxSteps (the most integrated-gradients steps
   * this input allows)}. Work times a measured speed says how long the call will take.
   */
  attributionCost(step, { hypothesis = 0, token, ...options } = {}) {
    return check(this.#live().attributionCost(handleOf(this.#model, 'model'), int(step, 'step'), int(hypothesis, 'hypothesis'),
      ...attributionArgs(this.#model, 'target', options)));
  }

  /** The same for sentenceAttribution(options): the sum over its steps; maxSteps that of its longest input. */
  sentenceAttributionCost({ last = -1, hypothesis = 0, ...options } = {}) {
    return check(this.#live().sentenceAttributionCost(handleOf(this.#model, 'model'), int(last, 'last'), int(hypothesis, 'hypothesis'),
      ...attributionArgs(this.#model, 'target', options)));
  }

  /** Every candidate the search looked at: [{id, parent, step, tokenId, token, logProb, score, status}]. */
  beamTree() { return check(this.#live().tree()); }

  /** Text of target ids, specials removed. */
  detokenize(ids) { return check(this.#live().detokenize(ints(ids, 'token id'))); }

  /** Frees the session's WASM memory. */
  dispose() { release(this); }

  [Symbol.dispose]() { this.dispose(); }
}
