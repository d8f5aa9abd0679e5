#include "families/bert/tasks.h"

#include <algorithm>
#include <numeric>

#include "core/quote.h"

namespace attnscope::bert {

Input tokenize(const Model& model, const std::string& text) {
  const Bert& bert = of(model);
  const SpecialTokens& s = model.config.special;
  // [CLS] and [SEP] take two positions; the tokenizer stops once the rest cannot fit.
  const Encoded e = encode(*model.tokenizer, model.src_vocab, text, s.unk,
                           static_cast<std::size_t>(std::max(model.config.max_positions - 2, 0)));
  if (e.over_limit)
    throw InputError("the text has more than " + std::to_string(model.config.max_positions) +
                     " pieces with [CLS] and [SEP]; this model reads at most " + std::to_string(model.config.max_positions));
  if (e.ids.empty()) throw InputError("the text has no tokens: type a sentence (or two, separated by [SEP])");
  Input in;
  in.pieces.push_back(model.src_vocab.token(s.bos));
  in.ids.push_back(s.bos);
  for (std::size_t i = 0; i < e.ids.size(); ++i) {
    in.pieces.push_back(e.pieces[i]);
    in.ids.push_back(e.ids[i]);
  }
  in.pieces.push_back(model.src_vocab.token(s.eos));
  in.ids.push_back(s.eos);
  if (static_cast<int>(in.ids.size()) > model.config.max_positions)
    throw InputError("the text has " + std::to_string(in.ids.size()) + " pieces with [CLS] and [SEP]; this model reads at most " +
                     std::to_string(model.config.max_positions));
  in.unknown = e.unknown;
  in.segments = bert.segments_of(in.ids);
  return in;
}

Encoding encode_text(const Model& model, const std::string& text, const Capture& capture,
                     const Interventions& interventions) {
  Encoding out;
  out.input = tokenize(model, text);
  out.hidden = of(model).encode(out.input.ids, capture, &out.trace, interventions);
  return out;
}

FillMask fill_mask(const Model& model, const std::string& text, int top_k, const Capture& capture,
                   const Interventions& interventions) {
  const Bert& bert = of(model);
  const int V = model.src_vocab.size();
  if (top_k < 1 || top_k > V)
    throw InputError("topK = " + std::to_string(top_k) + " is outside [1, " + std::to_string(V) + "]");
  FillMask out;
  out.encoding = encode_text(model, text, capture, interventions);
  const Input& in = out.encoding.input;
  std::vector<int> positions;
  for (std::size_t i = 0; i < in.ids.size(); ++i)
    if (in.ids[i] == bert.config().mask) positions.push_back(static_cast<int>(i));
  if (positions.empty())
    throw InputError("the text has no " + excerpt(model.src_vocab.token(bert.config().mask)) + " to fill");

  Matrix hidden(static_cast<Eigen::Index>(positions.size()), out.encoding.hidden.cols());
  for (std::size_t i = 0; i < positions.size(); ++i) hidden.row(static_cast<Eigen::Index>(i)) = out.encoding.hidden.row(positions[i]);
  const Matrix logits = bert.mlm_logits(hidden);
  Matrix probabilities = logits;
  ops::softmax_rows(probabilities);
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const RowVector row = logits.row(static_cast<Eigen::Index>(i));
    const RowVector probs = probabilities.row(static_cast<Eigen::Index>(i));
    std::vector<int> order(static_cast<std::size_t>(V));
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + top_k, order.end(), [&](int a, int b) {
      return row[a] > row[b] || (row[a] == row[b] && a < b);
    });
    MaskPrediction p;
    p.position = positions[i];
    for (int k = 0; k < top_k; ++k) {
      const int id = order[static_cast<std::size_t>(k)];
      p.top.push_back({id, model.src_vocab.token(id), probs[id], row[id]});
    }
    out.masks.push_back(std::move(p));
  }
  return out;
}

}  // namespace attnscope::bert
