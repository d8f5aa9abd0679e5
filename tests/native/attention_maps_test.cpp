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

#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/session_analysis.h"
#include "families/transformer/transformer.h"

namespace attnscope {
namespace {

// Value weighting from a session's captures equals the same formula applied to the golden
// (PyTorch) attention and value vectors with the model's out_proj weights: the session wiring
// picks the right layer's values and weights.
TEST(AttentionMaps, SessionValueWeightingUsesTheCapturedValues) {
  const auto g = nlohmann::json::parse(std::ifstream(std::string(ATTNSCOPE_GOLDEN_DIR) + "/deep_pre_sin_bpe.json"));
  const auto model = Model::load_file(std::string(ATTNSCOPE_GOLDEN_DIR) + "/deep_pre_sin_bpe.safetensors");
  const auto& c = g["cases"][0];
  DecodeOptions o;
  o.strategy = Strategy::Beam;
  o.beam_size = 2;
  o.min_length = o.max_length = 4;
  o.capture = {true, true, false};
  DecodeSession s(model, c["source"].get<std::string>(), o);
  s.run();

  const int S = static_cast<int>(s.source().ids.size());
  Tensor golden_attn({3, 8, S, S});
  std::size_t i = 0;
  for (const auto& layer : c["encoder"]["self_attn"])
    for (const auto& head : layer)
      for (const auto& row : head)
        for (const auto& w : row) golden_attn.data[i++] = w.get<float>();
  std::vector<Matrix> golden_v;
  std::vector<Matrix> w_o_values;
  for (int l = 0; l < 3; ++l) {
    const auto& rows = c["encoder"]["layers"][l]["v"];
    Matrix v(S, 64);
    for (int r = 0; r < S; ++r)
      for (int k = 0; k < 64; ++k) v(r, k) = rows[r][k].get<float>();
    golden_v.push_back(v);
    w_o_values.push_back(transformer::of(*model).weights().encoder_layers[l].self_attn.out_proj.weight.to_matrix());
  }
  std::vector<const Matrix*> w_o;
  for (const Matrix& w : w_o_values) w_o.push_back(&w);
  const Tensor want = value_weighted_attention(golden_attn, golden_v, w_o);
  const Tensor got = value_weighted_attention(s, "encoder");
  ASSERT_EQ(got.shape, want.shape);
  for (std::size_t k = 0; k < got.data.size(); ++k) ASSERT_NEAR(got.data[k], want.data[k], 1e-4) << k;

  EXPECT_EQ(value_weighted_attention(s, "cross", 2, 1).shape, (std::vector<int>{2, 8, S}));
  const Tensor self = value_weighted_attention(s, "self", 2, 1);
  EXPECT_EQ(self.shape, (std::vector<int>{2, 8, 3}));
  for (float x : self.data) EXPECT_GE(x, 0.0f);
  EXPECT_EQ(encoder_patterns(s).size(), 3u * 8u);
  EXPECT_EQ(encoder_rollout(s).rows(), S);
  EXPECT_THROW(value_weighted_attention(s, "cross", 9, 0), IndexError);

  DecodeOptions no_vectors;
  no_vectors.capture.attention = true;
  DecodeSession plain(model, "A dog runs.", no_vectors);
  plain.step();
  EXPECT_THROW(value_weighted_attention(plain, "encoder"), Error);
}

}  // namespace
}  // namespace attnscope
