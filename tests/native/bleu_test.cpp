// The C++ corpus BLEU (src/analysis/bleu.h) against models/evaluation/bleu.py, the sacreBLEU port, through
// goldens written by models/goldens/make_bleu_goldens.py.
#include "analysis/bleu.h"

#include "core/error.h"
#include "test_support.h"

namespace attnscope {
namespace {

const testing::json& goldens() {
  static const testing::json j = testing::load_json(testing::golden_path("bleu.json"));
  return j;
}

TEST(Bleu, Tokenize13aMatchesSacreBleuPort) {
  for (const auto& c : goldens()["tokenize_13a"])
    EXPECT_EQ(tokenize_13a(c["line"].get<std::string>()), c["tokens"].get<std::string>()) << c["line"];
}

TEST(Bleu, CorpusBleuMatchesSacreBleuPort) {
  for (const auto& c : goldens()["corpus_bleu"]) {
    const Bleu b = corpus_bleu(c["hypotheses"].get<std::vector<std::string>>(),
                               c["references"].get<std::vector<std::string>>());
    EXPECT_NEAR(b.score, c["score"].get<double>(), 1e-9) << c["hypotheses"].dump();
    EXPECT_NEAR(b.brevity_penalty, c["bp"].get<double>(), 1e-12);
    EXPECT_EQ(b.hyp_len, c["hyp_len"].get<long>());
    EXPECT_EQ(b.ref_len, c["ref_len"].get<long>());
    for (int n = 0; n < 4; ++n) EXPECT_NEAR(b.precisions[n], c["precisions"][n].get<double>(), 1e-9);
  }
}

TEST(Bleu, MismatchedListsAreAnError) {
  EXPECT_THROW(corpus_bleu({"a"}, {}), InputError);
}

}  // namespace
}  // namespace attnscope
