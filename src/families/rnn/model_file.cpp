#include "families/rnn/model_file.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/random.h"
#include "io/safetensors.h"
#include "model/model.h"  // Model::load_bytes only: validation by the engine's loader

namespace attnscope::train {

TrainableRnn trainable_rnn_from_bytes(const std::uint8_t* data, std::size_t size) {
  const auto model = Model::load_bytes(data, size);  // throws ModelFileError on anything wrong
  return trainable_rnn_from(SafetensorsFile(data, size), *model);
}

TrainableRnn trainable_rnn_from(const SafetensorsFile& file, const Model& model) {
  if (model.config.architecture != "rnn")
    throw InputError("the model is a '" + model.config.architecture + "', not an RNN");
  const auto& meta = file.metadata();
  TrainableRnn out;
  out.text.tokenizer_json = meta.at("tokenizer");
  out.text.src_vocab = model.src_vocab.tokens();  // the loader's, already parsed and checked
  out.text.tgt_vocab = model.tgt_vocab.tokens();
  if (meta.count("name")) out.text.name = meta.at("name");
  if (meta.count("description")) out.text.description = meta.at("description");
  ModelConfig shared = ModelConfig::from_json(meta.at("config"));
  shared.family_json = meta.at("config");  // verbatim, so that export writes the same bytes
  out.params = RnnParams::zeros(shared, static_cast<int>(out.text.src_vocab.size()),
                                static_cast<int>(out.text.tgt_vocab.size()));
  for (auto& t : out.params.tensors()) {
    const std::vector<float> values = file.read_f32(t.name);  // shapes were checked by the loader
    *t.tensor = Eigen::Map<const Matrix>(values.data(), t.tensor->rows(), t.tensor->cols());
  }
  return out;
}

std::string rnn_config_json(const rnn::Config& c, const ModelConfig& m) {
  const char* cell = c.cell == rnn::Cell::GRU ? "gru" : "lstm";
  const char* style = c.style == rnn::Style::Bahdanau ? "bahdanau" : c.style == rnn::Style::Luong ? "luong" : "none";
  std::string score = "none";
  if (c.style != rnn::Style::None) switch (c.score) {
      case rnn::Score::Additive: score = "additive"; break;
      case rnn::Score::Dot: score = "dot"; break;
      case rnn::Score::ScaledDot: score = "scaled_dot"; break;
      case rnn::Score::General: score = "general"; break;
      case rnn::Score::Cosine: score = "cosine"; break;
      case rnn::Score::Location: score = "location"; break;
    }
  auto b = [](bool v) { return std::string(v ? "true" : "false"); };
  const auto& s = m.special;
  return std::string("{\"architecture\":\"rnn\",\"cell\":\"") + cell + "\",\"d_embed\":" + std::to_string(c.d_embed) +
         ",\"d_encoder\":" + std::to_string(c.d_encoder) + ",\"d_hidden\":" + std::to_string(c.d_hidden) +
         ",\"n_encoder_layers\":" + std::to_string(c.n_encoder_layers) +
         ",\"n_decoder_layers\":" + std::to_string(c.n_decoder_layers) + ",\"bidirectional\":" + b(c.bidirectional) +
         ",\"attention\":\"" + style + "\",\"score\":\"" + score + "\",\"d_attention\":" +
         std::to_string(c.d_attention) + ",\"input_feeding\":" + b(c.input_feeding) +
         ",\"local_window\":" + std::to_string(c.local_window) + ",\"max_positions\":" +
         std::to_string(m.max_positions) + ",\"shared_embeddings\":" + b(m.shared_embeddings) +
         ",\"src_append_eos\":" + b(m.src_append_eos) + ",\"special_tokens\":{\"pad\":" + std::to_string(s.pad) +
         ",\"unk\":" + std::to_string(s.unk) + ",\"bos\":" + std::to_string(s.bos) + ",\"eos\":" +
         std::to_string(s.eos) + "}}";
}

RnnParams fresh_rnn_params(const ModelConfig& shared, int src_vocab_size, int tgt_vocab_size, std::uint64_t seed) {
  RnnParams p = RnnParams::zeros(shared, src_vocab_size, tgt_vocab_size);
  Random random(seed);
  auto fill = [&](Eigen::Map<Matrix>& t, double bound) {
    for (Eigen::Index j = 0; j < t.size(); ++j) t.data()[j] = static_cast<float>(random.uniform(-bound, bound));
  };
  const double embed_std = 1.0 / std::sqrt(static_cast<double>(p.config.d_embed));
  for (NamedTensor& t : p.tensors()) {
    auto& m = *t.tensor;
    if (t.name == "src_embed.weight" || t.name == "tgt_embed.weight") {
      for (Eigen::Index j = 0; j < m.size(); ++j) m.data()[j] = static_cast<float>(random.normal(embed_std));
    } else if (t.name.rfind("encoder.rnn.", 0) == 0 || t.name.rfind("decoder.cells.", 0) == 0) {
      const int hidden = t.name[0] == 'e' ? p.config.d_encoder : p.config.d_hidden;
      fill(m, 1.0 / std::sqrt(static_cast<double>(hidden)));
    } else if (!t.vector) {  // a matrix [fan_out, fan_in]
      fill(m, std::sqrt(6.0 / static_cast<double>(m.rows() + m.cols())));
    } else {  // bridge.bias, output.bias: their weight has fan_in columns
      const Linear& layer = t.name == "bridge.bias" ? p.weights.bridge : p.weights.output;
      fill(m, 1.0 / std::sqrt(static_cast<double>(layer.weight.cols())));
    }
  }
  return p;
}

std::vector<std::uint8_t> export_safetensors(TrainableRnn& model) {
  return export_tensors(model.params.shared.family_json, model.params.tensors(), model.text);
}

}  // namespace attnscope::train
