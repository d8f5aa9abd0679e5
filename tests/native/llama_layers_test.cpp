// The layers the Llama family is made of (RMSNorm, rotary positions, grouped-query attention,
// the gated FFN): each forward against an independent construction, each backward against
// central differences of its forward.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <functional>

#include "layers/blocks.h"
#include "layers/params.h"

namespace attnscope::train {
namespace {

Matrix values(int rows, int cols, std::uint32_t seed) {
  Matrix m(rows, cols);
  for (Eigen::Index k = 0; k < m.size(); ++k) {
    seed = seed * 1664525u + 1013904223u;
    m.data()[k] = static_cast<float>(static_cast<int>(seed >> 9) % 2001 - 1000) / 1000.0f;
  }
  return m;
}

Linear random_linear(int out, int in, std::uint32_t seed, bool bias = true) {
  return Linear{ops::WeightMatrix::plain(values(out, in, seed) * 0.5f),
                bias ? RowVector(values(1, out, seed + 1)) : RowVector(RowVector::Zero(out))};
}

// d/dx of sum(f(x) ∘ weights) by central differences, one input at a time (h = 1e-2, in double
// where it is summed).
Matrix central_gradient(const std::function<Matrix(const Matrix&)>& f, const Matrix& x, const Matrix& weights) {
  const float h = 1e-2f;
  Matrix g(x.rows(), x.cols());
  for (Eigen::Index k = 0; k < x.size(); ++k) {
    Matrix above = x, below = x;
    above.data()[k] += h;
    below.data()[k] -= h;
    const double up = (f(above).cast<double>().array() * weights.cast<double>().array()).sum();
    const double down = (f(below).cast<double>().array() * weights.cast<double>().array()).sum();
    g.data()[k] = static_cast<float>((up - down) / (2.0 * h));
  }
  return g;
}

void expect_close(const Matrix& got, const Matrix& want, float tolerance, const std::string& what) {
  ASSERT_EQ(got.rows(), want.rows()) << what;
  ASSERT_EQ(got.cols(), want.cols()) << what;
  for (Eigen::Index k = 0; k < got.size(); ++k) {
    ASSERT_TRUE(std::isfinite(got.data()[k])) << what << " at " << k;
    ASSERT_NEAR(got.data()[k], want.data()[k], tolerance * (1.0f + std::fabs(want.data()[k]))) << what << " at " << k;
  }
}

TEST(RMSNorm, IsTheRowOverItsRootMeanSquareTimesTheWeight) {
  const Matrix x = values(3, 8, 1);
  const RMSNorm norm{values(1, 8, 2), 1e-6f};
  const Matrix y = norm(x);
  for (int r = 0; r < 3; ++r) {
    double sum_sq = 0;
    for (int i = 0; i < 8; ++i) sum_sq += static_cast<double>(x(r, i)) * x(r, i);
    const double rms = std::sqrt(sum_sq / 8 + 1e-6);
    for (int i = 0; i < 8; ++i) EXPECT_NEAR(y(r, i), x(r, i) / rms * norm.weight[i], 1e-6);
  }
}

TEST(RMSNorm, BackwardIsTheSlopeOfItsForward) {
  const Matrix x = values(3, 8, 3), weights = values(3, 8, 4);
  const RMSNorm norm{values(1, 8, 5), 1e-5f};
  NormCache cache;
  rms_norm_forward(norm, x, cache);
  RMSNorm grad{RowVector::Zero(8), 0.0f};
  const Matrix dx = rms_norm_backward(norm, &grad, cache, weights);
  expect_close(dx, central_gradient([&](const Matrix& m) { return norm(m); }, x, weights), 2e-3f, "dx");
  // d/dw of sum(y ∘ weights) is Σ_rows x̂ ∘ weights.
  const Matrix x_hat = norm(x).array().rowwise() / norm.weight.array();
  expect_close(grad.weight, (x_hat.array() * weights.array()).matrix().colwise().sum(), 1e-5f, "dweight");
}

// Rotary positions turn each (i, i + D/2) pair as the complex number x[i] + i·x[i + D/2] times
// e^{i p θ}: the halves, not interleaved pairs.
TEST(Rotary, TurnsTheHalvesOfEachHeadByPositionTimesTheirFrequency) {
  const Rotary rotary{default_inv_freq(10000.0f, 8)};
  const int heads = 2;
  const Matrix x = values(3, heads * 8, 6);
  const std::vector<int> positions = {0, 5, 300};
  Matrix y = x;
  rotary.rotate(y, heads, positions);
  for (int r = 0; r < 3; ++r)
    for (int h = 0; h < heads; ++h)
      for (int i = 0; i < 4; ++i) {
        const double theta = std::pow(10000.0, -2.0 * i / 8);
        const std::complex<double> z(x(r, h * 8 + i), x(r, h * 8 + i + 4));
        const std::complex<double> turned = z * std::polar(1.0, positions[r] * theta);
        EXPECT_NEAR(y(r, h * 8 + i), turned.real(), 2e-4) << r << " " << h << " " << i;
        EXPECT_NEAR(y(r, h * 8 + i + 4), turned.imag(), 2e-4) << r << " " << h << " " << i;
      }
  EXPECT_TRUE(y.row(0) == x.row(0)) << "position 0 does not turn";
  // The backward is the transpose: <rotate(x), g> = <x, rotate_backward(g)>.
  const Matrix g = values(3, heads * 8, 7);
  const Matrix back = rotary_backward(rotary, heads, positions, g);
  EXPECT_NEAR((y.array() * g.array()).sum(), (x.array() * back.array()).sum(), 1e-4);
}

TEST(Rotary, Llama3KeepsShortWavelengthsDividesLongOnesAndBlendsBetween) {
  // Llama 3.2's rule at a small original context, so that all three ranges occur in 32 frequencies.
  const Llama3RopeScaling s{8.0f, 1.0f, 4.0f, 64};
  const RowVector base = default_inv_freq(10000.0f, 64), scaled = llama3_inv_freq(base, s);
  int kept = 0, divided = 0, blended = 0;
  for (Eigen::Index i = 0; i < base.size(); ++i) {
    const double wavelen = 2 * M_PI / base[i];
    if (wavelen < 64.0 / 4.0) {
      EXPECT_EQ(scaled[i], base[i]);
      ++kept;
    } else if (wavelen > 64.0 / 1.0) {
      EXPECT_FLOAT_EQ(scaled[i], base[i] / 8.0f);
      ++divided;
    } else {
      const double smooth = (64.0 / wavelen - 1.0) / (4.0 - 1.0);
      EXPECT_NEAR(scaled[i], (1 - smooth) * base[i] / 8.0 + smooth * base[i], 1e-6 * base[i]);
      EXPECT_LT(scaled[i], base[i]);
      EXPECT_GT(scaled[i], base[i] / 8.0f);
      ++blended;
    }
  }
  EXPECT_GT(kept, 0);
  EXPECT_GT(divided, 0);
  EXPECT_GT(blended, 0);
}

// Grouped-query attention is multi-head attention whose key/value heads are repeated for each
// query head of their group (HF's repeat_kv): the same numbers from the repeated weights.
TEST(GroupedQueryAttention, IsAttentionOverRepeatedKeyValueHeads) {
  const int d = 16, heads = 4, kv_heads = 2, dh = 4;
  MultiHeadAttention gqa{random_linear(heads * dh, d, 10), random_linear(kv_heads * dh, d, 12),
                         random_linear(kv_heads * dh, d, 14), random_linear(d, heads * dh, 16), heads, kv_heads};
  auto repeated = [&](const Linear& p) {
    Matrix w(heads * dh, d);
    RowVector b(heads * dh);
    for (int h = 0; h < heads; ++h) {
      w.middleRows(h * dh, dh) = p.weight.plain_matrix().middleRows(gqa.kv_head(h) * dh, dh);
      b.segment(h * dh, dh) = p.bias.segment(gqa.kv_head(h) * dh, dh);
    }
    return Linear{ops::WeightMatrix::plain(w), b};
  };
  const MultiHeadAttention mha{gqa.q_proj, repeated(gqa.k_proj), repeated(gqa.v_proj), gqa.out_proj, heads};
  EXPECT_EQ(gqa.kv_head(0), 0);
  EXPECT_EQ(gqa.kv_head(1), 0);
  EXPECT_EQ(gqa.kv_head(2), 1);
  const Matrix x = values(5, d, 18);
  AttentionCache a, b;
  const std::vector<Segment> rows = {{0, 5}};
  const Matrix y_gqa = attention_forward(gqa, x, x, rows, rows, /*causal=*/true, a);
  const Matrix y_mha = attention_forward(mha, x, x, rows, rows, /*causal=*/true, b);
  EXPECT_TRUE(y_gqa == y_mha);
  for (int h = 0; h < heads; ++h) EXPECT_TRUE(a.attn[h] == b.attn[h]) << "head " << h;
}

TEST(GroupedQueryAttention, BackwardIsTheSlopeOfItsForward) {
  const int d = 8, heads = 4, kv_heads = 1, dh = 2;  // multi-query: one key/value head for all
  const MultiHeadAttention p{random_linear(heads * dh, d, 20), random_linear(kv_heads * dh, d, 22),
                             random_linear(kv_heads * dh, d, 24), random_linear(d, heads * dh, 26), heads, kv_heads};
  const Matrix x = values(4, d, 28), weights = values(4, d, 29);
  const std::vector<Segment> rows = {{0, 4}};
  auto forward = [&](const Matrix& m) {
    AttentionCache c;
    return attention_forward(p, m, m, rows, rows, /*causal=*/true, c);
  };
  AttentionCache cache;
  attention_forward(p, x, x, rows, rows, true, cache);
  MultiHeadAttention grad{linear_zeros(heads * dh, d), linear_zeros(kv_heads * dh, d), linear_zeros(kv_heads * dh, d),
                          linear_zeros(d, heads * dh), heads, kv_heads};
  const AttentionInputGrads g = attention_backward(p, &grad, rows, rows, cache, weights);
  expect_close(Matrix(g.dx_q + g.dx_kv), central_gradient(forward, x, weights), 3e-3f, "dx");
  // The shared value head's weight gathers every query head's gradient.
  const auto value_loss = [&](const Matrix& w) {
    MultiHeadAttention q = p;
    q.v_proj.weight = ops::WeightMatrix::plain(w);
    AttentionCache c;
    return attention_forward(q, x, x, rows, rows, true, c);
  };
  const Matrix w_v = p.v_proj.weight.plain_matrix();
  Matrix dw(w_v.rows(), w_v.cols());
  for (Eigen::Index k = 0; k < w_v.size(); ++k) {
    Matrix above = w_v, below = w_v;
    above.data()[k] += 1e-2f;
    below.data()[k] -= 1e-2f;
    dw.data()[k] = static_cast<float>(((value_loss(above) - value_loss(below)).cast<double>().array() *
                                       weights.cast<double>().array()).sum() / 2e-2);
  }
  expect_close(grad.v_proj.weight.plain_matrix(), dw, 3e-3f, "dW_v");
}

TEST(GatedFeedForward, IsDownOfSiluGateTimesUpAndItsBackwardIsItsSlope) {
  const int d = 6, d_ff = 10;
  const GatedFeedForward p{random_linear(d_ff, d, 30, false), random_linear(d_ff, d, 32, false),
                           random_linear(d, d_ff, 34, false), Activation::Swish};
  const Matrix x = values(3, d, 36), weights = values(3, d, 37);
  const Matrix g = ops::linear_reference(x, p.gate.weight.plain_matrix(), p.gate.bias);
  const Matrix u = ops::linear_reference(x, p.up.weight.plain_matrix(), p.up.bias);
  Matrix h(3, d_ff);
  for (Eigen::Index k = 0; k < h.size(); ++k) h.data()[k] = g.data()[k] / (1 + std::exp(-g.data()[k])) * u.data()[k];
  expect_close(p(x, Probe{}), ops::linear_reference(h, p.down.weight.plain_matrix(), p.down.bias), 1e-5f, "forward");
  GatedFeedForwardCache cache;
  gated_ffn_forward(p, x, cache);
  const Matrix dx = gated_ffn_backward(p, nullptr, cache, weights);
  expect_close(dx, central_gradient([&](const Matrix& m) { return p(m, Probe{}); }, x, weights), 3e-3f, "dx");
}

}  // namespace
}  // namespace attnscope::train
