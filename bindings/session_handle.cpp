// The session handle's calls (session_handle.h): each converts its arguments, calls the engine
// and converts the result. No math lives here.
#include "session_handle.h"

#include "analysis/attention_maps.h"
#include "analysis/attribution_session.h"
#include "analysis/logit_lens.h"
#include "analysis/session_analysis.h"
#include "analysis/vectors.h"
#include "decoding/options_json.h"
#include "decoding/source.h"

namespace attnscope::bindings {

val SessionHandle::start(const ModelHandle& model, const std::string& text, const std::string& options) {
  return guarded([&] {
    const Model& m = model.model();  // throws if not loaded
    DecodeOptions decoding = decode_options_from_json(options, model.model_defaults());
    Source source = prepare_source(m, text, decoding.prepend_bos);
    session_ = std::make_unique<DecodeSession>(model.shared(), std::move(source), decoding);
    return status();
  });
}

val SessionHandle::step() { return guarded([&] { return stepped(session().step()); }); }

val SessionHandle::force(int token, int hypothesis) {
  return guarded([&] { return stepped(session().force(token, hypothesis)); });
}

val SessionHandle::run() {
  return guarded([&] {
    session().run();
    return status();
  });
}

val SessionHandle::back() {
  return guarded([&] {
    session().back();
    return status();
  });
}

val SessionHandle::state() const {
  return guarded([&] { return status(); });
}

val SessionHandle::status() const {
  {
    const DecodeSession& s = session();
    const Vocabulary& vocab = s.model().tgt_vocab;
    val live = val::array();
    int i = 0;
    for (const Hypothesis& h : s.live()) live.set(i++, hypothesis(vocab, h.tokens, h.score, h.score, false, h.node));
    val out = val::object();
    out.set("done", s.done());
    out.set("hitMaxLength", s.hit_max_length());
    out.set("steps", s.steps_taken());
    out.set("maxLength", s.max_length());
    out.set("live", live);
    out.set("finished", finished(s.finished()));
    out.set("nbest", finished(s.nbest()));
    return out;
  }
}

val SessionHandle::source() const {
  return guarded([&] {
    const Source& src = session().source();
    val out = val::object();
    out.set("pieces", to_array(src.pieces));
    out.set("ids", to_array(src.ids));
    out.set("unknown", to_array(src.unknown));
    return out;
  });
}

val SessionHandle::history(int index) const {
  return guarded([&] { return record(session().record(index)); });
}

val SessionHandle::attention(const std::string& site, int index, int expansion) const {
  return guarded([&] {
    const DecodeSession& s = session();
    return tensor(session_attention(s, find_site(s.model().sites(), site), index, expansion));
  });
}

val SessionHandle::logits(int index, int expansion, bool log_probs) const {
  return guarded([&] {
    const Expansion& e = session().expansion(index, expansion);
    const std::vector<float>& v = log_probs ? e.log_probs : e.logits;
    if (v.empty()) throw Error("logits were not captured: create the session with capture.logits = true");
    return float32_copy(v.data(), v.size());
  });
}

val SessionHandle::tree() const {
  return guarded([&] {
    const DecodeSession& s = session();
    val nodes = val::array();
    const auto& tree = s.tree();
    for (std::size_t i = 0; i < tree.size(); ++i) {
      const BeamNode& n = tree[i];
      val node = val::object();
      node.set("id", static_cast<int>(i));
      node.set("parent", n.parent);
      node.set("step", n.step);
      node.set("tokenId", n.token);
      node.set("token", s.model().tgt_vocab.token(n.token));
      node.set("logProb", n.log_prob);
      node.set("score", n.score);
      node.set("status", std::string(to_string(n.status)));
      nodes.set(i, node);
    }
    return nodes;
  });
}

val SessionHandle::rollout() const {
  return guarded([&] { return matrix(encoder_rollout(session())); });
}

val SessionHandle::attention_logits(const std::string& kind, int layer, int head, int query, int index,
                                    int expansion) const {
  return guarded([&] {
    const RowVector row = attnscope::attention_logits(session(), kind, layer, head, query, index, expansion);
    return float32_copy(row.data(), row.size());
  });
}

val SessionHandle::value_weighted(const std::string& kind, int index, int expansion) const {
  return guarded([&] { return tensor(value_weighted_attention(session(), kind, index, expansion)); });
}

val SessionHandle::encoder_patterns() const {
  return guarded([&] { return to_array(attnscope::encoder_patterns(session())); });
}

val SessionHandle::logit_lens(int top_k, const val& ids) const {
  return guarded([&] {
    const LogitLens lens = ids.isNull() || ids.isUndefined()
                               ? attnscope::logit_lens(session(), top_k)
                               : attnscope::logit_lens(session(), top_k, emscripten::vecFromJSArray<int>(ids));
    val steps = val::array();
    for (std::size_t s = 0; s < lens.steps.size(); ++s) {
      val layers = val::array();
      for (std::size_t l = 0; l < lens.steps[s].layers.size(); ++l) {
        const LensLayer& layer = lens.steps[s].layers[l];
        val top = val::array();
        for (std::size_t k = 0; k < layer.top.size(); ++k) {
          val t = val::object();
          t.set("id", layer.top[k].id);
          t.set("piece", layer.top[k].piece);
          t.set("p", layer.top[k].prob);
          top.set(k, t);
        }
        val chosen = val::object();
        chosen.set("p", layer.chosen_prob);
        chosen.set("rank", layer.chosen_rank);
        val x = val::object();
        x.set("top", top);
        x.set("chosen", chosen);
        layers.set(l, x);
      }
      val step = val::object();
      step.set("id", lens.steps[s].token);
      step.set("token", lens.steps[s].piece);
      step.set("layers", layers);
      steps.set(s, step);
    }
    val out = val::object();
    out.set("layers", lens.layers);
    out.set("steps", steps);
    return out;
  });
}

val SessionHandle::prompt_rollout() const {
  return guarded([&] { return matrix(attention_rollout(prompt_attention())); });
}

val SessionHandle::prompt_patterns() const {
  return guarded([&] {
    const Tensor& a = prompt_attention();
    const int heads = a.shape[1], T = a.shape[2];
    std::vector<std::string> out;
    for (int i = 0; i < a.shape[0] * heads; ++i)
      out.push_back(attention_pattern(Eigen::Map<const Matrix>(a.data.data() + static_cast<std::size_t>(i) * T * T, T, T)));
    return to_array(out);
  });
}

val SessionHandle::attribution(const ModelHandle& model, int step, int hypothesis, int token, const std::string& method,
                               int steps, const std::string& baseline, const std::string& contrast) const {
  return guarded([&] {
    const DecodeSession& s = session();
    const AttributionOptions options = attribution_options(method, steps, baseline, contrast, s.model().tgt_vocab);
    return token_attribution(session_attribution(s, model.pass(), step, hypothesis, options, token),
                             s.model().src_vocab, s.model().tgt_vocab);
  });
}

val SessionHandle::attribution_cost(const ModelHandle& model, int step, int hypothesis, const std::string& method,
                                    int steps, const std::string& baseline, const std::string& contrast) const {
  return guarded([&] {
    const DecodeSession& s = session();
    const AttributionOptions options = attribution_options(method, steps, baseline, contrast, s.model().tgt_vocab);
    return cost_val(session_attribution_cost(s, model.pass(), step, hypothesis, options));
  });
}

val SessionHandle::sentence_attribution_cost(const ModelHandle& model, int last, int hypothesis,
                                             const std::string& method, int steps, const std::string& baseline,
                                             const std::string& contrast) const {
  return guarded([&] {
    const DecodeSession& s = session();
    const AttributionOptions options = attribution_options(method, steps, baseline, contrast, s.model().tgt_vocab);
    return cost_val(attnscope::sentence_attribution_cost(s, model.pass(), options, last, hypothesis));
  });
}

val SessionHandle::sentence_attribution(const ModelHandle& model, int last, int hypothesis, const std::string& method,
                                        int steps, const std::string& baseline, const std::string& contrast) const {
  return guarded([&] {
    const DecodeSession& s = session();
    const AttributionOptions options = attribution_options(method, steps, baseline, contrast, s.model().tgt_vocab);
    const SentenceAttribution all = attnscope::sentence_attribution(s, model.pass(), options, last, hypothesis);
    val list = val::array();
    for (std::size_t i = 0; i < all.steps.size(); ++i)
      list.set(i, token_attribution(all.steps[i], s.model().src_vocab, s.model().tgt_vocab));
    val out = val::object();
    out.set("steps", list);
    if (!all.mean.tau.empty()) out.set("meanAgreement", agreement(all.mean));
    return out;
  });
}

val SessionHandle::detokenize(const val& ids) const {
  return guarded([&] { return val(session().detokenize(emscripten::vecFromJSArray<int>(ids))); });
}

const DecodeSession& SessionHandle::session() const {
  if (!session_) throw Error("the session was not started");
  return *session_;
}

const Tensor& SessionHandle::prompt_attention() const {
  const DecodeSession& s = session();
  if (s.model().family->input() != ModelFamily::Input::Prompt)
    throw InputError("only a decoder-only model's session has a prompt to analyse");
  if (s.steps_taken() == 0) throw InputError("the prompt is read by the first step: take a step first");
  const SiteTable& sites = s.model().sites();
  for (std::size_t i = 0; i < sites.size(); ++i)
    if (sites[i].per_step && sites[i].queries == Side::Target && sites[i].keys == Side::Target)
      return session_attention(s, static_cast<int>(i), 0, 0);
  throw InputError("this model has no self-attention over its context");
}

DecodeSession& SessionHandle::session() {
  if (!session_) throw Error("the session was not started");
  return *session_;
}

val SessionHandle::hypothesis(const Vocabulary& vocab, const std::vector<int>& ids, double score, double normalized,
                              bool finished, int node) const {
  val h = val::object();
  h.set("ids", to_array(ids));
  h.set("tokens", tokens_of(vocab, ids));
  h.set("text", session().detokenize(ids));
  h.set("score", score);
  h.set("normalizedScore", normalized);
  h.set("finished", finished);
  h.set("node", node);
  return h;
}

val SessionHandle::finished(const std::vector<FinishedHypothesis>& list) const {
  val out = val::array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const FinishedHypothesis& f = list[i];
    out.set(i, hypothesis(session().model().tgt_vocab, f.tokens, f.score, f.normalized_score, f.finished, f.node));
  }
  return out;
}

