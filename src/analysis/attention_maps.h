#pragma once
// Analyses of attention maps that go beyond the raw softmax weights.
#include <string>
#include <vector>

#include "core/tensor.h"
#include "model/model.h"

namespace attnscope {

// Attention rollout (Abnar & Zuidema 2020) through the encoder: with A_l the mean over heads
// of layer l's [S, S] map, R = Â_L ··· Â_1 where Â_l = 0.5·A_l + 0.5·I, rows renormalised.
// `encoder_attention` is [layer][head][S][S]. Returns [S, S]: how much each output position
// draws on each input token once the residual connections are counted.
Matrix attention_rollout(const Tensor& encoder_attention);

// ‖α·f(x)‖ (Kobayashi et al. 2020): each weight α_ij times the norm of what key j actually
// sends through head h, ‖W_O^h v_j^h‖ (W_O^h: the head's columns of out_proj). `attention` is
// [layer][head][Q][K] (or [layer][head][K] for one decoder position); `values[l]` holds layer
// l's value vectors [K, d] (all heads side by side). `out_proj[l]` is that layer's out_proj
// weight [d, d]. Returns a tensor of the same shape as `attention`.
Tensor value_weighted_attention(const Tensor& attention, const std::vector<Matrix>& values,
                                const std::vector<const Matrix*>& out_proj);

// Kovaleva et al. (2019)'s five attention patterns, decided by these rules on one head's
// [Q, K] map (K >= 2). band(w) = mean over queries of the weight on keys with |i - j| <= w;
// column = the largest mean weight one key receives. A flat map (the mean of each row's
// largest weight below 2/K) is heterogeneous whatever its shares, so that a short sentence's
// near-uniform attention does not look diagonal. Otherwise:
//   diagonal           band(1) >= 0.5
//   vertical           column >= 0.5 (every query looks at the same token)
//   vertical+diagonal  band(1) >= 0.3 and column >= 0.3
//   block              band(3) >= 0.6 (local, but wider than the diagonal)
//   heterogeneous      anything else
// The first rule that holds wins, in the order listed.
std::string attention_pattern(const Matrix& head_map);

}  // namespace attnscope
