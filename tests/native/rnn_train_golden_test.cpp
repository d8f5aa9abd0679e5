// The RNN family's training pass against PyTorch (tests/golden/rnn_train/<model>.json,
// models/goldens/make_rnn_train_goldens.py): the label-smoothed teacher-forced loss and every
// parameter's gradient on three pairs of unequal lengths, and the weights after 3 steps of Adam,
// Adam with L2 weight decay and AdamW (clipping, inverse-sqrt warmup), for every model of
// tests/golden/rnn/ (GRU and LSTM; Bahdanau, Luong with and without input feeding, no attention;
// every score, Luong's location score included; local-p; bidirectional and stacked) and one with
// shared embeddings.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "families/rnn/backward.h"
#include "families/rnn/model_file.h"
#include "io/safetensors.h"
#include "train/optimizer.h"
#include "train_golden_support.h"

namespace attnscope::train {
namespace {

using json = nlohmann::json;
using golden::close;
using golden::expect_tensor;

using testing::golden_path;
using testing::load_json;

std::vector<std::string> golden_names() { return testing::golden_json_names("rnn_train"); }

class RnnTrainGolden : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    g = load_json(golden_path("rnn_train/" + GetParam() + ".json"));
    const auto bytes = read_file_bytes(golden_path(g.at("model").get<std::string>()));
    model = trainable_rnn_from_bytes(bytes.data(), bytes.size());
    batch = golden::batch_of(g);
    options = golden::loss_options_of(g);
  }
  json g;
  TrainableRnn model;
  std::vector<Example> batch;
  LossOptions options;
};

TEST(RnnTrainGoldens, CoverEveryModelOfTheInferenceGoldens) {
  const std::vector<std::string> names = golden_names();
  std::size_t models = 0;
  for (const auto& entry : std::filesystem::directory_iterator(golden_path("rnn")))
    if (entry.path().extension() == ".safetensors") {
      ++models;
      const std::string stem = entry.path().stem().string();
      EXPECT_NE(std::find(names.begin(), names.end(), stem), names.end()) << stem << " has no training golden";
    }
  EXPECT_GE(models, 26u);
  for (const char* name : {"shared_lstm_bahdanau_general", "gru_luong_location_feed", "lstm_luong_location"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
}

TEST_P(RnnTrainGolden, LossAndEveryGradientMatchPyTorch) {
  golden::expect_loss_and_gradients(g, model.params, batch, options);
}

TEST_P(RnnTrainGolden, AdamStepsMatchPyTorch) {
  golden::expect_adam_steps(g, model.params, batch, options);
}

INSTANTIATE_TEST_SUITE_P(Models, RnnTrainGolden, ::testing::ValuesIn(golden_names()));

// export.py wrote the golden models; exporting what was read from them gives the same bytes.
TEST(RnnTrainExport, ReproducesExportPyByteForByte) {
  for (const std::string& name : golden_names()) {
    const json g = load_json(golden_path("rnn_train/" + name + ".json"));
    const auto bytes = read_file_bytes(golden_path(g.at("model").get<std::string>()));
    TrainableRnn m = trainable_rnn_from_bytes(bytes.data(), bytes.size());
    EXPECT_EQ(rnn_config_json(m.params.config, m.params.shared), m.params.shared.family_json) << name;
    const auto out = export_safetensors(m);
    EXPECT_TRUE(out == bytes) << name << ": exported " << out.size() << " bytes, file has " << bytes.size();
  }
}

TEST(RnnTrain, DropoutIsRefusedWithAMessage) {
  const auto bytes = read_file_bytes(golden_path("rnn/gru_none.safetensors"));
  TrainableRnn m = trainable_rnn_from_bytes(bytes.data(), bytes.size());
  RnnParams grads = m.params.zeros_like();
  Random random(1);
  LossOptions o;
  o.dropout = 0.1f;
  try {
    loss_and_gradients(m.params, {{{4, 5, 3}, {2, 4, 3}}}, o, &random, grads);
    FAIL() << "dropout was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("without dropout"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace attnscope::train
