// The engine's thread. This module worker owns every Model and Session of the page (the demo
// page and every <attn-scope> widget on it share it): the main thread never touches WASM.
//
// Protocol: the page posts {id, type, ...args}; the worker answers {id, result} or
// {id, error: {name, message}}, and {id, progress: {loaded, total}} while a model downloads.
// Every answer is plain data (numbers, strings, arrays, Float32Arrays).
//
//   load     {url}                                  -> model info, its site table included (progress in bytes)
//   open     {url, text, options, step, replace, forced, select} -> a new session at `step`: its
//            fixed parts and every step taken so far (`replace` closes that session once the new
//            one exists; `forced`: [{step, token (a piece), hypothesis}] replayed as forced tokens;
//            `select`: {nbest: i} or {ids} the hypothesis to follow, as a shared URL names them)
//   goto     {sid, step}  (a number or 'end')        -> update
//   step     {sid}   back {sid}                      -> update
//   force    {sid, step, token}                      -> update: the token of step `step` replaced
//   select   {sid, path}  (target ids, or null)      -> update following that hypothesis
//   tree     {sid}                                   -> update with the beam tree
//   (open and every session request take `tree: true` to get the beam tree with the answer:
//   only the beam view needs it, and it grows with every step)
//   outcome  {url, text, options}                   -> {text, tokens, steps, done, source}: where a
//            throwaway session ends (the page's "unmodified model" line beside a broken one)
//   vocab    {url, side}                             -> the model's vocabulary of that side (type-ahead forcing)
//   cancelLoad {url}  (page only)                   -> stops that model's download or file read (its requests fail: cancelled)
//   file     {url, file}  (page only)                -> model info: a model file the reader opened (a File),
//            streamed into the engine (progress in bytes), kept under `url` (file:NAME, web/models.js) like a fetched one
//   init {wasmUrl}  (the page's first message: starts compiling the engine from that URL)
//   close {sid}   stats {}   (stats: models, fetches, sessions and the Embind calls made so far)
//
// An update is what changed, never the whole history again: {sid, keep, steps, state, path,
// forcedSteps, tree?}: the page keeps its first `keep` steps and appends `steps`. A step is what
// session.step() / force() returned, with the attention of every expansion on each per-step
// site (and ‖α·f(x)‖ when the session keeps vectors), the raw logit and log-probability of any
// token taken outside the top alternatives; web/app/state/step-store.js puts the steps back together.
// The worker keeps the same steps (web/app/worker/worker-session.js), so a press of Next costs the same Embind calls at
// step 1 and at step 30: one step(), whose record carries the new step's attention and the
// session's state.
//
// Analyses (web/app/worker/worker-analyses.js; all numbers from the engine's analysis calls, see docs/js-api.md):
//   vectors    {url}                        -> {positional, pcaSource, pcaTarget, sourceVocab, targetVocab}
//   cosine     {sid}                        -> embeddingCosine(source ids, the followed path's ids)
//   factor     {sid, site, layer, head, query, step} -> {logits, weights}: one query's Q·Kᵀ row
//              before the softmax (needs a session opened with capture.vectors) and after it
//   importance {url, pairs, bleu, heads}    -> Model.headImportance (progress: {done, total}); with
//              bleu, also baseBleu and each head's deltaBleu (a greedy decode per sentence and head);
//              heads {first, count}: only that range (web/app/worker/sweep-pool.js splits a sweep so)
//   timeline   {url, text}                  -> a greedy run of that model: tokens and the main
//              site's attention (web/app/model/sites.js mainSite)
//   logitLens  {sid, ids, k}                -> Session.logitLens(k, {ids}): per step of that path and
//              per decoder layer, the top-k and the chosen token's probability and rank
//   attribution {sid, step, hypothesis, token, options} -> {step: Session.attribution(step, ...),
//              mean: the meanAgreement of Session.sentenceAttribution({last: step, hypothesis}),
//              work, estimateMs, ms} (progress, before computing: {work, estimateMs}, the time
//              expected from this worker's measured speed, null before its first request)
//
// Encoder-only models ('open' answers {encoderOnly: true, info} for a model without a decoder);
// `interventions` (as in the decoding options) break the model for the study and its analyses:
//   encoderStudy    {url, text, interventions} -> Model.headStudy(text) plus masks (fillMask's, top 5; [] without a [MASK])
//   encoderAnalyses {url, text, interventions} -> Model.textAnalysis: rollout, pattern classes, ‖α·f(x)‖
//   encoderFactor   {url, text, interventions, site, layer, head, query} -> Model.textAttentionLogits: {logits, weights}
//   ablation        {url, sentences} -> Model.headAblation (progress: {done, total})
//
// Training (web/app/worker/worker-training.js): trainingPresets, train, trainPause, trainReset, trainExport. A model it
// trained is in the model table under its recipe's name (web/app/state/trained.js), a "url" that every
// request above takes like a file's.
// No numbers are computed here: everything comes from web/attnscope.js as it is.
import { init, loadModel } from '../../attnscope.js';
import { TRAINED_PREFIX, trainedLabel } from '../state/trained.js';
import { currentPath, fixedParts, forward, goto, noteChosen, same, update } from './worker-session.js';
import { analysisHandlers, withPromptAnalyses } from './worker-analyses.js';
import { encoderHandlers } from './worker-encoder.js';
import { trainingHandlers } from './worker-training.js';

