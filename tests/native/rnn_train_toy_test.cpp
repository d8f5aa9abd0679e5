// Training the RNN family natively end to end through the trainer's seam (model/trainable.h):
// fresh RNNs (GRU Bahdanau additive, the defaults; LSTM Luong general with input feeding; no
// attention) learn the 36-pair toy grammar to 36/36 exact greedy translations with a fixed
// seed; the exported bytes load with Model::load_bytes as an RNN and translate the same; a file
// continues training through trainable_from_bytes_any; bad RNN options are InputErrors.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "decoding/session.h"
#include "families/rnn/training.h"
#include "model/model.h"
#include "train/options_json.h"
#include "train/trainable.h"
#include "train/trainer.h"

namespace attnscope::train {
namespace {

std::vector<TrainPair> toy_pairs() {
  std::ifstream in(std::string(ATTNSCOPE_TEST_DATA_DIR) + "/toy/eng_de.csv");
  if (!in) throw std::runtime_error("cannot open tests/data/toy/eng_de.csv");
  std::stringstream s;
  s << in.rdbuf();
  return parse_pairs_csv(s.str());
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

// Trains until 36/36 (at most `max_epochs`); returns the epochs it took.
int train_to_exact(Trainer& trainer, int max_epochs) {
  EpochReport r;
  while (trainer.epochs_done() < max_epochs) {
    r = trainer.epoch();
    EXPECT_TRUE(std::isfinite(r.loss)) << "epoch " << r.epoch;
    if (r.exact == r.total) break;
  }
  EXPECT_EQ(r.exact, 36) << "after " << r.epoch << " epochs, loss " << r.loss;
  return r.epoch;
}

class RnnTrainToy : public ::testing::TestWithParam<std::string> {};

TEST_P(RnnTrainToy, FreshRnnLearnsTheToyGrammarAndExportsIt) {
  const auto pairs = toy_pairs();
  ASSERT_EQ(pairs.size(), 36u);
  const TrainSetup setup = train_setup_from_json(GetParam());
  ASSERT_EQ(setup.family, "rnn");
  Trainer trainer(fresh_trainable(pairs, setup.family, setup.architecture, setup.options.seed), pairs,
                  setup.options);
  const int epochs = train_to_exact(trainer, 60);
  std::cout << "[rnn toy] " << GetParam() << ": 36/36 after " << epochs << " epochs\n";

  const auto bytes = trainer.export_bytes();
  const auto loaded = Model::load_bytes(bytes.data(), bytes.size());
  EXPECT_EQ(loaded->config.architecture, "rnn");
  const auto got = translations(loaded, pairs);
  for (std::size_t i = 0; i < pairs.size(); ++i) EXPECT_EQ(got[i], pairs[i].target) << pairs[i].source;
  EXPECT_EQ(got, translations(trainer.model(), pairs));
}

INSTANTIATE_TEST_SUITE_P(Configs, RnnTrainToy,
                         ::testing::Values(R"({"family": "rnn", "seed": 1})",
                                           R"({"family": "rnn", "cell": "lstm", "attention": "luong",
                                               "score": "general", "inputFeeding": true, "seed": 1})",
                                           R"({"family": "rnn", "attention": "none", "seed": 1})"));

TEST(RnnTrain, SameSeedSameModelAndAFileContinues) {
  const auto pairs = toy_pairs();
  Trainer a(make_trainable(fresh_rnn_model(word_text_of(pairs), RnnArchitecture{}, 3)), pairs, TrainOptions{});
  Trainer b(make_trainable(fresh_rnn_model(word_text_of(pairs), RnnArchitecture{}, 3)), pairs, TrainOptions{});
  for (int i = 0; i < 2; ++i) EXPECT_EQ(a.epoch().loss, b.epoch().loss);
  const auto bytes = a.export_bytes();
  EXPECT_TRUE(bytes == b.export_bytes());

  // Continuing from the file takes the same step as continuing in memory (fresh Adam aside:
  // both continue with a new trainer, so both start a new Adam).
  Trainer from_file(trainable_from_bytes_any(bytes.data(), bytes.size()), pairs, TrainOptions{});
  Trainer in_memory(trainable_from_bytes_any(bytes.data(), bytes.size()), pairs, TrainOptions{});
  EXPECT_EQ(from_file.epoch().loss, in_memory.epoch().loss);
  EXPECT_TRUE(from_file.export_bytes() == in_memory.export_bytes());
  EXPECT_FALSE(from_file.export_bytes() == bytes);
}

TEST(RnnTrain, BadOptionsAreInputErrors) {
  const auto pairs = toy_pairs();
  auto message = [&](const std::string& json) -> std::string {
    try {
      const TrainSetup s = train_setup_from_json(json);
      fresh_trainable(pairs, s.family, s.architecture, s.options.seed);
    } catch (const InputError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_EQ(message(R"({"family": "rnn", "heads": 2})"), "training option 'heads' is the transformer's: an RNN has none");
  EXPECT_EQ(message(R"({"cell": "lstm"})"), "training option 'cell' is the RNN's: add \"family\": \"rnn\"");
  EXPECT_EQ(message(R"({"family": "cnn"})"),
            "training option 'family' must be \"transformer\", \"rnn\" or \"decoder_only\", got \"cnn\"");
  EXPECT_EQ(message(R"({"family": "rnn", "bidirectional": 1})"), "training option 'bidirectional' must be true or false, got 1");
  EXPECT_NE(message(R"({"family": "rnn", "cell": "rnn"})").find("RNN architecture: config field 'cell' must be one of"),
            std::string::npos);
  EXPECT_NE(message(R"({"family": "rnn", "score": "dot", "dEncoder": 16})").find("must be equal"), std::string::npos);
  EXPECT_NE(message(R"({"family": "rnn", "inputFeeding": true})").find("input_feeding"), std::string::npos);
  TrainOptions dropout;
  dropout.dropout = 0.1f;
  EXPECT_THROW(Trainer(make_trainable(fresh_rnn_model(word_text_of(pairs), RnnArchitecture{}, 1)), pairs, dropout), InputError);
}

}  // namespace
}  // namespace attnscope::train
