// Analyses: teacher-forced scoring against the PyTorch goldens, and the head-importance sweep.
#include <gtest/gtest.h>

#include "analysis/head_importance.h"
#include "test_support.h"

namespace attnscope {
namespace {

using testing::json;

// The goldens hold PyTorch's log-probabilities of every step of a greedy decode; scoring that
// decode's output teacher-forced must give their sum.
TEST(Analysis, ScoreTargetMatchesPyTorchLogProbs) {
  int checked = 0;
  for (const char* name : {"tiny_post_sin", "small_pre_learned", "deep_post_learned_f16", "deep_pre_sin_bpe"}) {
    const json g = testing::load_json(testing::golden_path(std::string(name) + ".json"));
    const auto model = Model::load_file(testing::golden_path(g["model"]));
    for (const json& c : g["cases"]) {
      std::vector<int> out = c["output_ids"];
      if (out.empty() || out.back() != model->config.special.eos) continue;  // scoring always ends with </s>
      out.pop_back();
      double expected = 0.0;
      for (std::size_t i = 0; i < c["steps"].size(); ++i)
        expected += c["steps"][i]["log_probs"][c["steps"][i]["output_id"].get<int>()].get<double>();
      const TargetScore s = score_target(*model, prepare_source(*model, c["source"]), out);
      EXPECT_NEAR(s.log_prob, expected, 1e-4) << name << ": " << c["source"];
      EXPECT_EQ(s.token_log_probs.size(), out.size() + 1);
      ++checked;
    }
  }
  EXPECT_GE(checked, 4);
}

TEST(Analysis, HeadSweepOnTheToyModel) {
  const auto model = Model::load_file(testing::frozen_toy_path());
  std::vector<DevPair> dev;
  for (auto [en, de] : {std::pair<const char*, const char*>{"i can eat apple", "ich konnen apfel essen"},
                        {"we drink beer", "wir trinken bier"}, {"we want to read book", "wir mochten buch lesen"}}) {
    const Encoded ref = encode(*model->tokenizer, model->tgt_vocab, de, model->config.special.unk);
    dev.push_back({prepare_source(*model, en), ref.ids, de});
  }
  std::vector<std::pair<int, int>> calls;
  HeadSweepOptions options;
  options.bleu = true;
  const HeadSweep sweep =
      head_importance_sweep(*model, dev, options, [&](int done, int total) { calls.push_back({done, total}); });
  ASSERT_EQ(sweep.heads.size(), 3u);  // encoder, decoder self, cross: one layer, one head each
  EXPECT_EQ(calls.front(), std::make_pair(0, 3));
  EXPECT_EQ(calls.back(), std::make_pair(3, 3));
  EXPECT_EQ(sweep.tokens, 5 + 4 + 5);
  EXPECT_GT(sweep.base_log_likelihood, -0.01) << "the toy model is sure of its training pairs";
  const HeadImportance& cross = sweep.heads[2];
  EXPECT_EQ(cross.site, "cross");
  EXPECT_LT(cross.delta_log_likelihood, -1.0) << "without its only cross-attention head it cannot translate";
  ASSERT_TRUE(sweep.has_bleu);
  EXPECT_DOUBLE_EQ(sweep.base_bleu, 100.0) << "greedy output equals the references";
  EXPECT_LT(cross.delta_bleu, -20.0);
  EXPECT_THROW(head_importance_sweep(*model, {}), InputError);

  // A range of heads (a worker's share of the sweep): the same baseline, the same numbers.
  HeadSweepOptions tail = options;
  tail.first_head = 1;
  tail.head_count = 2;
  calls.clear();
  const HeadSweep part =
      head_importance_sweep(*model, dev, tail, [&](int done, int total) { calls.push_back({done, total}); });
  EXPECT_EQ(calls.back(), std::make_pair(2, 2));
  EXPECT_EQ(part.base_log_likelihood, sweep.base_log_likelihood);
  EXPECT_EQ(part.base_bleu, sweep.base_bleu);
  EXPECT_EQ(part.tokens, sweep.tokens);
  ASSERT_EQ(part.heads.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(part.heads[i].site, sweep.heads[i + 1].site);
    EXPECT_EQ(part.heads[i].delta_log_likelihood, sweep.heads[i + 1].delta_log_likelihood);
    EXPECT_EQ(part.heads[i].delta_bleu, sweep.heads[i + 1].delta_bleu);
  }
  for (auto [first, count] : {std::pair{3, 1}, std::pair{-1, 1}, std::pair{0, 4}}) {
    HeadSweepOptions bad;
    bad.first_head = first;
    bad.head_count = count;
    EXPECT_THROW(head_importance_sweep(*model, dev, bad), InputError) << first << "+" << count;
  }
}

}  // namespace
}  // namespace attnscope
