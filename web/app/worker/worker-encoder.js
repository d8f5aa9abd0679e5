// The requests of the page for encoder-only models (web/app/panels/encoder-page.js; see the protocol in
// web/app/worker/worker.js): every number comes from the engine (web/attnscope.js). The widget never
// makes them, so its bundled worker leaves this module out.

/** The handlers, given the worker's model table (`getModel`). */
export function encoderHandlers(getModel) {
  return {
    // The head study of `text` and, when it has a [MASK], the top 5 pieces for each.
    async encoderStudy({ url, text, interventions = {} }, progress) {
      const model = await getModel(url, progress);
      const study = model.headStudy(String(text), { interventions });
      const maskPiece = model.vocab('source')[model.config.special_tokens.mask];
      const fill = study.tokens.includes(maskPiece) ? model.fillMask(String(text), { topK: 5, interventions }).masks : [];
      return { ...study, masks: fill, maskPiece };
    },

    // What drove each [MASK]'s best piece: its attribution over the input (model.maskAttribution).
    async maskAttribution({ url, text, options = {} }, progress) {
      return (await getModel(url, progress)).maskAttribution(String(text), options);
    },

    async encoderAnalyses({ url, text, interventions = {} }, progress) {
      return (await getModel(url, progress)).textAnalysis(String(text), { interventions });
    },

    async encoderFactor({ url, text, interventions = {}, site, layer, head, query }, progress) {
      return (await getModel(url, progress)).textAttentionLogits(String(text), { site, layer, head, query, interventions });
    },

    async ablation({ url, sentences }, progress) {
      const model = await getModel(url);
      return model.headAblation(sentences, { onProgress: (done, total) => progress({ done, total }) });
    },
  };
}
