// One session of the engine's worker (web/app/worker/worker.js) and the steps it returned: the worker
// keeps each step record as session.step() / force() gave it (with the attention it carries, and
// the logits of any token taken outside the top alternatives), moves the session forward and back
// replaying forced tokens, and says what changed since the page's first `keep` steps.
//
// A session entry: {sid, session, url, model, options, script (step -> forced {token,
// hypothesis}), path (the selected hypothesis, or null), steps, vocab, source, state, fixed,
// attention, logits, vectors (what the session captures)}.

import { hasQueryKeyValues, mainSite, patternSite, vectorsOffered } from '../model/sites.js';
import { pieceStyle } from '../util/pieces.js';

export const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * A step record as the page stores it: each expansion with the per-step attention the record
 * carries (capture.attention) and, when the session keeps vectors, ‖α·f(x)‖.
 */
function entryOf(s, record) {
  const { session, model } = s;
  const perStep = model.info.sites.filter((site) => site.perStep && vectorsOffered(site, model.info.input));
  return {
    step: record.step, forced: record.forced, forcedToken: record.forcedToken,
    expansions: record.expansions.map((x, e) => {
      const out = { hypothesis: x.hypothesis, node: x.node, prefix: x.prefix, score: x.score, top: x.top, chosen: {} };
      if (x.attention) out.attention = x.attention;
      if (s.vectors) {
        out.vnorm = {};
        for (const site of perStep) out.vnorm[site.name] = session.valueWeightedAttention(site.name, record.step, { hypothesis: e });
      }
      return out;
    }),
  };
}

/** Takes one step (forced where the script says so) and stores what it returned. */
export function forward(s) {
  const { session } = s;
  const forced = s.script.get(s.steps.length);
  const record = forced ? session.force(forced.token, forced.hypothesis) : session.step();
  const entry = entryOf(s, record);
  s.steps.push(entry);
  s.state = record.state;
  // The tokens this step took: the last of every hypothesis it made (live, or finished now).
  const made = [...s.state.live, ...s.state.finished].filter((h) => h.ids.length === entry.step + 1);
  entry.expansions.forEach((x, e) => noteChosen(s, entry.step, e, made.filter((h) => same(h.ids.slice(0, entry.step), x.prefix)).map((h) => h.ids[entry.step])));
}

function backward(s) {
  s.state = s.session.back().state();
  s.steps.pop();
}

/**
 * Moves the session to `target` steps taken (or to its end), replaying forced tokens; returns
 * how many of the stored steps are still valid.
 */
export function goto(s, target) {
  let keep = s.steps.length;
  s.path = null;
  const end = target === 'end';
  if (!end) {
    if (!Number.isInteger(target) || target < 0) throw new Error(`step must be an integer >= 0 or 'end', got ${target}`);
    while (s.steps.length > target) {
      backward(s);
      keep = Math.min(keep, s.steps.length);
    }
  }
  while ((end || s.steps.length < target) && !s.state.done) forward(s);
  return keep;
}

/**
 * Stores the logit and log-probability of each of `ids` (tokens taken from expansion `e` of step
 * `k`) that is outside the expansion's top alternatives (forced, sampled from the tail) and not
 * stored yet; returns whether it stored any.
 */
export function noteChosen(s, k, e, ids) {
  const x = s.steps[k].expansions[e];
  const outside = ids.filter((id) => !x.top.some((a) => a.id === id) && !x.chosen[id]);
  if (!s.logits || !outside.length) return false;
  const logits = s.session.logits(k, { hypothesis: e });
  const logProbs = s.session.logits(k, { hypothesis: e, logProbs: true });
  for (const id of outside) x.chosen[id] = { logit: logits[id], logProb: logProbs[id] };
  return true;
}

/** The target ids the views follow: the selected one; else, once the search is done, the best
 * finished hypothesis; else the best live one. */
export function currentPath(s) {
  if (s.path) return s.path.ids;
  const { state } = s;
  const order = state.done ? [state.nbest[0], state.finished[0], state.live[0]] : [state.live[0], state.nbest[0], state.finished[0]];
  return order.find(Boolean)?.ids ?? [];
}

/** The text of the followed path: a hypothesis' own text, or (a selected prefix) detokenized once. */
export function pathText(s, ids) {
  if (s.path) {
    s.path.text ??= s.session.detokenize(ids);
    return s.path.text;
  }
  const { live: l, finished, nbest } = s.state;
  return [...l, ...nbest, ...finished].find((h) => same(h.ids, ids))?.text ?? s.session.detokenize(ids);
}

/** What changed since the page's first `keep` steps; with `tree`, the beam tree too. */
export function update(s, keep, tree = false) {
  const ids = currentPath(s);
  return {
    sid: s.sid, keep, steps: s.steps.slice(keep), state: s.state,
    path: { ids, tokens: ids.map((id) => s.vocab[id]), text: pathText(s, ids), selected: !!s.path },
    forcedSteps: [...s.script.keys()],
    // The forced tokens as the URL keeps them: step (0-based), the token's piece, the hypothesis.
    forced: [...s.script].map(([step, f]) => ({ step, token: s.vocab[f.token], hypothesis: f.hypothesis })),
    ...(tree ? { tree: s.session.beamTree() } : {}),
  };
}

/** What never changes in a session: the source, the non-per-step sites' attention, the rollout. */
export function fixedParts(s) {
  const { session, model } = s;
  const fixed = {};
  const vfixed = {};
  for (const site of model.info.sites.filter((x) => !x.perStep)) {
    if (s.attention) fixed[site.name] = session.attention(site.name, 0);
    if (s.vectors && hasQueryKeyValues(site)) vfixed[site.name] = session.valueWeightedAttention(site.name, 0);
  }
  s.fixed = fixed;
  return {
    sid: s.sid, url: s.url, options: s.options, source: s.source, input: model.info.input, bos: s.vocab[model.config.special_tokens.bos],
    eos: s.vocab[model.config.special_tokens.eos], sites: model.info.sites, attention: fixed,
    subwords: pieceStyle(model.info.tokenizer) ?? false, // how its pieces mark words (web/app/util/pieces.js)
    vectors: s.vectors, ...(s.vectors ? { vnorm: vfixed } : {}),
    // The rollout and the head patterns read self-attention over the source: only a model with one.
    ...(patternSite(model.info.sites) ? { rollout: session.rollout().data, patterns: session.encoderPatterns() } : { rollout: null, patterns: null }),
  };
}

/**
 * A greedy run of `model` on `text` with the main site's attention of every step (web/app/model/sites.js
 * mainSite): {text, tokens, source, site, attention: [one Float32Array [layers, heads, source]
 * per step], shape: [layers, heads, source]}. For the training timeline and the Training panel.
 */
export function greedyAttention(model, text) {
  const site = mainSite(model.info.sites);
  const session = model.translate(String(text), { alternatives: 1, capture: { attention: true, logits: false } });
  try {
    let state = session.state();
    const attention = [];
    let shape = null;
    while (!state.done) {
      const record = session.step();
      const t = record.expansions[0].attention[site.name];
      attention.push(t.data);
      shape = t.shape;
      state = record.state;
    }
    const ids = state.nbest[0]?.ids ?? state.live[0]?.ids ?? [];
    const vocab = model.vocab('target');
    return { text: state.nbest[0]?.text ?? '', tokens: ids.map((id) => vocab[id]), source: session.source, site, attention, shape };
  } finally {
    session.dispose();
  }
}