// The page's requests that the package's <attn-scope> widget never makes (analyses, training,
// step/back/tree, forcing, following a path, the unmodified translation, vocabularies, files,
// cancelling):
// the widget's bundled worker (web/build-widget.mjs) defines __ATTNSCOPE_PAGE_WORKER__ as false,
// the bundler drops these handlers and the engine calls only they use, and the widget's
// JavaScript stays under the 30 KB gzip of its first load. The page runs this source as it is.
const PAGE = typeof __ATTNSCOPE_PAGE_WORKER__ === 'undefined' ? true : __ATTNSCOPE_PAGE_WORKER__;

// What changed in a session (worker-session.js update); the page's also carry a prompt's analyses.
const updated = PAGE ? (s, keep, tree) => withPromptAnalyses(s, update(s, keep, tree)) : update;

const models = new Map(); // url -> {promise, listeners, download (an AbortController)}
// A model file the reader opened in the page has no URL: it is kept as `file:NAME` (web/models.js
// localFileId); this worker has it only once the page sent the File (`file`).
const LOCAL_FILE_PREFIX = 'file:';
const sessions = new Map(); // sid -> session entry (see open)
let nextSession = 1;
let fetches = 0;

// Every call into the engine's Embind handles, counted by method (for the test that a press of
// Next costs as much at step 30 as at step 1, and for the curious: `stats`).
const embindCalls = {};
const EMBIND_OWN = new Set(['constructor', 'isAliasOf', 'clone', 'delete', 'isDeleted', 'deleteLater']);
function countCalls(cls, prefix) {
  const proto = cls?.prototype;
  if (!proto) return;
  for (const name of Object.getOwnPropertyNames(proto)) {
    const f = proto[name];
    if (EMBIND_OWN.has(name) || typeof f !== 'function') continue;
    const key = `${prefix}.${name}`;
    embindCalls[key] = 0;
    proto[name] = function counted(...args) {
      embindCalls[key]++;
      return f.apply(this, args);
    };
  }
}
// The engine starts with the page's first message, `init {wasmUrl}` (where the page found the
// .wasm: inside an app built by a bundler it is not beside this worker); a worker used without
// it starts on its first request, with the .wasm beside web/attnscope.js.
let ready = null;
function engine(wasmUrl) {
  ready ??= init(wasmUrl ? { wasmUrl } : {}).then((runtime) => {
    countCalls(runtime.SessionHandle, 'SessionHandle');
    countCalls(runtime.ModelHandle, 'ModelHandle');
    return runtime;
  });
  return ready;
}

// Models trained in the page (web/app/worker/worker-training.js), newest last; the oldest beyond
// KEEP_TRAINED are freed (their sessions were replaced long before).
const trained = [];
const KEEP_TRAINED = 8;

/** Registers a trained model under its recipe's name (`load`: loads it, unless that name has one). */
async function registerTrained(id, load) {
  if (models.has(id)) return; // the same recipe trains the same weights: keep the one sessions use
  const model = await load();
  models.set(id, { promise: Promise.resolve(model), listeners: new Set() });
  trained.push(id);
  while (trained.length > KEEP_TRAINED) {
    const old = trained.shift();
    const entry = models.get(old);
    models.delete(old);
    for (const [sid, s] of sessions) if (s.url === old) handlers.close({ sid });
    entry?.promise.then((m) => m.dispose());
  }
}

