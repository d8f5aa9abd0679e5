#pragma once
// Rotary position embeddings (Su et al. 2021, RoFormer) in Hugging Face's convention
// (modeling_llama.py apply_rotary_pos_emb, rotate_half): a head of width D is split in halves,
// and dimension i < D/2 turns with dimension i + D/2 through the angle p·θ_i of the row's
// position p, not the paper's interleaved pairs (2i, 2i + 1):
//   x'[i]       = x[i]·cos(p θ_i) - x[i + D/2]·sin(p θ_i)
//   x'[i + D/2] = x[i + D/2]·cos(p θ_i) + x[i]·sin(p θ_i)
// Angles, cosines and sines are binary32, as HF computes them (a product p·θ_i, then cos, sin).
#include <vector>

#include "core/tensor.h"

namespace attnscope {

// rope_scaling's "llama3" rule (modeling_rope_utils.py _compute_llama3_parameters).
struct Llama3RopeScaling {
  float factor = 8.0f;
  float low_freq_factor = 1.0f;
  float high_freq_factor = 4.0f;
  int original_max_position_embeddings = 8192;
};

struct Rotary {
  RowVector inv_freq;  // [D / 2]: θ_i

  int head_width() const { return static_cast<int>(inv_freq.size()) * 2; }
  // Turns each of the n_heads heads side by side in row r of x ([rows, n_heads · D]) through the
  // angles of position positions[r]; `inverse`: through minus them, which is the rotation's
  // transpose (the backward pass).
  void rotate(Matrix& x, int n_heads, const std::vector<int>& positions, bool inverse = false) const;
};

// θ_i = 1 / base^(2i / D), i < D / 2 (_compute_default_rope_parameters).
RowVector default_inv_freq(float base, int head_width);
// The llama3 rule: wavelengths 2π/θ shorter than original / high_freq_factor keep θ, longer than
// original / low_freq_factor take θ / factor, and those between are interpolated.
RowVector llama3_inv_freq(const RowVector& inv_freq, const Llama3RopeScaling& scaling);

}  // namespace attnscope
