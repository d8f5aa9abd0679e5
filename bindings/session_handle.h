// The JS Session's handle (Embind class SessionHandle): one decoding session on a model handle's
// model; its steps, state, history, attention, logits, beam tree, and the analyses of a session
// (rollout, attention logits, value-weighted attention, logit lens, the prompt's maps,
// attribution). Each call returns its result or {error} (conversions.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "conversions.h"
#include "decoding/session.h"
#include "model_handle.h"

namespace attnscope::bindings {

class SessionHandle {
 public:
  val start(const ModelHandle& model, const std::string& text, const std::string& options);

  // What a step computed, and the session's state after it: the caller needs no second call.
  val step();
  val force(int token, int hypothesis);
  val run();
  val back();

  val state() const;

  // {done, hitMaxLength, steps, maxLength, live, finished, nbest}
  val status() const;

  val source() const;

  val history(int index) const;

  // One site's attention (a name from info().sites): a per-step site's tensor at step `index`
  // for the hypothesis extended as `expansion`; a once-per-source site's (index ignored).
  val attention(const std::string& site, int index, int expansion) const;

  val logits(int index, int expansion, bool log_probs) const;

  val tree() const;

  val rollout() const;

  val attention_logits(const std::string& kind, int layer, int head, int query, int index, int expansion) const;

  val value_weighted(const std::string& kind, int index, int expansion) const;

  val encoder_patterns() const;

  // {layers, steps: [{id, token, layers: [{top: [{id, piece, p}], chosen: {p, rank}}]}]} along
  // `ids` (the tokens of a path, one per step), or the leading hypothesis when `ids` is null.
  val logit_lens(int top_k, const val& ids) const;

  // A decoder-only session's prompt, as its first step read it: the causal self-attention over
  // the prompt's P tokens (<bos> first where the model reads one, source().pieces),
  // [layers, heads, P, P], through the analyses an encoder's
  // self-attention gets (analysis/attention_maps.h): the rollout, and each head's pattern class.
  val prompt_rollout() const;

  val prompt_patterns() const;

  // What drove the prediction of `step` for hypothesis `hypothesis` (`token` −1: the chosen one).
  val attribution(const ModelHandle& model, int step, int hypothesis, int token, const std::string& method, int steps,
                  const std::string& baseline, const std::string& contrast) const;

  // What attribution() and sentence_attribution() with these arguments would cost, counted before running.
  val attribution_cost(const ModelHandle& model, int step, int hypothesis, const std::string& method, int steps,
                       const std::string& baseline, const std::string& contrast) const;
  val sentence_attribution_cost(const ModelHandle& model, int last, int hypothesis, const std::string& method,
                                int steps, const std::string& baseline, const std::string& contrast) const;

  // Every step of the path to hypothesis `hypothesis` of step `last` (−1: the last) explained, and τ
  // per head averaged over them: {steps, meanAgreement?}.
  val sentence_attribution(const ModelHandle& model, int last, int hypothesis, const std::string& method, int steps,
                           const std::string& baseline, const std::string& contrast) const;

  val detokenize(const val& ids) const;

 private:
  const DecodeSession& session() const;
  // The first step's map of the site whose queries and keys are the context (a decoder-only model's "self").
  const Tensor& prompt_attention() const;
  DecodeSession& session();
  val hypothesis(const Vocabulary& vocab, const std::vector<int>& ids, double score, double normalized, bool finished,
                 int node) const;

  val finished(const std::vector<FinishedHypothesis>& list) const;

  val stepped(const StepRecord& r) const;

  val record(const StepRecord& r) const;

  std::unique_ptr<DecodeSession> session_;
};

}  // namespace attnscope::bindings
