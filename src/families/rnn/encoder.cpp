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
    for (int dir = 0; dir < c.directions(); ++dir) {
      const CellWeights& cell = w.encoder[static_cast<std::size_t>(l * c.directions() + dir)];
      const Matrix x_proj = ops::linear(x, cell.weight_ih, cell.bias_ih);  // every position at once
      RowVector h = RowVector::Zero(c.d_encoder), cs = RowVector::Zero(c.d_encoder);
      for (Eigen::Index k = 0; k < S; ++k) {
        const Eigen::Index j = dir == 0 ? k : S - 1 - k;
        cell.step(c.cell, x_proj.row(j), h, cs);
        out.block(j, dir * c.d_encoder, 1, c.d_encoder) = h;
      }
    }
    x = std::move(out);
  }
  if (vectors) {
    (*vectors)["states"] = x;
    (*vectors)["final"] = final_state(c, x);
  }
  if (trace != nullptr && capture.attention) trace->attention.assign(sites_.size(), Tensor());
  return x;
}

RowVector final_state(const Config& c, const Matrix& states) {
  RowVector f(c.d_memory());
  f.head(c.d_encoder) = states.row(states.rows() - 1).head(c.d_encoder);
  if (c.bidirectional) f.tail(c.d_encoder) = states.row(0).tail(c.d_encoder);
  return f;
}

}  // namespace attnscope::rnn
