// The analyses' requests (see the protocol in web/app/worker/worker.js): every number comes from the
// engine's analysis calls (web/attnscope.js). The page asks for them; the widget never does, so
// its bundled worker leaves this module out.
import { siteNamed } from '../model/sites.js';
import { WorkTimer } from './attribution-timing.js';
import { currentPath, greedyAttention } from './worker-session.js';

/**
 * An update of a decoder-only session (worker-session.js update) with its prompt's rollout and head
 * patterns: with the first step, sent again whenever that step is (null before it).
 */
export function withPromptAnalyses(s, answer) {
  if (answer.keep !== 0 || s.model.info.input !== 'prompt') return answer;
  if (!s.steps.length || !s.attention) return { ...answer, rollout: null, patterns: null };
  return { ...answer, rollout: s.session.promptRollout().data, patterns: s.session.promptPatterns() };
}

const attributionTimer = new WorkTimer(); // this worker's speed on attribution requests

/** The handlers, given the worker's model table (`getModel`) and session lookup (`live`). */
export function analysisHandlers(getModel, live) {
  return {
    async vectors({ url }, progress) {
      const model = await getModel(url, progress);
      return {
        positional: model.positionalEncoding(),
        pcaSource: model.embeddingPca('source'), pcaTarget: model.embeddingPca('target'),
        sourceVocab: model.vocab('source'), targetVocab: model.vocab('target'),
      };
    },

    // ids: the target tokens the page shows (the session may be a step ahead: the page asks for
    // the next step before Next is pressed, web/app/worker/requests.js).
    cosine({ sid, ids }) {
      const s = live(sid);
      return s.model.embeddingCosine(s.source.ids, ids ? Array.from(ids) : currentPath(s));
    },

    // The logit lens of the path the page shows (ids, one per step), k tokens per layer.
    logitLens({ sid, ids, k }) {
      return live(sid).session.logitLens(k, { ids: Array.from(ids) });
    },

    // What drove the token of `step` along the page's path (session.attribution), and τ per head
    // averaged over that path up to `step` (session.sentenceAttribution), with how many steps
    // that mean is over. Before computing, a progress message says how long it will take
    // ({work, estimateMs}: null before this worker timed a request); the answer, how long it took.
    attribution({ sid, step, hypothesis, token, options }, progress) {
      const { session } = live(sid);
      const work = session.attributionCost(step, { ...options, hypothesis, token }).work +
        session.sentenceAttributionCost({ ...options, last: step, hypothesis }).work;
      const estimateMs = attributionTimer.estimate(work);
      progress({ work, estimateMs });
      const start = performance.now();
      const path = session.sentenceAttribution({ ...options, last: step, hypothesis });
      const answer = {
        step: session.attribution(step, { ...options, hypothesis, token }),
        mean: path.meanAgreement && { ...path.meanAgreement, steps: path.steps.length },
      };
      const ms = performance.now() - start;
      attributionTimer.record(work, ms);
      return { ...answer, work, estimateMs, ms };
    },

    factor({ sid, site: name, layer, head, query = 0, step = 0, hypothesis = 0 }) {
      const s = live(sid);
      const site = siteNamed(s.model.info.sites, name);
      if (!site) throw new Error(`this model has no attention site '${name}' (it has: ${s.model.info.sites.map((x) => x.name).join(', ')})`);
      const logits = s.session.attentionLogits(site.name, { layer, head, query, step, hypothesis });
      let weights;
      if (site.perStep) {
        const t = s.steps[step]?.expansions[hypothesis]?.attention?.[site.name] ?? s.session.attention(site.name, step, { hypothesis });
        const size = t.shape[2];
        weights = t.data.slice((layer * t.shape[1] + head) * size, (layer * t.shape[1] + head + 1) * size);
      } else {
        const t = s.fixed[site.name] ?? s.session.attention(site.name, 0);
        const [, H, Q, K] = t.shape;
        const offset = ((layer * H + head) * Q + query) * K;
        weights = t.data.slice(offset, offset + K);
      }
      return { logits, weights };
    },

    async importance({ url, pairs, bleu = false, heads }, progress) {
      const model = await getModel(url);
      return model.headImportance(pairs, { bleu, heads, onProgress: (done, total) => progress({ done, total }) });
    },

    async timeline({ url, text }, progress) {
      const { text: out, tokens, source, site, attention } = greedyAttention(await getModel(url, progress), text);
      return { text: out, tokens, source, site, attention };
    },
  };
}
