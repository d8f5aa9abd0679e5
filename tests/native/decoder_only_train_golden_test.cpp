// The decoder-only training pass against PyTorch (tests/golden/decoder_only_train/<model>.json,
// models/goldens/make_decoder_only_train_goldens.py): the label-smoothed loss and every
// parameter's gradient on a padded batch of three sequences, and the weights after 3 steps of
// Adam, Adam with L2 weight decay and AdamW, for pre- and post-norm, learned and sinusoidal
// positions, tied and untied outputs, gelu_tanh, relu and an attention-only model. Then the
// export, and a fresh attention-only model trained from the options the bindings take.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "families/decoder_only/backward.h"
#include "families/decoder_only/training.h"
#include "io/safetensors.h"
#include "model/model.h"
#include "train/options_json.h"
#include "train/trainer.h"
#include "train_golden_support.h"

namespace attnscope::train {
namespace {

using testing::golden_path;
using testing::load_json;

class DecoderOnlyTrainGolden : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    g = load_json(golden_path("decoder_only_train/" + GetParam() + ".json"));
    const auto bytes = read_file_bytes(golden_path("decoder_only_train/" + g.at("model").get<std::string>()));
    model = decoder_only_from_bytes(bytes.data(), bytes.size());
    batch = golden::batch_of(g);
    options = golden::loss_options_of(g);
  }
  golden::json g;
  TrainableDecoderOnly model;
  std::vector<Example> batch;
  LossOptions options;
};

TEST_P(DecoderOnlyTrainGolden, LossAndEveryGradientMatchPyTorch) {
  golden::expect_loss_and_gradients(g, model.params, batch, options);
}

TEST_P(DecoderOnlyTrainGolden, AdamStepsMatchPyTorch) { golden::expect_adam_steps(g, model.params, batch, options); }

// gpt.py's export wrote the golden models (F32); exporting what was read gives the same bytes.
TEST_P(DecoderOnlyTrainGolden, ExportReproducesTheFileByteForByte) {
  const auto bytes = read_file_bytes(golden_path("decoder_only_train/" + g.at("model").get<std::string>()));
  EXPECT_TRUE(export_safetensors(model) == bytes);
}

INSTANTIATE_TEST_SUITE_P(Models, DecoderOnlyTrainGolden,
                         ::testing::Values("attention_only_gelu", "pre_learned_gelu_tanh", "post_sin_relu_untied"));

// What the Training panel's induction preset asks of the engine: a fresh 2-layer attention-only
// model from the bindings' options learns "<s> source target </s>" sequences. Here the target is
// the source's first word, two positions back: only attention can fetch it. A model without it
// can at best learn each position's word frequencies, 3·ln 3 / 4 = 0.824 per token (two words
// from three drawn, the copy, </s>); after training the greedy continuation of every source (its
// prompt) is its target.
TEST(DecoderOnlyTrain, FreshAttentionOnlyModelLearnsToCopyFromItsPrompt) {
  std::vector<TrainPair> pairs;
  for (const char* first : {"a", "b", "c"})
    for (const char* second : {"a", "b", "c"}) pairs.push_back({std::string(first) + " " + second, first});
  const TrainSetup setup = train_setup_from_json(
      R"({"family": "decoder_only", "layers": 2, "heads": 2, "dModel": 32, "dFf": 0, "lr": 0.003, "seed": 2})");
  Trainer trainer(fresh_trainable(pairs, setup.family, setup.architecture, setup.options.seed),
                  pairs, setup.options);
  EpochReport last = trainer.epoch();
  for (int e = 1; e < 300 && last.exact < last.total; ++e) last = trainer.epoch();
  EXPECT_EQ(last.exact, last.total);
  EXPECT_LT(last.loss, 3 * std::log(3.0) / 4 - 0.05);
  const auto bytes = trainer.export_bytes();
  const auto model = Model::load_bytes(bytes.data(), bytes.size());
  EXPECT_EQ(model->config.architecture, "decoder_only");
  const SafetensorsFile file(bytes.data(), bytes.size());
  EXPECT_NE(file.metadata().at("config").find("\"d_ff\":0,"), std::string::npos);
  for (const auto& [name, info] : file.tensors()) EXPECT_EQ(name.find("ffn"), std::string::npos) << name;
}

TEST(DecoderOnlyTrain, OptionsOfAnotherFamilyAreRefusedByName) {
  auto message = [](const std::string& json) {
    try {
      train_setup_from_json(json);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(R"({"norm": "post"})"),
            "training option 'norm' is the decoder-only model's: add \"family\": \"decoder_only\"");
  EXPECT_EQ(message(R"({"family": "decoder_only", "cell": "gru"})"),
            "training option 'cell' is the RNN's: add \"family\": \"rnn\"");
  const std::vector<TrainPair> pairs = {{"a", "b"}};
  DecoderOnlyArchitecture arch;
  arch.activation = "swish";
  EXPECT_THROW(fresh_decoder_only_model(word_text_of(pairs), arch, 1), InputError);
}

}  // namespace
}  // namespace attnscope::train
