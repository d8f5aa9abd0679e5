// The encoder: source embeddings through the stacked (optionally bidirectional) RNN. Returns
// the top layer's states, [S, d_mem]: forward and backward halves side by side.
#include "families/rnn/rnn.h"

namespace attnscope::rnn {

Matrix Rnn::encode(const std::vector<int>& src_ids, const Capture& capture, EncoderTrace* trace,
                   const Interventions& interventions) const {
  intervention_support().check(interventions);
  const Config& c = config_;
  const Weights& w = weights_;
  const Eigen::Index S = static_cast<Eigen::Index>(src_ids.size());
  NamedVectors* vectors = trace != nullptr && capture.vectors ? &trace->vectors : nullptr;

  Matrix x(S, c.d_embed);
  for (Eigen::Index j = 0; j < S; ++j) {
    const int id = src_ids[static_cast<std::size_t>(j)];
    if (id < 0 || id >= w.src_embed.rows())
      throw IndexError("source token id " + std::to_string(id) + " is outside the vocabulary of " +
                       std::to_string(w.src_embed.rows()));
    x.row(j) = w.src_embed.row(id);
  }
  if (vectors) (*vectors)["embedding"] = x;

  for (int l = 0; l < c.n_encoder_layers; ++l) {
    Matrix out(S, c.d_memory());
    for (int dir = 0; dir < c.directions(); ++dir)
      encode_direction(c.cell, w.encoder[static_cast<std::size_t>(l * c.directions() + dir)], x, dir,
                       out.middleCols(dir * c.d_encoder, c.d_encoder));
    x = std::move(out);
  }
  if (vectors) {
    (*vectors)["states"] = x;
    (*vectors)["final"] = final_state(c, x);
  }
  if (trace != nullptr && capture.attention) trace->attention.assign(sites_.size(), Tensor());
  return x;
}

void encode_direction(Cell cell, const CellWeights& weights, const Matrix& x, int direction, Eigen::Ref<Matrix> out,
                      std::vector<CellRecord>* records) {
  const Eigen::Index S = x.rows(), hidden = weights.weight_hh.cols();
  const Matrix x_proj = ops::linear(x, weights.weight_ih, weights.bias_ih);  // every position at once
  if (records) records->resize(static_cast<std::size_t>(S));
  RowVector h = RowVector::Zero(hidden), c = RowVector::Zero(hidden);
  for (Eigen::Index k = 0; k < S; ++k) {
    const Eigen::Index j = direction == 0 ? k : S - 1 - k;
    weights.step(cell, x_proj.row(j), h, c, records ? &(*records)[static_cast<std::size_t>(k)] : nullptr);
    out.row(j) = h;
  }
}

RowVector final_state(const Config& c, const Matrix& states) {
  RowVector f(c.d_memory());
  f.head(c.d_encoder) = states.row(states.rows() - 1).head(c.d_encoder);
  if (c.bidirectional) f.tail(c.d_encoder) = states.row(0).tail(c.d_encoder);
  return f;
}

}  // namespace attnscope::rnn
