#include "families/transformer/training.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "families/transformer/backward.h"
#include "model/architecture_options.h"

namespace attnscope::train {
namespace {

class TransformerTrainable : public FamilyTrainable<TransformerParams, TrainableModel, &loss_and_gradients> {
 public:
  using FamilyTrainable::FamilyTrainable;
  std::vector<std::uint8_t> export_bytes() override { return export_safetensors(model_.params, model_.text); }
  const ModelConfig& shared_config() const override { return model_.params.shared; }
  void check_options(const LossOptions&) const override {}
};

// A model file's limits (config_fields.h) hold for a trained model too: checked before the
// weights are allocated, not when the trained file is written and read back.
void check_config(const ModelConfig& shared, const transformer::Config& c) {
  try {
    const std::string text = c.to_json(shared);
    ModelConfig::from_json(text);
    transformer::Config::from_json(text);
  } catch (const ModelFileError& e) {
    throw InputError("architecture: " + e.detail());
  }
}

Architecture architecture_of_options(const nlohmann::json& options) {
  Architecture arch;
  read_option(options, "layers", arch.layers);
  read_option(options, "heads", arch.heads);
  read_option(options, "dModel", arch.d_model);
  read_option(options, "dFf", arch.d_ff);
  check_heads_share_width(arch.d_model, arch.heads);
  return arch;
}

}  // namespace

TrainableModel fresh_model(const WordTextOf& words, const Architecture& arch, std::uint64_t seed) {
  if (arch.layers < 1 || arch.heads < 1 || arch.d_model < 1 || arch.d_model % arch.heads != 0 || arch.d_ff < 0)
    throw InputError("architecture needs layers, heads, d_model >= 1 with d_model divisible by heads");
  const WordText w = words(/*joint=*/false);
  TrainableModel m;
  m.text = w.text;
  ModelConfig shared;
  shared.max_positions = std::max<int>(16, static_cast<int>(w.longest) + 2);
  transformer::Config c;
  c.d_model = arch.d_model;
  c.n_heads = arch.heads;
  c.d_ff = arch.d_ff ? arch.d_ff : 2 * arch.d_model;
  c.n_encoder_layers = c.n_decoder_layers = arch.layers;
  c.embedding_scale = std::sqrt(static_cast<double>(arch.d_model));
  check_config(shared, c);
  m.params = fresh_params(shared, c, static_cast<int>(m.text.src_vocab.size()), static_cast<int>(m.text.tgt_vocab.size()), seed);
  return m;
}

std::unique_ptr<Trainable> make_trainable(TrainableModel model) {
  return std::make_unique<TransformerTrainable>(std::move(model));
}

}  // namespace attnscope::train

namespace attnscope::transformer {
namespace {

using Kind = ArchitectureOption::Kind;

const ArchitectureOption kOptions[] = {
    {"layers", "--layers", Kind::Integer},
    {"heads", "--heads", Kind::Integer},
    {"dModel", "--d-model", Kind::Integer},
    {"dFf", "--d-ff", Kind::Integer},
};

// The toy transformer's recipe (models/README.md).
const TrainingPreset kPresets[] = {
    {"transformer", "Transformer", /*has_heads=*/true, "dModel", "d_model", /*proposed_lr=*/0.001, "{}"},
};

}  // namespace

const FamilyTraining kTraining = {
    [](const std::uint8_t* data, std::size_t size) { return train::make_trainable(train::trainable_from_bytes(data, size)); },
    [](const nlohmann::json& options, const train::WordTextOf& words, std::uint64_t seed) {
      return train::make_trainable(train::fresh_model(words, train::architecture_of_options(options), seed));
    },
    kOptions,
    std::size(kOptions),
    "the transformer",
    "a transformer",
    "      transformer: --layers N (1)  --heads N (1)  --d-model N (64)  --d-ff N (2 d_model)\n",
    kPresets,
    std::size(kPresets),
};

}  // namespace attnscope::transformer
