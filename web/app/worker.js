// The engine's thread. This module worker owns every Model and Session of the page (the demo
// page and every <attn-scope> widget on it share it): the main thread never touches WASM.
//
// Protocol: the page posts {id, type, ...args}; the worker answers {id, result} or
// {id, error: {name, message}}, and {id, progress: {loaded, total}} while a model downloads.
// Every answer is plain data (numbers, strings, arrays, Float32Arrays).
//
//   load     {url}                                  -> model info (progress in bytes)
//   open     {url, text, options, step, replace}    -> snapshot of a new session at `step`
//            (alias: translate; `replace` closes that session once the new one exists)
//   goto     {sid, step}  (a number or 'end')        -> snapshot   (run {sid} = goto 'end')
//   step     {sid}   back {sid}                      -> snapshot
//   force    {sid, step, token}                      -> snapshot: the token of step `step` replaced
//   select   {sid, path}  (target ids, or null)      -> snapshot following that hypothesis
//   attention{sid, kind, step, layer, head, hypothesis} -> {shape, data} straight from the engine
//   outcome  {url, text, options}                   -> {text, tokens, steps, done, source}: where a
//            throwaway session ends (the page's "unmodified model" line beside a broken one)
//   snapshot {sid}   close {sid}   stats {}
//
// Analyses (all numbers from the engine's analysis calls, see README "JavaScript"):
//   vectors    {url}                        -> {positional, pcaSource, pcaTarget, sourceVocab, targetVocab}
//   cosine     {sid}                        -> embeddingCosine(source ids, the followed path's ids)
//   factor     {sid, kind, layer, head, query, step} -> {logits, weights}: one query's Q·Kᵀ row
//              before the softmax (needs a session opened with capture.vectors) and after it
//   importance {url, pairs, bleu}           -> Model.headImportance (progress: {done, total}); with
//              bleu, also baseBleu and each head's deltaBleu (a greedy decode per sentence and head)
//   timeline   {url, text}                  -> a greedy run of that model: tokens and cross-attention
// A session opened with options.capture.vectors also carries ‖α·f(x)‖ in its snapshots
// (vencoder, vcross, vself, same layout as encoder/cross/self); every snapshot carries the
// encoder rollout and the encoder heads' pattern classes.
//
// A snapshot is what the views draw: the state, the selected hypothesis' path and, for each of
// its steps, the engine's top alternatives and attention tensors, the encoder attention and the
// beam tree. No numbers are computed here: everything comes from web/attnscope.js as it is.
import { init, loadModel } from '../attnscope.js';

const models = new Map(); // url -> {promise, listeners}
const sessions = new Map(); // sid -> {session, url, model, options, script, path, encoder}
let nextSession = 1;
let fetches = 0;

init().catch(() => {}); // compile the WebAssembly at once; an error surfaces at first use

function getModel(url, onProgress) {
  let entry = models.get(url);
  if (!entry) {
    entry = { listeners: new Set() };
    entry.promise = (async () => {
      fetches++;
      let response;
      try {
        response = await fetch(url);
      } catch (e) {
        throw new Error(`cannot fetch model '${url}': ${e.message}`);
      }
      if (!response.ok) throw new Error(`cannot fetch model '${url}': HTTP ${response.status}`);
      return loadModel(response, { onProgress: (p) => { for (const f of entry.listeners) f(p); } });
    })();
    entry.promise.catch(() => { if (models.get(url) === entry) models.delete(url); }); // a failed load can be retried
    models.set(url, entry);
  }
  if (onProgress) entry.listeners.add(onProgress);
  return entry.promise.finally(() => entry.listeners.delete(onProgress));
}

function describe(model) {
  const { name, description, config, tokenizer, srcVocabSize, tgtVocabSize } = model.info;
  return {
    name, description, config, srcVocabSize, tgtVocabSize,
    tokenizer: { type: tokenizer.type, lowercase: tokenizer.lowercase, splitPunctuation: tokenizer.split_punctuation ?? false },
    // Small word-level vocabularies are shown to the user as the words the model knows.
    sourceWords: tokenizer.type === 'word' && srcVocabSize <= 200 ? model.vocab('source').filter((t) => !/^<.*>$/.test(t)) : null,
  };
}

function live(sid) {
  const s = sessions.get(sid);
  if (!s) throw new Error(`session ${sid} is closed`);
  return s;
}

const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Moves the session to `target` steps taken (or to its end), replaying forced tokens. */
function goto(s, target) {
  const { session } = s;
  s.path = null;
  const end = target === 'end';
  if (!end) {
    if (!Number.isInteger(target) || target < 0) throw new Error(`step must be an integer >= 0 or 'end', got ${target}`);
    while (session.steps > target) session.back();
  }
  for (let n = session.steps; (end || n < target) && !session.done; n++) {
    const forced = s.script.get(n);
    if (forced) session.force(forced.token, forced.hypothesis);
    else session.step();
  }
}

