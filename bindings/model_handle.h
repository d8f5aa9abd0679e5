// The JS Model's handle (Embind class ModelHandle): loads a model file's bytes, describes the
// model, and runs what needs only the model: tokenizing, scoring, head sweeps, BLEU by length,
// embeddings, induction scores, and every encoder-only call (encode, fill-mask, head study,
// analyses, ablation, attribution). Each call returns its result or {error} (conversions.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "conversions.h"
#include "staged_file.h"
#include "decoding/options.h"
#include "model/model.h"
#include "train/differentiable.h"

namespace attnscope::bindings {

class ModelHandle {
 public:
  // array: a Uint8Array; int8 and binary16 are Model::LoadOptions' (model/model.h).
  val load(const val& array, bool int8, bool binary16);
  // The same from a download staged in the engine (staged_file.h), which the load empties.
  val load_staged(StagedFile& file, bool int8, bool binary16);

  val info() const;

  val vocab(bool target) const;

  val tokenize(const std::string& text, bool target) const;

  // Encoder-only models: `text` (a sentence, or a pair "A [SEP] B") encoded, with its attention
  // per site, its final hidden states and, if asked, the named vectors (q, k, v, the transformed
  // value vectors, every layer's output, ...).
  val encode_text(const std::string& text, bool vectors, const std::string& interventions) const;

  // Encoder-only models: the top_k pieces for every [MASK] of `text`, with the encoding.
  val fill_mask(const std::string& text, int top_k, const std::string& interventions) const;

  // Encoder-only models: the head study of `text` (analysis/encoder_study.h).
  val head_study(const std::string& text, const std::string& interventions) const;

  // Encoder-only models: the analyses of `text`'s encoding (analysis/encoding_analysis.h): the
  // rollout and pattern classes of its self-attention over the input, and ‖α·f(x)‖ of every
  // once-per-source site with per-head projections.
  val text_analysis(const std::string& text, const std::string& interventions) const;

  // Encoder-only models: one head's scores before the softmax for one position of `text`
  // (analysis/encoding_analysis.h attention_logits), and the attention row after it.
  val text_attention_logits(const std::string& text, const std::string& interventions, const std::string& site, int layer,
                            int head, int query) const;

  // Encoder-only models: masked-token accuracy on `sentences` with each head switched off.
  val head_ablation(const val& sentences, const val& progress) const;

  // Teacher-forced log-probability of `target` (text) as the translation of `source` (text), or
  // as the continuation of a prompt; prepend_bos (null: the model's rule) as decoding/source.h reads it.
  val score(const std::string& source, const std::string& target, const std::string& interventions,
            const val& prepend_bos) const;

  // Head-importance sweep over parallel arrays of sentences, of the heads [first, first + count)
  // (count < 0: all from first); progress(done, total) is called after each head; prepend_bos as
  // in score().
  val head_sweep(const val& sources, const val& references, bool bleu, int first, int count, const val& progress,
                 const val& prepend_bos) const;

  // Translates every source with the decoding options (JSON) and scores the translations per bin
  // of source length; progress(done, total) after each sentence.
  val bleu_by_length(const val& sources, const val& references, const std::string& options, const val& edges,
                     const val& progress) const;

  val embedding_pca(bool target) const;

  val positional_encoding() const;

  // cos between the source embeddings of `src_ids` and the target embeddings of `tgt_ids`.
  val embedding_cosine(const val& src_ids, const val& tgt_ids) const;

  // Induction heads (analysis/induction.h) on `probes` (texts whose second half repeats the first),
  // the copying score over `symbols` (words of the vocabulary): {layers, heads, prefixMatching
  // [layer][head], previousToken [layer][head], copying [layer][head], lossFirstHalf, lossRepeatedHalf, tokens (the first
  // probe's context, <bos> first), attention {shape [layers, heads, T, T], data}}.
  val induction_scores(const val& probes, const val& symbols) const;

  // Encoder-only models: every [MASK] of `text` explained for its best piece (analysis/attribution_session.h).
  val mask_attribution(const std::string& text, const std::string& method, int steps, const std::string& baseline,
                       const std::string& contrast) const;

  // The model's gradient pass (train/differentiable.h), built on first use on the model's own
  // weights.
  train::Differentiable& pass() const;

  // A model the engine already loaded (the trainer's weights after an epoch).
  void adopt(std::shared_ptr<const Model> model);

  const std::shared_ptr<const Model>& shared() const;
  const Model& model() const;
  // What an option the caller leaves out means for this model: its checkpoint's generation defaults.
  DecodeOptions model_defaults() const;

 private:
  std::shared_ptr<const Model> model_;
  mutable std::unique_ptr<train::Differentiable> pass_;
};

}  // namespace attnscope::bindings
