// Greedy decoding reads the few log-probabilities it reports through the row's normaliser
// (ops::LogSoftmax) instead of writing out all of them: the numbers must be the very ones
// the whole vector holds.
#include <gtest/gtest.h>

#include "decoding/session.h"
#include "test_support.h"

namespace attnscope {
namespace {

TEST(SessionScores, AlternativesAndScoresEqualTheWholeLogSoftmax) {
  const auto model = Model::load_file(testing::golden_path("deep_pre_sin_bpe.safetensors"));
  DecodeOptions plain;
  plain.alternatives = 20;
  DecodeOptions with_logits = plain;
  with_logits.capture.logits = true;
  DecodeSession a(model, "i can eat an apple", plain), b(model, "i can eat an apple", with_logits);
  a.run();
  b.run();
  ASSERT_EQ(a.history().size(), b.history().size());
  for (std::size_t s = 0; s < a.history().size(); ++s) {
    const Expansion& ea = a.history()[s].expansions.at(0);
    const Expansion& eb = b.history()[s].expansions.at(0);
    ASSERT_EQ(ea.top.size(), eb.top.size());
    EXPECT_TRUE(ea.log_probs.empty());
    const Matrix logits = Eigen::Map<const Matrix>(eb.logits.data(), 1, static_cast<Eigen::Index>(eb.logits.size()));
    const Matrix whole = ops::log_softmax_rows(logits);
    for (std::size_t k = 0; k < ea.top.size(); ++k) {
      EXPECT_EQ(ea.top[k].token, eb.top[k].token);
      EXPECT_EQ(ea.top[k].log_prob, eb.log_probs[ea.top[k].token]) << "step " << s << " alternative " << k;
      EXPECT_EQ(ea.top[k].log_prob, whole(0, ea.top[k].token));
    }
  }
  EXPECT_EQ(a.nbest().at(0).score, b.nbest().at(0).score);
  EXPECT_EQ(a.nbest().at(0).tokens, b.nbest().at(0).tokens);
}

}  // namespace
}  // namespace attnscope
