#include "families/decoder_only/model_file.h"

#include "core/error.h"
#include "core/random.h"
#include "io/safetensors.h"
#include "model/model.h"  // Model::load_bytes only: validation by the engine's loader

namespace attnscope::train {

namespace {

DecoderOnlyParams params_from(const SafetensorsFile& file, const Model& model) {
  if (model.config.architecture != "decoder_only")
    throw InputError("the model is a '" + model.config.architecture + "', not a decoder-only model");
  ModelConfig shared = ModelConfig::from_json(file.metadata().at("config"));
  shared.family_json = file.metadata().at("config");  // verbatim, so that export writes the same bytes
  DecoderOnlyParams params = DecoderOnlyParams::zeros(shared, model.src_vocab.size());
  read_tensors(file, params.tensors());
  return params;
}

}  // namespace

TrainableDecoderOnly decoder_only_from_bytes(const std::uint8_t* data, std::size_t size) {
  const auto model = Model::load_bytes(data, size);  // throws ModelFileError on anything wrong
  const SafetensorsFile file(data, size);
  ModelText text = trainable_text(file, *model);
  return {params_from(file, *model), std::move(text)};
}

DecoderOnlyParams fresh_decoder_only_params(const ModelConfig& shared, int vocab_size, std::uint64_t seed) {
  DecoderOnlyParams p = DecoderOnlyParams::zeros(shared, vocab_size);
  Random random(seed);
  for (NamedTensor& t : p.tensors()) {
    auto& m = *t.tensor;
    if (!t.vector) {
      for (Eigen::Index j = 0; j < m.size(); ++j) m.data()[j] = static_cast<float>(random.normal(0.02));
    } else if (t.name.size() > 11 && t.name.compare(t.name.size() - 11, 11, "norm.weight") == 0) {
      m.setOnes();
    }  // every other vector stays 0
  }
  return p;
}

std::vector<std::uint8_t> export_safetensors(TrainableDecoderOnly& model) {
  return export_tensors(model.params.shared.family_json, model.params.tensors(), model.text);
}

}  // namespace attnscope::train
