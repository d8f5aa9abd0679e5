// The training pass against PyTorch (tests/golden/train_*.json, models/goldens/make_train_goldens.py):
// the label-smoothed loss and every parameter's gradient on a padded batch of three pairs, and
// the weights after 3 steps of Adam, Adam with L2 weight decay and AdamW (clipping, inverse-sqrt
// warmup), for the four golden models.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "families/transformer/backward.h"
#include "families/transformer/model_file.h"
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

class TrainGolden : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    g = load_json(golden_path("train_" + GetParam() + ".json"));
    const auto bytes = read_file_bytes(golden_path(g.at("model").get<std::string>()));
    model = trainable_from_bytes(bytes.data(), bytes.size());
    batch = golden::batch_of(g);
    options = golden::loss_options_of(g);
  }
  json g;
  TrainableModel model;
  std::vector<Example> batch;
  LossOptions options;
};

TEST_P(TrainGolden, LossAndEveryGradientMatchPyTorch) {
  golden::expect_loss_and_gradients(g, model.params, batch, options);
}

TEST_P(TrainGolden, AdamStepsMatchPyTorch) {
  golden::expect_adam_steps(g, model.params, batch, options);
}

INSTANTIATE_TEST_SUITE_P(Models, TrainGolden,
                         ::testing::Values("tiny_post_sin", "small_pre_learned", "deep_post_learned_f16",
                                           "deep_pre_sin_bpe"));

TEST(TrainSchedule, InverseSqrtIsModelsTrainPy) {
  const Schedule s{Schedule::Kind::InverseSqrt, 4};
  EXPECT_DOUBLE_EQ(s.factor(0), 0.25);  // LambdaLR: the first update uses lambda(0) = lambda(1)
  EXPECT_DOUBLE_EQ(s.factor(1), 0.25);
  EXPECT_DOUBLE_EQ(s.factor(4), 1.0);
  EXPECT_DOUBLE_EQ(s.factor(16), 0.5);
  EXPECT_DOUBLE_EQ(Schedule{}.factor(7), 1.0);
}

// export.py wrote the F32 golden models; exporting what was read from them gives the same bytes.
TEST(TrainExport, ReproducesExportPyByteForByte) {
  for (const char* name : {"tiny_post_sin", "small_pre_learned", "deep_pre_sin_bpe"}) {
    const auto bytes = read_file_bytes(golden_path(std::string(name) + ".safetensors"));
    TrainableModel m = trainable_from_bytes(bytes.data(), bytes.size());
    const auto out = export_safetensors(m.params, m.text);
    EXPECT_TRUE(out == bytes) << name << ": exported " << out.size() << " bytes, file has " << bytes.size();
  }
}

}  // namespace
}  // namespace attnscope::train