val SessionHandle::stepped(const StepRecord& r) const {
  val out = record(r);
  out.set("state", status());
  return out;
}

val SessionHandle::record(const StepRecord& r) const {
  const Vocabulary& vocab = session().model().tgt_vocab;
  const SiteTable& sites = session().model().sites();
  val expansions = val::array();
  for (std::size_t i = 0; i < r.expansions.size(); ++i) {
    const Expansion& e = r.expansions[i];
    val top = val::array();
    for (std::size_t k = 0; k < e.top.size(); ++k) {
      val a = val::object();
      a.set("id", e.top[k].token);
      a.set("token", vocab.token(e.top[k].token));
      a.set("logit", e.top[k].logit);
      a.set("logProb", e.top[k].log_prob);
      a.set("prob", e.top[k].prob);
      top.set(k, a);
    }
    val x = val::object();
    x.set("hypothesis", e.hypothesis);
    x.set("node", e.node);
    x.set("prefix", to_array(e.prefix));
    x.set("prefixTokens", tokens_of(vocab, e.prefix));
    x.set("score", e.score);
    x.set("top", top);
    if (!e.trace.attention.empty()) {  // captured: {site name: {shape, data}} for the per-step sites
      val attention = val::object();
      for (std::size_t k = 0; k < sites.size(); ++k) {
        const Tensor& t = site_attention(e.trace.attention, static_cast<int>(k));
        if (sites[k].per_step && !t.empty()) attention.set(sites[k].name, tensor(t));
      }
      x.set("attention", attention);
    }
    expansions.set(i, x);
  }
  val out = val::object();
  out.set("step", r.step);
  out.set("expansions", expansions);
  out.set("forced", r.forced);
  if (r.forced) {
    out.set("forcedToken", r.forced_token);
    out.set("forcedLogProb", r.forced_log_prob);
  }
  return out;
}

}  // namespace attnscope::bindings
