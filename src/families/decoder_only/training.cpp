#include "families/decoder_only/training.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "families/decoder_only/backward.h"
#include "model/architecture_options.h"

namespace attnscope::train {
namespace {

class DecoderOnlyTrainable : public FamilyTrainable<DecoderOnlyParams, TrainableDecoderOnly, &loss_and_gradients> {
 public:
  using FamilyTrainable::FamilyTrainable;
  std::vector<std::uint8_t> export_bytes() override { return export_safetensors(model_); }
  const ModelConfig& shared_config() const override { return model_.params.shared; }
  void check_options(const LossOptions&) const override {}
  Example example(const std::vector<int>& source, const std::vector<int>& target) const override {
    const auto& s = model_.params.shared.special;
    Example e;
    e.tgt.push_back(s.bos);
    e.tgt.insert(e.tgt.end(), source.begin(), source.end());
    e.tgt.insert(e.tgt.end(), target.begin(), target.end());
    e.tgt.push_back(s.eos);
    return e;
  }
};

DecoderOnlyArchitecture decoder_only_architecture_of_options(const nlohmann::json& options) {
  DecoderOnlyArchitecture arch;
  read_option(options, "layers", arch.layers);
  read_option(options, "heads", arch.heads);
  read_option(options, "dModel", arch.d_model);
  read_option(options, "dFf", arch.d_ff);
  read_option(options, "activation", arch.activation);
  read_option(options, "norm", arch.norm);
  read_option(options, "positions", arch.positions);
  read_option(options, "tiedOutput", arch.tied_output);
  check_heads_share_width(arch.d_model, arch.heads);
  return arch;
}

}  // namespace

TrainableDecoderOnly fresh_decoder_only_model(const WordTextOf& words, const DecoderOnlyArchitecture& arch,
                                              std::uint64_t seed) {
  if (arch.layers < 1 || arch.heads < 1 || arch.d_model < 1 || arch.d_model % arch.heads != 0 || arch.d_ff < -1)
    throw InputError("architecture needs layers, heads, d_model >= 1 with d_model divisible by heads");
  const WordText w = words(/*joint=*/true);
  TrainableDecoderOnly m;
  m.text = w.text;
  // gpt.py's CONFIG_FIELDS order, then prepend_bos, as export.py writes the config.
  const nlohmann::ordered_json j = {
      {"architecture", "decoder_only"},
      {"d_model", arch.d_model},
      {"n_heads", arch.heads},
      {"d_ff", arch.d_ff < 0 ? 2 * arch.d_model : arch.d_ff},
      {"n_layers", arch.layers},
      {"activation", arch.activation},
      {"norm", arch.norm},
      {"positions", arch.positions},
      {"max_positions", std::max<int>(16, static_cast<int>(w.longest_pair) + 2)},
      {"embedding_scale", 1.0},
      {"tied_output", arch.tied_output},
      {"layer_norm_eps", 1e-5},
      {"special_tokens", {{"pad", 0}, {"unk", 1}, {"bos", 2}, {"eos", 3}}},
      // It learns <s> first (decoder_only::Trainable), so a prompt is read after <s>.
      {"prepend_bos", true}};
  ModelConfig shared;
  try {
    shared = ModelConfig::from_json(j.dump());
    shared.family_json = j.dump();
    m.params = fresh_decoder_only_params(shared, static_cast<int>(m.text.src_vocab.size()), seed);
  } catch (const ModelFileError& e) {
    throw InputError("decoder-only architecture: " + e.detail());
  }
  return m;
}

std::unique_ptr<Trainable> make_trainable(TrainableDecoderOnly model) {
  return std::make_unique<DecoderOnlyTrainable>(std::move(model));
}

}  // namespace attnscope::train

namespace attnscope::decoder_only {
namespace {

using Kind = ArchitectureOption::Kind;

const ArchitectureOption kOptions[] = {
    {"layers", "--layers", Kind::Integer},
    {"heads", "--heads", Kind::Integer},
    {"dModel", "--d-model", Kind::Integer},
    {"dFf", "--d-ff", Kind::Integer},
    {"activation", "--activation", Kind::Text},
    {"norm", "--norm", Kind::Text},
    {"positions", "--positions", Kind::Text},
    {"tiedOutput", "--untied", Kind::Boolean, /*flag_sets=*/false},
};

}  // namespace

// Olsson et al. 2022's two-layer attention-only model (docs/training.md, the induction-heads preset).
const TrainingPreset kPresets[] = {
    {"attention-only", "Attention-only transformer, 2 layers", /*has_heads=*/true, "dModel", "d_model", /*proposed_lr=*/0.003,
     R"({"family": "decoder_only", "layers": 2, "heads": 4, "dModel": 64, "dFf": 0})", "induction"},
};

const FamilyTraining kTraining = {
    [](const std::uint8_t* data, std::size_t size) { return train::make_trainable(train::decoder_only_from_bytes(data, size)); },
    [](const nlohmann::json& options, const train::WordTextOf& words, std::uint64_t seed) {
      return train::make_trainable(
          train::fresh_decoder_only_model(words, train::decoder_only_architecture_of_options(options), seed));
    },
    kOptions,
    std::size(kOptions),
    "the decoder-only model",
    "a decoder-only model",
    "      decoder_only (learns '<s> source target </s>'): --layers N (1)  --heads N (1)  --d-model N (64)\n"
    "           --d-ff N (2 d_model; 0 for attention-only layers)  --activation relu|gelu|gelu_tanh (gelu_tanh)\n"
    "           --norm pre|post (pre)  --positions learned|sinusoidal (learned)  --untied\n",
    kPresets,
    std::size(kPresets),
};

}  // namespace attnscope::decoder_only