/** The target ids the views follow: the selected one; else, once the search is done, the best
 * finished hypothesis; else the best live one. */
function currentPath(s, state) {
  if (s.path) return s.path;
  const order = state.done ? [state.nbest[0], state.finished[0], state.live[0]] : [state.live[0], state.nbest[0], state.finished[0]];
  return order.find(Boolean)?.ids ?? [];
}

function stateOf(session) {
  return { live: session.hypotheses(), finished: session.finished(), nbest: session.nbest(), done: session.done };
}

function snapshot(s) {
  const { session, model } = s;
  const vocab = model.vocab('target');
  const bos = vocab[model.config.special_tokens.bos];
  const state = stateOf(session);
  const path = currentPath(s, state);
  const rows = [];
  const cross = [];
  const self = [];
  const vectors = !!s.options?.capture?.vectors;
  const vcross = [];
  const vself = [];
  for (let k = 0; k < path.length; k++) {
    const record = session.history(k);
    const e = record.expansions.findIndex((x) => same(x.prefix, path.slice(0, k)));
    if (e < 0) break;
    const x = record.expansions[e];
    const id = path[k];
    const row = {
      step: k, hypothesis: x.hypothesis, prefixScore: x.score,
      input: k === 0 ? bos : vocab[path[k - 1]], output: vocab[id], outputId: id,
      forced: record.forced && record.forcedToken === id,
      top: x.top,
    };
    if (!x.top.some((a) => a.id === id)) {
      // The chosen token is not among the top alternatives (forced, or sampled from the tail):
      // its raw logit and log-probability straight from the engine's vectors.
      row.chosen = {
        id, token: vocab[id],
        logit: session.logits(k, { hypothesis: e })[id],
        logProb: session.logits(k, { hypothesis: e, logProbs: true })[id],
      };
    }
    row.expansion = e;
    rows.push(row);
    cross.push(session.crossAttention(k, { hypothesis: e }).data);
    self.push(session.selfAttention(k, { hypothesis: e }).data);
    if (vectors) {
      vcross.push(session.valueWeightedAttention('cross', k, { hypothesis: e }).data);
      vself.push(session.valueWeightedAttention('self', k, { hypothesis: e }).data);
    }
  }
  s.encoder ??= session.encoderAttention();
  s.rollout ??= session.rollout();
  s.patterns ??= session.encoderPatterns();
  if (vectors) s.vencoder ??= session.valueWeightedAttention('encoder', 0);
  const { config } = model;
  return {
    sid: s.sid, url: s.url, options: s.options,
    steps: session.steps, done: state.done, hitMaxLength: session.hitMaxLength, maxLength: session.maxLength,
    source: session.source, bos, eos: vocab[config.special_tokens.eos],
    live: state.live, finished: state.finished, nbest: state.nbest,
    path: { ids: path, tokens: path.map((id) => vocab[id]), text: session.detokenize(path), selected: !!s.path },
    rows,
    dims: { encoderLayers: config.n_encoder_layers, decoderLayers: config.n_decoder_layers, heads: config.n_heads, src: session.source.ids.length },
    encoder: s.encoder.data, cross, self,
    rollout: s.rollout.data, patterns: s.patterns,
    vectors, ...(vectors ? { vencoder: s.vencoder.data, vcross, vself } : {}),
    tree: session.beamTree(),
    forcedSteps: [...s.script.keys()],
  };
}

