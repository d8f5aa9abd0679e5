#include "families/transformer/model_file.h"

#include <cmath>

#include "core/error.h"
#include "core/random.h"
#include "io/safetensors.h"
#include "model/model.h"  // Model::load_bytes only: validation by the engine's loader

namespace attnscope::train {
namespace {

std::string py_bool(bool b) { return b ? "true" : "false"; }

}  // namespace

std::string config_json(const ModelConfig& c) {
  const auto& s = c.special;
  return "{\"d_model\":" + std::to_string(c.d_model) + ",\"n_heads\":" + std::to_string(c.n_heads) +
         ",\"d_ff\":" + std::to_string(c.d_ff) + ",\"n_encoder_layers\":" + std::to_string(c.n_encoder_layers) +
         ",\"n_decoder_layers\":" + std::to_string(c.n_decoder_layers) + ",\"activation\":" +
         (c.activation == Activation::ReLU ? "\"relu\"" : "\"gelu\"") + ",\"norm\":" +
         (c.norm == NormPosition::Post ? "\"post\"" : "\"pre\"") + ",\"positions\":" +
         (c.positions == Positions::Sinusoidal ? "\"sinusoidal\"" : "\"learned\"") +
         ",\"max_positions\":" + std::to_string(c.max_positions) + ",\"embedding_scale\":" +
         py_float(c.embedding_scale) + ",\"shared_embeddings\":" + py_bool(c.shared_embeddings) +
         ",\"tied_output\":" + py_bool(c.tied_output) + ",\"layer_norm_eps\":" + py_float(c.layer_norm_eps) +
         ",\"src_append_eos\":" + py_bool(c.src_append_eos) + ",\"special_tokens\":{\"pad\":" +
         std::to_string(s.pad) + ",\"unk\":" + std::to_string(s.unk) + ",\"bos\":" + std::to_string(s.bos) +
         ",\"eos\":" + std::to_string(s.eos) + "}}";
}

TrainableModel trainable_from_bytes(const std::uint8_t* data, std::size_t size) {
  const auto model = Model::load_bytes(data, size);  // throws ModelFileError on anything wrong
  const SafetensorsFile file(data, size);
  ModelText text = trainable_text(file, *model);
  const ModelConfig config = ModelConfig::from_json(file.metadata().at("config"));
  check_trainable(config);
  TransformerParams params = TransformerParams::zeros(config, static_cast<int>(model->src_vocab.size()),
                                                      static_cast<int>(model->tgt_vocab.size()));
  read_tensors(file, params.tensors());
  return {std::move(params), std::move(text)};
}

TransformerParams fresh_params(const ModelConfig& config, int src_vocab_size, int tgt_vocab_size, std::uint64_t seed) {
  check_trainable(config);
  TransformerParams p = TransformerParams::zeros(config, src_vocab_size, tgt_vocab_size);
  Random random(seed);
  const double embed_std = 1.0 / std::sqrt(static_cast<double>(config.d_model));
  auto tensors = p.tensors();
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const std::string& name = tensors[i].name;
    auto& t = *tensors[i].tensor;
    if (name == "src_embed.weight" || name == "tgt_embed.weight") {
      for (Eigen::Index j = 0; j < t.size(); ++j) t.data()[j] = static_cast<float>(random.normal(embed_std));
    } else if (!tensors[i].vector) {  // a matrix [fan_out, fan_in]
      const double bound = std::sqrt(6.0 / static_cast<double>(t.rows() + t.cols()));
      for (Eigen::Index j = 0; j < t.size(); ++j) t.data()[j] = static_cast<float>(random.uniform(-bound, bound));
    } else if (name.find("norm.weight") != std::string::npos) {
      t.setOnes();
    } else if (name == "output.bias" || name.find("norm.bias") != std::string::npos) {
      t.setZero();
    } else {  // a linear layer's bias: its weight, named alike, has fan_in columns
      const std::string weight = name.substr(0, name.size() - 4) + "weight";
      int fan_in = 1;
      for (const auto& w : tensors)
        if (w.name == weight) fan_in = static_cast<int>(w.tensor->cols());
      const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
      for (Eigen::Index j = 0; j < t.size(); ++j) t.data()[j] = static_cast<float>(random.uniform(-bound, bound));
    }
  }
  return p;
}

std::vector<std::uint8_t> export_safetensors(TransformerParams& params, const ModelText& text) {
  return export_tensors(config_json(params.config), params.tensors(), text);
}

}  // namespace attnscope::train