function getModel(url, onProgress) {
  let entry = models.get(url);
  if (!entry && String(url).startsWith(TRAINED_PREFIX)) {
    return Promise.reject(new Error(`the model “${trainedLabel(url)}” is not trained in this page yet: train it in the Training panel`));
  }
  if (PAGE && !entry && String(url).startsWith(LOCAL_FILE_PREFIX)) {
    return Promise.reject(new Error(`the model file “${url.slice(LOCAL_FILE_PREFIX.length)}” is not open in this page: open it again`));
  }
  if (!entry) {
    entry = { listeners: new Set() };
    // The page's Cancel aborts a download (cancelLoad: the body's stream fails with its reason);
    // a widget's model downloads to the end.
    const init = PAGE ? { signal: (entry.download = new AbortController()).signal } : undefined;
    entry.promise = (async () => {
      fetches++;
      // The model downloads while the engine compiles (a cold page waited for one, then the other).
      const [, response] = await Promise.all([engine(), fetch(url, init).catch((e) => {
        throw new Error(`cannot fetch model '${url}': ${e.message}`); // (a cancelled download's message is why)
      })]);
      if (!response.ok) throw new Error(`cannot fetch model '${url}': HTTP ${response.status}`);
      return loadModel(response, { onProgress: (p) => { for (const f of entry.listeners) f(p); } });
    })();
    entry.promise.catch(() => { if (models.get(url) === entry) models.delete(url); }); // a failed load can be retried
    models.set(url, entry);
  }
  if (onProgress) entry.listeners.add(onProgress);
  return entry.promise.finally(() => entry.listeners.delete(onProgress));
}

const fileReads = new Map(); // url -> the AbortController of a file being read (cancelLoad)

/** Loads a model file the reader opened (a File) under `url`, in place of one opened under that name before. */
async function openFile(url, file, progress) {
  await engine();
  fileReads.get(url)?.abort(new Error(`opening “${file.name}” was cancelled`));
  const reading = new AbortController();
  fileReads.set(url, reading);
  let model;
  try {
    model = await loadModel(file, { onProgress: progress, signal: reading.signal });
  } finally {
    if (fileReads.get(url) === reading) fileReads.delete(url);
  }
  const old = models.get(url);
  for (const [sid, s] of sessions) if (s.url === url) handlers.close({ sid });
  models.set(url, { promise: Promise.resolve(model), listeners: new Set() });
  old?.promise.then((m) => m.dispose(), () => {});
  return model;
}

function describe(model) {
  const { name, description, config, tokenizer, srcVocabSize, tgtVocabSize } = model.info;
  return {
    name, description, config, srcVocabSize, tgtVocabSize, sites: model.info.sites, architecture: model.info.architecture,
    // The page's model card (web/app/panels/model-card.js).
    ...(PAGE && { license: model.info.license, source: model.info.source, file: model.info.file, generation: model.info.generation }),
    // The page's logit lens card (web/app/panels/logit-lens.js).
    ...(PAGE && { logitLensLayers: model.info.logitLensLayers }),
    // The page's Architecture card and compare panes (web/app/panels/architecture-panel.js), as the family describes itself.
    ...(PAGE && { architectureDescription: model.info.architectureDescription }),
    hasDecoder: model.info.hasDecoder, hasEncoder: model.info.hasEncoder, input: model.info.input,
    refusedInterventions: model.info.refusedInterventions,
    tokenizer: { type: tokenizer.type, lowercase: tokenizer.lowercase, splitPunctuation: tokenizer.split_punctuation ?? false },
    // Small word-level vocabularies are shown to the user as the words the model knows.
    sourceWords: tokenizer.type === 'word' && srcVocabSize <= 200 ? model.vocab('source').filter((t) => !/^<.*>$/.test(t)) : null,
  };
}

/**
 * Follows the hypothesis `ids` (null: the default path); returns how many stored steps are still
 * valid. A path through a candidate the search dropped may take a token no hypothesis kept: its
 * logits are read now, and the steps that gained one are sent again.
 */
function selectPath(s, path) {
  s.path = path ? { ids: Array.from(path) } : null;
  const ids = currentPath(s);
  let keep = s.steps.length;
  for (let k = 0; k < ids.length && k < s.steps.length; k++) {
    const e = s.steps[k].expansions.findIndex((x) => same(x.prefix, ids.slice(0, k)));
    if (e < 0) break;
    if (noteChosen(s, k, e, [ids[k]])) keep = Math.min(keep, k);
  }
  return keep;
}

function live(sid) {
  const s = sessions.get(sid);
  if (!s) throw new Error(`session ${sid} is closed`);
  return s;
}

