// Rollout, value-weighted attention and pattern classes on small maps worked out by hand.
#include <gtest/gtest.h>

#include "analysis/attention_maps.h"

namespace attnscope {
namespace {

Tensor tensor(std::vector<int> shape, std::vector<float> data) {
  Tensor t(std::move(shape));
  t.data = std::move(data);
  return t;
}

TEST(AttentionMaps, RolloutOfOneLayerMixesInTheResidual) {
  // One layer, one head, every position attends to token 0: Â = 0.5·A + 0.5·I.
  const Tensor a = tensor({1, 1, 2, 2}, {1, 0, 1, 0});
  const Matrix r = attention_rollout(a);
  EXPECT_FLOAT_EQ(r(0, 0), 1.0f);
  EXPECT_FLOAT_EQ(r(0, 1), 0.0f);
  EXPECT_FLOAT_EQ(r(1, 0), 0.5f);
  EXPECT_FLOAT_EQ(r(1, 1), 0.5f);
  // Two identical layers: row 1 = [0.5, 0.5]·Â = [0.75, 0.25].
  const Matrix r2 = attention_rollout(tensor({2, 1, 2, 2}, {1, 0, 1, 0, 1, 0, 1, 0}));
  EXPECT_FLOAT_EQ(r2(1, 0), 0.75f);
  EXPECT_FLOAT_EQ(r2(1, 1), 0.25f);
  EXPECT_THROW(attention_rollout(tensor({1, 1, 2}, {1, 0})), InputError);
}

TEST(AttentionMaps, ValueWeightingScalesEachKeyByWhatItSends) {
  // One layer, two heads of width 1; out_proj is the identity, so ‖W_O^h v_j^h‖ = |v_j^h|.
  const Tensor a = tensor({1, 2, 1, 2}, {0.5f, 0.5f, 0.25f, 0.75f});
  Matrix v(2, 2);
  v << 2, -1,   // key 0: head 0 sends 2, head 1 sends -1
      0, 4;     // key 1: head 0 sends 0, head 1 sends 4
  const Matrix w = Matrix::Identity(2, 2);
  const Tensor out = value_weighted_attention(a, {v}, {&w});
  EXPECT_EQ(out.shape, a.shape);
  EXPECT_EQ(out.data, (std::vector<float>{1.0f, 0.0f, 0.25f, 3.0f}));
}

TEST(AttentionMaps, PatternRules) {
  Matrix diagonal = Matrix::Identity(4, 4);
  EXPECT_EQ(attention_pattern(diagonal), "diagonal");
  Matrix vertical = Matrix::Zero(4, 4);
  vertical.col(3).setOnes();
  vertical(3, 3) = 0, vertical(3, 0) = 1;  // row 3 looks far away: the band misses it
  EXPECT_EQ(attention_pattern(vertical), "vertical");
  Matrix block = Matrix::Zero(8, 8);  // every query looks exactly 3 positions away
  for (int i = 0; i < 8; ++i) block(i, i >= 3 ? i - 3 : i + 3) = 1;
  EXPECT_EQ(attention_pattern(block), "block");
  for (int n : {2, 3, 8}) EXPECT_EQ(attention_pattern(Matrix::Constant(n, n, 1.0f / n)), "heterogeneous") << n;
  Matrix both = Matrix::Zero(8, 8);  // 0.38 on itself, 0.42 on the last token, 0.2 three ahead
  for (int i = 0; i < 8; ++i) both(i, i) += 0.38f, both(i, 7) += 0.42f, both(i, (i + 3) % 8) += 0.2f;
  EXPECT_EQ(attention_pattern(both), "vertical+diagonal");
}

}  // namespace
}  // namespace attnscope
