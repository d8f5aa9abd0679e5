// The bindings' conversions of engine values to JavaScript values (conversions.h).
#include "conversions.h"

namespace attnscope::bindings {

val float32_copy(const float* data, std::size_t n) {
  return val::global("Float32Array").new_(emscripten::typed_memory_view(n, data));
}

val matrix(const Matrix& m) {
  val out = val::object();
  out.set("shape", to_array(std::vector<int>{static_cast<int>(m.rows()), static_cast<int>(m.cols())}));
  out.set("data", float32_copy(m.data(), m.size()));
  return out;
}

val tensor(const Tensor& t) {
  val out = val::object();
  out.set("shape", to_array(t.shape));
  out.set("data", float32_copy(t.data.data(), t.data.size()));
  return out;
}

val tokens_of(const Vocabulary& vocab, const std::vector<int>& ids) {
  val out = val::array();
  for (std::size_t i = 0; i < ids.size(); ++i) out.set(i, vocab.token(ids[i]));
  return out;
}

val agreement(const AttentionAgreement& a) {
  val out = val::object();
  out.set("site", a.site);
  out.set("layers", a.layers);
  out.set("heads", a.heads);
  out.set("tau", val::global("Float64Array").new_(emscripten::typed_memory_view(a.tau.size(), a.tau.data())));
  return out;
}

val token_attribution(const TokenAttribution& a, const Vocabulary& source, const Vocabulary& target) {
  val out = val::object();
  out.set("step", a.step);
  out.set("token", target.token(a.token));
  out.set("tokenId", a.token);
  if (a.contrast >= 0) out.set("contrast", target.token(a.contrast));
  out.set("sourceTokens", tokens_of(source, a.tokens.source));
  out.set("sourceScores", float32_copy(a.scores.source.data(), a.scores.source.size()));
  out.set("targetTokens", tokens_of(target, a.tokens.target));
  out.set("targetScores", float32_copy(a.scores.target.data(), a.scores.target.size()));
  out.set("f", a.scores.f);
  out.set("sum", a.scores.sum);
  if (a.method == AttributionMethod::IntegratedGradients) {
    out.set("fBaseline", a.scores.f_baseline);
    out.set("completenessError", a.scores.completeness_error);
    out.set("completenessShare", a.scores.completeness_share);
    out.set("suggestedSteps", a.scores.suggested_steps);
  }
  if (!a.agreement.tau.empty()) out.set("agreement", agreement(a.agreement));
  return out;
}

val cost_val(const AttributionCost& c) {
  val out = val::object();
  out.set("work", c.work);
  out.set("passes", static_cast<double>(c.passes));
  out.set("maxSteps", c.max_steps);
  return out;
}

std::vector<int> length_edges(const val& edges) {
  return edges.isNull() || edges.isUndefined() ? default_length_edges() : emscripten::vecFromJSArray<int>(edges);
}

std::optional<bool> optional_flag(const val& flag) {
  if (flag.isNull() || flag.isUndefined()) return std::nullopt;
  return flag.as<bool>();
}

namespace {

void set_bleu(val& out, const Bleu& b) {
  out.set("bleu", b.score);
  out.set("precisions", to_array(std::vector<double>(b.precisions.begin(), b.precisions.end())));
  out.set("brevityPenalty", b.brevity_penalty);
  out.set("hypLen", static_cast<double>(b.hyp_len));
  out.set("refLen", static_cast<double>(b.ref_len));
}

}  // namespace

val bleu_by_length_val(const BleuByLength& r) {
  val bins = val::array();
  for (std::size_t i = 0; i < r.bins.size(); ++i) {
    const LengthBin& b = r.bins[i];
    val bin = val::object();
    bin.set("minWords", b.min_words);
    bin.set("maxWords", b.max_words > 0 ? val(b.max_words) : val::null());
    bin.set("sentences", b.sentences);
    if (b.sentences > 0) set_bleu(bin, b.bleu);
    else bin.set("bleu", val::null());
    bins.set(i, bin);
  }
  val total = val::object();
  total.set("sentences", r.sentences);
  set_bleu(total, r.total);
  val out = val::object();
  out.set("edges", to_array(r.edges));
  out.set("bins", bins);
  out.set("total", total);
  return out;
}

}  // namespace attnscope::bindings
