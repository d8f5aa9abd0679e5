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

// cell_update with its record written (kRecord) or not: inference's loop has no branch for it.
template <bool kRecord>
void update(Cell cell, const RowVector& x_proj, const RowVector& h_proj, RowVector& h, RowVector& c,
            CellRecord* record) {
  const Eigen::Index H = h.cols();
  if constexpr (kRecord) {
    record->h_prev = h;
    record->c_prev = c;
    record->gates.resize(x_proj.size());
  }
  RowVector next(H);
  if (cell == Cell::GRU) {
    for (Eigen::Index k = 0; k < H; ++k) {
      const float r = sigmoid(x_proj[k] + h_proj[k]);
      const float z = sigmoid(x_proj[H + k] + h_proj[H + k]);
      const float n = std::tanh(x_proj[2 * H + k] + r * h_proj[2 * H + k]);
      next[k] = (1.0f - z) * n + z * h[k];
      if constexpr (kRecord) record->gates[k] = r, record->gates[H + k] = z, record->gates[2 * H + k] = n;
    }
    if constexpr (kRecord) record->hp_n = h_proj.segment(2 * H, H);
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
    if constexpr (kRecord) record->gates[k] = i, record->gates[H + k] = f, record->gates[2 * H + k] = g, record->gates[3 * H + k] = o;
  }
  if constexpr (kRecord) record->c = next_c;
  h = next;
  c = next_c;
}

}  // namespace

void cell_update(Cell cell, const RowVector& x_proj, const RowVector& h_proj, RowVector& h, RowVector& c,
                 CellRecord* record) {
  if (record) update<true>(cell, x_proj, h_proj, h, c, record);
  else update<false>(cell, x_proj, h_proj, h, c, nullptr);
}

void CellWeights::step(Cell cell, const RowVector& x_proj, RowVector& h, RowVector& c, CellRecord* record) const {
  cell_update(cell, x_proj, ops::linear(h, weight_hh, bias_hh), h, c, record);
}

void decoder_layers(Cell cell, const std::vector<CellWeights>& layers, const RowVector& x, std::vector<RowVector>& h,
                    std::vector<RowVector>& c, std::vector<CellRecord>* records) {
  if (records) records->resize(layers.size());
  RowVector unused;  // a GRU's cell state
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const CellWeights& layer = layers[l];
    layer.step(cell, ops::linear(l == 0 ? x : h[l - 1], layer.weight_ih, layer.bias_ih), h[l],
               cell == Cell::LSTM ? c[l] : unused, records ? &(*records)[l] : nullptr);
  }
}

}  // namespace attnscope::rnn
