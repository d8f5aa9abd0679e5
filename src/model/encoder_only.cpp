// encode_text and fill_mask of model/encoder_only.h, for every family that fills the seam.
#include "model/encoder_only.h"

#include <algorithm>
#include <numeric>

#include "core/quote.h"
#include "model/model.h"
#include "ops/ops.h"

namespace attnscope {

const EncoderOnly& encoder_only(const Model& model) {
  const EncoderOnly* e = model.family->encoder_only();
  if (!e) throw InputError("this needs a BERT (encoder-only) model, not architecture '" + model.config.architecture + "'");
  return *e;
}

Encoding encode_text(const Model& model, const std::string& text, const Capture& capture,
                     const Interventions& interventions) {
  const EncoderOnly& family = encoder_only(model);
  Encoding out;
  out.input = family.tokenize(model, text);
  out.hidden = model.family->encode(out.input.ids, capture, &out.trace, interventions);
  out.self_site = family.self_attention_site();
  return out;
}

FillMask fill_mask(const Model& model, const std::string& text, int top_k, const Capture& capture,
                   const Interventions& interventions) {
  const EncoderOnly& family = encoder_only(model);
  const int V = model.src_vocab.size();
  if (top_k < 1 || top_k > V)
    throw InputError("topK = " + std::to_string(top_k) + " is outside [1, " + std::to_string(V) + "]");
  FillMask out;
  out.encoding = encode_text(model, text, capture, interventions);
  const EncoderInput& in = out.encoding.input;
  const int mask = family.mask_id();
  std::vector<int> positions;
  for (std::size_t i = 0; i < in.ids.size(); ++i)
    if (in.ids[i] == mask) positions.push_back(static_cast<int>(i));
  if (positions.empty())
    throw InputError("the text has no " + excerpt(model.src_vocab.token(mask)) + " to fill");

  Matrix hidden(static_cast<Eigen::Index>(positions.size()), out.encoding.hidden.cols());
  for (std::size_t i = 0; i < positions.size(); ++i) hidden.row(static_cast<Eigen::Index>(i)) = out.encoding.hidden.row(positions[i]);
  const Matrix logits = family.mlm_logits(hidden);
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

}  // namespace attnscope
