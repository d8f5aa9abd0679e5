#include "families/transformer/model_file.h"

#include <cmath>

#include "core/error.h"
#include "core/random.h"
#include "io/safetensors.h"
#include "model/model.h"  // Model::load_bytes only: validation by the engine's loader

namespace attnscope::train {

TrainableModel trainable_from_bytes(const std::uint8_t* data, std::size_t size) {
  const auto model = Model::load_bytes(data, size);  // throws ModelFileError on anything wrong
  const SafetensorsFile file(data, size);
  ModelText text = trainable_text(file, *model);
  const ModelConfig& shared = model->config;
  const transformer::Config config = transformer::Config::from_json(shared.family_json);
  check_trainable(shared, config);
  TransformerParams params = TransformerParams::zeros(shared, config, static_cast<int>(model->src_vocab.size()),
                                                      static_cast<int>(model->tgt_vocab.size()));
  read_tensors(file, params.tensors());
  return {std::move(params), std::move(text)};
}

TransformerParams fresh_params(const ModelConfig& shared, const transformer::Config& config, int src_vocab_size,
                               int tgt_vocab_size, std::uint64_t seed) {
  check_trainable(shared, config);
  TransformerParams p = TransformerParams::zeros(shared, config, src_vocab_size, tgt_vocab_size);
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
  return export_tensors(params.config.to_json(params.shared), params.tensors(), text);
}

}  // namespace attnscope::train
