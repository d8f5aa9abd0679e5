// Embedding geometry and the raw query-key scores.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/vectors.h"
#include "test_support.h"
#include "families/transformer/transformer.h"

namespace attnscope {
using transformer::kCross;
using transformer::kDecoderSelf;
using transformer::kEncoderSelf;
namespace {

TEST(Vectors, PcaOfPointsOnALine) {
  Matrix points(4, 3);  // x = t·(1, 2, 2), t = -1.5 .. 1.5: one direction of variance
  for (int i = 0; i < 4; ++i) points.row(i) = RowVector::Map(std::vector<float>{1, 2, 2}.data(), 3) * (i - 1.5f);
  const Matrix p = pca_2d(points);
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(std::abs(p(i, 0)), 3.0f * std::abs(i - 1.5f), 1e-5);  // |(1,2,2)| = 3
    EXPECT_NEAR(p(i, 1), 0.0f, 1e-5);
  }
  EXPECT_LT(p(0, 0) * p(3, 0), 0.0f);
}

TEST(Vectors, CosineSimilarity) {
  Matrix a(2, 2), b(3, 2);
  a << 1, 0, 0, 2;
  b << 3, 0, 1, 1, 0, 0;
  const Matrix c = cosine_similarity(a, b);
  EXPECT_FLOAT_EQ(c(0, 0), 1.0f);
  EXPECT_FLOAT_EQ(c(1, 0), 0.0f);
  EXPECT_NEAR(c(0, 1), std::sqrt(0.5f), 1e-6);
  EXPECT_FLOAT_EQ(c(1, 2), 0.0f);
}

// softmax(q·kᵀ/sqrt(d)) must give back the attention the session captured, at every site.
TEST(Vectors, AttentionLogitsSoftmaxToTheCapturedRow) {
  const auto model = Model::load_file(testing::golden_path("deep_pre_sin_bpe.safetensors"));
  DecodeOptions o;
  o.strategy = Strategy::Beam;
  o.beam_size = 2;
  o.min_length = o.max_length = 3;
  o.capture = {true, true, false};
  DecodeSession s(model, "Three people sit in a cave.", o);
  s.run();
  auto softmax = [](RowVector x) {
    x = (x.array() - x.maxCoeff()).exp();
    return RowVector(x / x.sum());
  };
  const int S = static_cast<int>(s.source().ids.size());
  const RowVector enc = softmax(attention_logits(s, "encoder", 2, 5, 3));
  for (int k = 0; k < S; ++k) EXPECT_NEAR(enc[k], s.encoder_trace().attention[kEncoderSelf].at({2, 5, 3, k}), 1e-5);
  const RowVector cross = softmax(attention_logits(s, "cross", 1, 7, 0, 2, 1));
  for (int k = 0; k < S; ++k) EXPECT_NEAR(cross[k], s.history()[2].expansions[1].trace.attention[kCross].at({1, 7, k}), 1e-5);
  const RowVector self = softmax(attention_logits(s, "self", 0, 2, 0, 2, 1));
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(self[k], s.history()[2].expansions[1].trace.attention[kDecoderSelf].at({0, 2, k}), 1e-5);
  EXPECT_THROW(attention_logits(s, "encoder", 3, 0, 0), IndexError);
  EXPECT_THROW(attention_logits(s, "cross", 0, 8, 0, 0, 0), IndexError);
}

}  // namespace
}  // namespace attnscope