const handlers = {
  async init({ wasmUrl } = {}) {
    await engine(wasmUrl);
    return { ok: true };
  },

  async load({ url }, progress) {
    return describe(await getModel(url, progress));
  },

  async open({ url, text, options = {}, step = 0, replace, tree, forced = [], select }, progress) {
    const model = await getModel(url, progress);
    // A model with no decoder (an encoder-only family) opens no session: the page shows its own
    // panel for it (web/app/panels/encoder-page.js).
    if (!model.info.hasDecoder) return { encoderOnly: true, info: describe(model) };
    const session = model.translate(String(text), { alternatives: 10, ...options });
    if (replace !== undefined) handlers.close({ sid: replace });
    const s = {
      sid: nextSession++, session, url, model, options, script: new Map(), path: null, steps: [],
      vocab: model.vocab('target'), source: session.source, state: session.state(),
      attention: options.capture?.attention !== false, logits: options.capture?.logits !== false, vectors: !!options.capture?.vectors,
    };
    sessions.set(s.sid, s);
    for (const f of forced) {
      const id = s.model.tokenId(f.token);
      if (Number.isInteger(f.step) && f.step >= 0 && id >= 0) s.script.set(f.step, { token: id, hypothesis: f.hypothesis ?? 0 });
    }
    goto(s, step);
    if (select) {
      const ids = select.ids ?? (s.state.done ? s.state.nbest[select.nbest]?.ids : undefined);
      if (ids) selectPath(s, ids);
    }
    return { fresh: true, ...fixedParts(s), ...updated(s, 0, tree), info: describe(model) };
  },

  goto({ sid, step, tree }) {
    const s = live(sid);
    return updated(s, goto(s, step), tree);
  },

  // The page's own requests (a widget moves by goto only): a step on or back, the beam tree, the
  // unmodified translation, forcing a token, following a beam path, the vocabulary (type-ahead
  // forcing), opening a file, cancelling a download.
  ...(PAGE ? {
    step({ sid, tree }) {
      const s = live(sid);
      return updated(s, goto(s, s.steps.length + 1), tree);
    },

    back({ sid, tree }) {
      const s = live(sid);
      return updated(s, goto(s, Math.max(0, s.steps.length - 1)), tree);
    },

    tree({ sid }) {
      const s = live(sid);
      return updated(s, s.steps.length, true);
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

    force({ sid, step, token, tree }) {
      const s = live(sid);
      const { session } = s;
      const prefix = currentPath(s).slice(0, step);
      let keep = goto(s, step);
      if (s.steps.length !== step) throw new Error(`cannot force step ${step}: the decoding ended after ${s.steps.length} steps`);
      const hypothesis = Math.max(0, s.state.live.findIndex((h) => same(h.ids, prefix)));
      const id = typeof token === 'string' ? s.model.tokenId(token) : token;
      for (const k of [...s.script.keys()]) if (k >= step) s.script.delete(k);
      s.script.set(step, { token: id, hypothesis });
      forward(s);
      keep = Math.min(keep, step);
      return updated(s, keep, tree);
    },

    select({ sid, path, tree }) {
      const s = live(sid);
      return updated(s, selectPath(s, path), tree);
    },

    async vocab({ url, side = 'target' }, progress) {
      return (await getModel(url, progress)).vocab(side);
    },

    file: async ({ url, file }, progress) => describe(await openFile(url, file, progress)),
    cancelLoad({ url }) {
      models.get(url)?.download?.abort(new Error('the download was cancelled'));
      fileReads.get(url)?.abort(new Error(`opening “${url.slice(LOCAL_FILE_PREFIX.length)}” was cancelled`));
      return { ok: true };
    },
    ...analysisHandlers(getModel, live), ...encoderHandlers(getModel), ...trainingHandlers(registerTrained),
  } : {}),

  close({ sid }) {
    const s = sessions.get(sid);
    if (s) {
      s.session.dispose();
      sessions.delete(sid);
    }
    return { closed: !!s };
  },

  stats() {
    return { models: [...models.keys()], fetches, sessions: sessions.size, embindCalls: { ...embindCalls } };
  },
};

self.onmessage = async ({ data }) => {
  const { id, type, ...args } = data;
  try {
    const handler = handlers[type];
    if (!handler) throw new Error(`unknown request '${type}'`);
    const start = performance.now();
    const result = await handler(args, (progress) => postMessage({ id, progress }));
    // The page's worker keeps each request's time in its own timeline (the page-latency benchmark
    // reads it: engine time vs. the round trip the page sees); the widget's bundle drops this.
    if (PAGE) {
      performance.clearMeasures(`attnscope:worker:${type}`); // the latest of each type is kept
      performance.measure(`attnscope:worker:${type}`, { start });
    }
    postMessage({ id, result });
  } catch (e) {
    postMessage({ id, error: { name: e?.name ?? 'Error', message: String(e?.message ?? e) } });
  }
};
