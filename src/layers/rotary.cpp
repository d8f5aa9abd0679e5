#include "layers/rotary.h"

#include <cmath>
#include <string>

#include "core/error.h"

namespace attnscope {

void Rotary::rotate(Matrix& x, int n_heads, const std::vector<int>& positions, bool inverse) const {
  const int half = static_cast<int>(inv_freq.size()), width = 2 * half;
  if (x.cols() != static_cast<Eigen::Index>(n_heads) * width || positions.size() != static_cast<std::size_t>(x.rows()))
    throw Error("rotary: " + std::to_string(x.rows()) + "x" + std::to_string(x.cols()) + " rows for " +
                std::to_string(n_heads) + " heads of " + std::to_string(width) + " and " +
                std::to_string(positions.size()) + " positions");
  RowVector cos(half), sin(half);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const float p = static_cast<float>(positions[static_cast<std::size_t>(r)]);
    for (int i = 0; i < half; ++i) {
      const float angle = p * inv_freq[i];
      cos[i] = std::cos(angle);
      sin[i] = inverse ? -std::sin(angle) : std::sin(angle);
    }
    for (int h = 0; h < n_heads; ++h) {
      float* head = x.row(r).data() + static_cast<std::ptrdiff_t>(h) * width;
      for (int i = 0; i < half; ++i) {
        const float a = head[i], b = head[i + half];
        head[i] = a * cos[i] - b * sin[i];
        head[i + half] = b * cos[i] + a * sin[i];
      }
    }
  }
}

RowVector default_inv_freq(float base, int head_width) {
  RowVector inv_freq(head_width / 2);
  for (int i = 0; i < head_width / 2; ++i)
    inv_freq[i] = 1.0f / std::pow(base, static_cast<float>(2 * i) / static_cast<float>(head_width));
  return inv_freq;
}

RowVector llama3_inv_freq(const RowVector& inv_freq, const Llama3RopeScaling& s) {
  const float original = static_cast<float>(s.original_max_position_embeddings);
  const float low_freq_wavelen = original / s.low_freq_factor, high_freq_wavelen = original / s.high_freq_factor;
  const float two_pi = 2.0f * static_cast<float>(M_PI);
  RowVector out(inv_freq.size());
  for (Eigen::Index i = 0; i < inv_freq.size(); ++i) {
    const float wavelen = two_pi / inv_freq[i];
    if (wavelen < high_freq_wavelen) {
      out[i] = inv_freq[i];
    } else if (wavelen > low_freq_wavelen) {
      out[i] = inv_freq[i] / s.factor;
    } else {
      const float smooth = (original / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
      out[i] = (1.0f - smooth) * inv_freq[i] / s.factor + smooth * inv_freq[i];
    }
  }
  return out;
}

}  // namespace attnscope
