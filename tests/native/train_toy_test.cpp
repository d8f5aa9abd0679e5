// Training natively end to end: a fresh toy model (models/train/train.py `train_toy`: 1 layer, 1 head,
// d_model 64) learns the 36-pair toy grammar to 36/36 exact greedy translations; its exported
// bytes load with Model::load_bytes and translate the same. Plus dropout's two promises.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <sstream>

#include "decoding/session.h"
#include "families/transformer/training.h"
#include "layers/blocks.h"
#include "model/model.h"
#include "train/options_json.h"
#include "train/trainer.h"

namespace attnscope::train {
namespace {

std::string toy_csv() {
  std::ifstream in(std::string(ATTNSCOPE_TEST_DATA_DIR) + "/toy/eng_de.csv");
  if (!in) throw std::runtime_error("cannot open tests/data/toy/eng_de.csv");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> translations(const std::shared_ptr<const Model>& model, const std::vector<TrainPair>& pairs) {
  std::vector<std::string> out;
  for (const TrainPair& p : pairs) {
    DecodeSession session(model, p.source, DecodeOptions{});
    session.run();
    out.push_back(session.detokenize(session.nbest().at(0).tokens));
  }
  return out;
}

TEST(TrainToy, FreshModelLearnsTheToyGrammarAndExportsIt) {
  const auto pairs = parse_pairs_csv(toy_csv());
  ASSERT_EQ(pairs.size(), 36u);
  Trainer trainer(make_trainable(fresh_model(word_text_of(pairs), Architecture{}, 1)), pairs, TrainOptions{});
  EpochReport r;
  double seconds = 0;
  const int max_epochs = 200;
  while (trainer.epochs_done() < max_epochs) {
    r = trainer.epoch();
    seconds += r.seconds;
    ASSERT_TRUE(std::isfinite(r.loss)) << "epoch " << r.epoch;
    if (r.exact == r.total) break;
  }
  std::cout << "[toy] 36/36 after " << r.epoch << " epochs, loss " << r.loss << ", " << seconds
            << " s of training natively (" << seconds / r.epoch * 1e3 << " ms per epoch)\n";
  ASSERT_EQ(r.exact, 36) << "after " << r.epoch << " epochs, loss " << r.loss;

  const auto bytes = trainer.export_bytes();
  const auto loaded = Model::load_bytes(bytes.data(), bytes.size());
  const auto got = translations(loaded, pairs);
  for (std::size_t i = 0; i < pairs.size(); ++i) EXPECT_EQ(got[i], pairs[i].target) << pairs[i].source;
  EXPECT_EQ(got, translations(trainer.model(), pairs));
}

TEST(TrainToy, SameSeedSameModel) {
  const auto pairs = parse_pairs_csv(toy_csv());
  TrainOptions o;
  o.dropout = 0.1f;
  Trainer a(make_trainable(fresh_model(word_text_of(pairs), Architecture{}, 7)), pairs, o),
      b(make_trainable(fresh_model(word_text_of(pairs), Architecture{}, 7)), pairs, o);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(a.epoch().loss, b.epoch().loss);
  EXPECT_TRUE(a.export_bytes() == b.export_bytes());
  Trainer c(make_trainable(fresh_model(word_text_of(pairs), Architecture{}, 8)), pairs, o);
  c.epoch();
  EXPECT_FALSE(a.export_bytes() == c.export_bytes());
}

TEST(TrainDropout, KeepsTheExpectationAndIsSeeded) {
  const Matrix x = Matrix::Constant(200, 100, 2.0f);
  Random r1(5), r2(5);
  Matrix m1, m2;
  const Matrix y1 = dropout_forward(x, 0.25f, &r1, m1), y2 = dropout_forward(x, 0.25f, &r2, m2);
  EXPECT_TRUE(y1 == y2);
  const double kept = (m1.array() != 0.0f).cast<double>().mean();
  EXPECT_NEAR(kept, 0.75, 0.01);                 // 20000 draws: sd 0.003
  EXPECT_NEAR(y1.mean(), 2.0, 0.03);             // inverted dropout keeps E[y] = x
  EXPECT_TRUE(((m1.array() == 0.0f) || (m1.array() == 1.0f / 0.75f)).all());
  EXPECT_TRUE(dropout_backward(Matrix::Ones(200, 100), m1) == m1);  // dy ∘ mask
  Matrix none;
  EXPECT_TRUE(dropout_forward(x, 0.0f, &r1, none) == x);
  EXPECT_EQ(none.size(), 0);
}

TEST(TrainPairs, BadCsvIsAnInputError) {
  EXPECT_THROW(parse_pairs_csv(""), InputError);
  EXPECT_THROW(parse_pairs_csv("a,b,c\n"), InputError);
  EXPECT_THROW(parse_pairs_csv("no comma\n"), InputError);
  EXPECT_EQ(parse_pairs_csv("a b,c d\r\n\n").size(), 1u);
}

// A width the heads cannot share is refused as the options name it (the JS trainer shows this message).
TEST(TrainOptions, DModelMustSplitOverTheHeads) {
  const auto pairs = parse_pairs_csv(toy_csv());
  auto message = [&](const std::string& json) -> std::string {
    try {
      const TrainSetup setup = train_setup_from_json(json);
      fresh_trainable(pairs, setup.family, setup.architecture, setup.options.seed);
    } catch (const InputError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_EQ(message(R"({"dModel": 10, "heads": 3})"), "dModel 10 must be divisible by heads 3");
  EXPECT_EQ(message(R"({"heads": 3})"), "dModel 64 must be divisible by heads 3");
  EXPECT_EQ(message(R"({"family": "decoder_only", "dModel": 10, "heads": 4})"), "dModel 10 must be divisible by heads 4");
  EXPECT_EQ(message(R"({"dModel": 12, "heads": 3})"), "(accepted)");
  EXPECT_EQ(message(R"({"family": "rnn", "dHidden": 10, "layers": 3})"), "(accepted)");
}

}  // namespace
}  // namespace attnscope::train
