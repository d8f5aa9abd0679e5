#include "cli/json_output.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attnscope::cli {

using json = nlohmann::json;

static json nested(const Tensor& t, std::size_t dim, std::size_t& offset) {
  json out = json::array();
  for (int i = 0; i < t.shape[dim]; ++i) {
    if (dim + 1 == t.shape.size()) out.push_back(t.data[offset++]);
    else out.push_back(nested(t, dim + 1, offset));
  }
  return out;
}

json tensor_to_json(const Tensor& t) {
  if (t.shape.empty()) return json::array();
  std::size_t offset = 0;
  return nested(t, 0, offset);
}

static json top_k_json(const Model& model, const GreedyStep& step, int k) {
  std::vector<int> order(step.logits.size());
  std::iota(order.begin(), order.end(), 0);
  k = std::min<int>(k, static_cast<int>(order.size()));
  std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int a, int b) {
    return step.logits[a] > step.logits[b] || (step.logits[a] == step.logits[b] && a < b);
  });
  json out = json::array();
  for (int i = 0; i < k; ++i) {
    const int id = order[i];
    out.push_back({{"id", id},
                   {"token", model.tgt_vocab.token(id)},
                   {"logit", step.logits[id]},
                   {"prob", std::exp(step.log_probs[id])}});
  }
  return out;
}

json translation_to_json(const Model& model, const Translation& t, int top_k) {
  json steps = json::array();
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    const GreedyStep& s = t.steps[i];
    steps.push_back({{"step", i},
                     {"input", model.tgt_vocab.token(s.input_id)},
                     {"output", model.tgt_vocab.token(s.output_id)},
                     {"output_id", s.output_id},
                     {"top_k", top_k_json(model, s, top_k)},
                     {"self_attn", tensor_to_json(s.trace.self_attn)},
                     {"cross_attn", tensor_to_json(s.trace.cross_attn)}});
  }
  std::vector<std::string> output_tokens;
  for (int id : t.output_ids) output_tokens.push_back(model.tgt_vocab.token(id));
  return {{"source_tokens", t.source.pieces},
          {"source_ids", t.source.ids},
          {"unknown_words", t.source.unknown},
          {"translation", t.text},
          {"output_tokens", output_tokens},
          {"output_ids", t.output_ids},
          {"finished", t.finished},
          {"hit_max_length", t.hit_max_length},
          {"encoder_self_attn", tensor_to_json(t.encoder.self_attn)},
          {"steps", steps}};
}

}  // namespace attnscope::cli