const handlers = {
  async init() {
    await init();
    return { ok: true };
  },

  async load({ url }, progress) {
    return describe(await getModel(url, progress));
  },

  async open({ url, text, options = {}, step = 0, replace }, progress) {
    const model = await getModel(url, progress);
    const session = model.translate(String(text), { alternatives: 10, ...options });
    if (replace !== undefined) handlers.close({ sid: replace });
    const s = { sid: nextSession++, session, url, model, options, script: new Map(), path: null, encoder: null };
    sessions.set(s.sid, s);
    goto(s, step);
    return { ...snapshot(s), info: describe(model) };
  },

  async outcome({ url, text, options = {} }, progress) {
    const model = await getModel(url, progress);
    const session = model.translate(String(text), { ...options, alternatives: 1, capture: { attention: false, logits: false } });
    try {
      session.run();
      const [best] = session.nbest();
      const ids = best?.ids ?? [];
      const vocab = model.vocab('target');
      return { text: session.translation, tokens: ids.map((id) => vocab[id]), steps: session.steps, done: session.done, source: session.source };
    } finally {
      session.dispose();
    }
  },

  goto({ sid, step }) {
    const s = live(sid);
    goto(s, step);
    return snapshot(s);
  },

  translate(args, progress) {
    return handlers.open(args, progress);
  },

  run({ sid }) {
    return handlers.goto({ sid, step: 'end' });
  },

  step({ sid }) {
    const s = live(sid);
    goto(s, s.session.steps + 1);
    return snapshot(s);
  },

  back({ sid }) {
    const s = live(sid);
    goto(s, Math.max(0, s.session.steps - 1));
    return snapshot(s);
  },

  force({ sid, step, token }) {
    const s = live(sid);
    const { session } = s;
    const prefix = currentPath(s, stateOf(session)).slice(0, step);
    goto(s, step);
    if (session.steps !== step) throw new Error(`cannot force step ${step}: the decoding ended after ${session.steps} steps`);
    const hypothesis = Math.max(0, session.hypotheses().findIndex((h) => same(h.ids, prefix)));
    const id = typeof token === 'string' ? s.model.tokenId(token) : token;
    session.force(id, hypothesis);
    for (const k of [...s.script.keys()]) if (k >= step) s.script.delete(k);
    s.script.set(step, { token: id, hypothesis });
    return snapshot(s);
  },

  select({ sid, path }) {
    const s = live(sid);
    s.path = path ? Array.from(path) : null;
    return snapshot(s);
  },

  snapshot({ sid }) {
    return snapshot(live(sid));
  },

  attention({ sid, kind, step, layer, head, hypothesis = 0 }) {
    const { session } = live(sid);
    if (kind === 'encoder') return session.encoderAttention({ layer, head });
    if (kind === 'cross') return session.crossAttention(step, { hypothesis, layer, head });
    if (kind === 'self') return session.selfAttention(step, { hypothesis, layer, head });
    throw new Error(`attention kind must be 'encoder', 'cross' or 'self', got '${kind}'`);
  },

  async vectors({ url }, progress) {
    const model = await getModel(url, progress);
    return {
      positional: model.positionalEncoding(),
      pcaSource: model.embeddingPca('source'), pcaTarget: model.embeddingPca('target'),
      sourceVocab: model.vocab('source'), targetVocab: model.vocab('target'),
    };
  },

  cosine({ sid }) {
    const s = live(sid);
    const path = currentPath(s, stateOf(s.session));
    return s.model.embeddingCosine(s.session.source.ids, path);
  },

  factor({ sid, kind, layer, head, query = 0, step = 0, hypothesis = 0 }) {
    const { session } = live(sid);
    const logits = session.attentionLogits(kind, { layer, head, query, step, hypothesis });
    let weights;
    if (kind === 'encoder') {
      const map = session.encoderAttention({ layer, head });
      const n = map.shape[1];
      weights = map.data.slice(query * n, (query + 1) * n);
    } else {
      weights = (kind === 'cross' ? session.crossAttention(step, { hypothesis, layer, head }) : session.selfAttention(step, { hypothesis, layer, head })).data;
    }
    return { logits, weights };
  },

  async importance({ url, pairs, bleu = false }, progress) {
    const model = await getModel(url);
    return model.headImportance(pairs, { bleu, onProgress: (done, total) => progress({ done, total }) });
  },

  async timeline({ url, text }, progress) {
    const model = await getModel(url, progress);
    const session = model.translate(String(text), { alternatives: 1, capture: { attention: true, logits: false } });
    try {
      session.run();
      const ids = session.nbest()[0]?.ids ?? session.hypotheses()[0]?.ids ?? [];
      const vocab = model.vocab('target');
      const cross = [];
      for (let k = 0; k < session.steps; k++) cross.push(session.crossAttention(k).data);
      const { config } = model;
      return {
        text: session.translation, tokens: ids.map((id) => vocab[id]), source: session.source, cross,
        dims: { decoderLayers: config.n_decoder_layers, heads: config.n_heads, src: session.source.ids.length },
      };
    } finally {
      session.dispose();
    }
  },

  close({ sid }) {
    const s = sessions.get(sid);
    if (s) {
      s.session.dispose();
      sessions.delete(sid);
    }
    return { closed: !!s };
  },

  stats() {
    return { models: [...models.keys()], fetches, sessions: sessions.size };
  },
};

self.onmessage = async ({ data }) => {
  const { id, type, ...args } = data;
  try {
    const handler = handlers[type];
    if (!handler) throw new Error(`unknown request '${type}'`);
    const result = await handler(args, (progress) => postMessage({ id, progress }));
    postMessage({ id, result });
  } catch (e) {
    postMessage({ id, error: { name: e?.name ?? 'Error', message: String(e?.message ?? e) } });
  }
};
