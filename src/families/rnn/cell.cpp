// The GRU and LSTM cells exactly as PyTorch defines them (torch.nn.GRUCell, torch.nn.LSTMCell):
//   GRU:  r = σ(x_r + W_hr h + b_hr)   z = σ(x_z + W_hz h + b_hz)   n = tanh(x_n + r ⊙ (W_hn h + b_hn))
//         h' = (1 − z) ⊙ n + z ⊙ h
//   LSTM: i, f, g, o = σ, σ, tanh, σ of (x + W_hh h + b_hh);  c' = f ⊙ c + i ⊙ g;  h' = o ⊙ tanh(c')
// where x = W_ih x + b_ih is given (x_proj), split into the gates in that order.
#include <cmath>

#include "families/rnn/rnn.h"

namespace attnscope::rnn {
namespace {

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

}  // namespace

void CellWeights::step(Cell cell, const RowVector& x_proj, RowVector& h, RowVector& c) const {
  const Eigen::Index H = h.cols();
  const RowVector h_proj = ops::linear(h, weight_hh, bias_hh);  // [1, gates * H]
  RowVector next(H);
  if (cell == Cell::GRU) {
    for (Eigen::Index k = 0; k < H; ++k) {
      const float r = sigmoid(x_proj[k] + h_proj[k]);
      const float z = sigmoid(x_proj[H + k] + h_proj[H + k]);
      const float n = std::tanh(x_proj[2 * H + k] + r * h_proj[2 * H + k]);
      next[k] = (1.0f - z) * n + z * h[k];
    }
    h = next;
    return;
  }
  RowVector next_c(H);
  for (Eigen::Index k = 0; k < H; ++k) {
    const float i = sigmoid(x_proj[k] + h_proj[k]);
    const float f = sigmoid(x_proj[H + k] + h_proj[H + k]);
    const float g = std::tanh(x_proj[2 * H + k] + h_proj[2 * H + k]);
    const float o = sigmoid(x_proj[3 * H + k] + h_proj[3 * H + k]);
    next_c[k] = f * c[k] + i * g;
    next[k] = o * std::tanh(next_c[k]);
  }
  h = next;
  c = next_c;
}

}  // namespace attnscope::rnn
