#include "families/rnn/training.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "families/rnn/backward.h"
#include "model/architecture_options.h"

namespace attnscope::train {
namespace {

class RnnTrainable : public FamilyTrainable<RnnParams, TrainableRnn, &loss_and_gradients> {
 public:
  using FamilyTrainable::FamilyTrainable;
  std::vector<std::uint8_t> export_bytes() override { return export_safetensors(model_); }
  const ModelConfig& shared_config() const override { return model_.params.shared; }
  void check_options(const LossOptions& options) const override { check_rnn_loss_options(options); }
};

RnnArchitecture rnn_architecture_of_options(const nlohmann::json& options) {
  RnnArchitecture arch;
  read_option(options, "layers", arch.layers);
  read_option(options, "cell", arch.cell);
  read_option(options, "attention", arch.attention);
  read_option(options, "score", arch.score);
  read_option(options, "dEmbed", arch.d_embed);
  read_option(options, "dHidden", arch.d_hidden);
  read_option(options, "dEncoder", arch.d_encoder);
  read_option(options, "dAttention", arch.d_attention);
  read_option(options, "bidirectional", arch.bidirectional);
  read_option(options, "inputFeeding", arch.input_feeding);
  read_option(options, "localWindow", arch.local_window);
  return arch;
}

}  // namespace

TrainableRnn fresh_rnn_model(const WordTextOf& words, const RnnArchitecture& arch, std::uint64_t seed) {
  const int directions = arch.bidirectional ? 2 : 1;
  if (arch.layers < 1 || arch.d_embed < 1 || arch.d_hidden < 1 || arch.d_encoder < 0 || arch.d_attention < 0 ||
      arch.local_window < 0)
    throw InputError("RNN architecture needs layers, dEmbed, dHidden >= 1 (dEncoder, dAttention, localWindow >= 0)");
  if (arch.d_encoder == 0 && arch.d_hidden % directions != 0)
    throw InputError("a bidirectional RNN's dHidden must be even when dEncoder is left to default (dHidden / 2)");
  const WordText w = words(/*joint=*/false);
  TrainableRnn m;
  m.text = w.text;
  const bool additive = arch.score == "additive" && arch.attention != "none";
  const nlohmann::json j = {
      {"architecture", "rnn"},
      {"cell", arch.cell},
      {"d_embed", arch.d_embed},
      {"d_encoder", arch.d_encoder ? arch.d_encoder : arch.d_hidden / directions},
      {"d_hidden", arch.d_hidden},
      {"n_encoder_layers", arch.layers},
      {"n_decoder_layers", arch.layers},
      {"bidirectional", arch.bidirectional},
      {"attention", arch.attention},
      {"score", arch.attention == "none" ? std::string("none") : arch.score},
      {"d_attention", additive ? (arch.d_attention ? arch.d_attention : arch.d_hidden) : arch.d_attention},
      {"input_feeding", arch.input_feeding},
      {"local_window", arch.local_window},
      {"max_positions", std::max<int>(16, static_cast<int>(w.longest) + 2)},
      {"shared_embeddings", false},
      {"src_append_eos", true},
      {"special_tokens", {{"pad", 0}, {"unk", 1}, {"bos", 2}, {"eos", 3}}}};
  ModelConfig shared;
  rnn::Config config;
  try {
    shared = ModelConfig::from_json(j.dump());
    config = rnn::Config::from_json(j.dump());
  } catch (const ModelFileError& e) {
    std::string why = e.what();  // the loader's words for a file; here they describe options
    const std::string file_prefix = "invalid model file: ";
    if (why.rfind(file_prefix, 0) == 0) why.erase(0, file_prefix.size());
    throw InputError("RNN architecture: " + why);
  }
  shared.family_json = j.dump();
  m.params = fresh_rnn_params(shared, static_cast<int>(m.text.src_vocab.size()),
                              static_cast<int>(m.text.tgt_vocab.size()), seed);
  m.params.shared.family_json = rnn_config_json(config, shared);  // what export writes: export.py's key order
  return m;
}

std::unique_ptr<Trainable> make_trainable(TrainableRnn model) { return std::make_unique<RnnTrainable>(std::move(model)); }

}  // namespace attnscope::train

namespace attnscope::rnn {
namespace {

using Kind = ArchitectureOption::Kind;

const ArchitectureOption kOptions[] = {
    {"layers", "--layers", Kind::Integer},
    {"cell", "--cell", Kind::Text},
    {"attention", "--attention", Kind::Text},
    {"score", "--score", Kind::Text},
    {"dEmbed", "--d-embed", Kind::Integer},
    {"dHidden", "--d-hidden", Kind::Integer},
    {"dEncoder", "--d-encoder", Kind::Integer},
    {"dAttention", "--d-attention", Kind::Integer},
    {"bidirectional", "--unidirectional", Kind::Boolean, /*flag_sets=*/false},
    {"inputFeeding", "--input-feeding", Kind::Boolean, /*flag_sets=*/true},
    {"localWindow", "--local-window", Kind::Integer},
};

// The toy RNNs' shape (models/README.md): a bidirectional GRU encoder, the width as the decoder's
// hidden size, gradients clipped at 1 as their training script does; no heads.
const TrainingPreset kPresets[] = {
    {"rnn-bahdanau", "RNN, Bahdanau attention", /*has_heads=*/false, "dHidden", "hidden size", /*proposed_lr=*/0.003,
     R"({"family": "rnn", "cell": "gru", "attention": "bahdanau", "score": "additive", "bidirectional": true, "clipNorm": 1})"},
    {"rnn-luong", "RNN, Luong attention", /*has_heads=*/false, "dHidden", "hidden size", /*proposed_lr=*/0.003,
     R"({"family": "rnn", "cell": "gru", "attention": "luong", "score": "dot", "bidirectional": true, "clipNorm": 1})"},
    {"rnn-none", "RNN, no attention", /*has_heads=*/false, "dHidden", "hidden size", /*proposed_lr=*/0.003,
     R"({"family": "rnn", "cell": "gru", "attention": "none", "score": "none", "bidirectional": true, "clipNorm": 1})"},
};

}  // namespace

const FamilyTraining kTraining = {
    [](const std::uint8_t* data, std::size_t size) { return train::make_trainable(train::trainable_rnn_from_bytes(data, size)); },
    [](const nlohmann::json& options, const train::WordTextOf& words, std::uint64_t seed) {
      return train::make_trainable(train::fresh_rnn_model(words, train::rnn_architecture_of_options(options), seed));
    },
    kOptions,
    std::size(kOptions),
    "the RNN",
    "an RNN",
    "      rnn: --layers N (1)  --cell gru|lstm (gru)  --attention bahdanau|luong|none (bahdanau)\n"
    "           --score additive|dot|scaled_dot|general|cosine|location (additive)  --d-embed N (32)\n"
    "           --d-hidden N (64)  --d-encoder N (d_hidden / directions)  --d-attention N (d_hidden)\n"
    "           --unidirectional  --input-feeding  --local-window N (0: global attention)\n",
    kPresets,
    std::size(kPresets),
};

}  // namespace attnscope::rnn
