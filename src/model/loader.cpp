// Turns a validated safetensors container into a Model, checking every tensor against the
// config so that a wrong file fails here, with a name, rather than later inside a matmul.
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "io/safetensors.h"
#include "model/model.h"

namespace attnscope {
namespace {

using json = nlohmann::json;

class WeightReader {
 public:
  explicit WeightReader(const SafetensorsFile& file) : file_(file) {}

  Matrix matrix(const std::string& name, int rows, int cols) {
    return Eigen::Map<const Matrix>(load(name, {rows, cols}).data(), rows, cols);
  }
  RowVector vector(const std::string& name, int size) {
    return Eigen::Map<const RowVector>(load(name, {size}).data(), size);
  }
  Linear linear(const std::string& name, int out, int in) {
    return Linear{matrix(name + ".weight", out, in), vector(name + ".bias", out), {}};
  }
  LayerNorm layer_norm(const std::string& name, int d, float eps) {
    return LayerNorm{vector(name + ".weight", d), vector(name + ".bias", d), eps};
  }
  MultiHeadAttention attention(const std::string& name, const ModelConfig& c) {
    const int d = c.d_model;
    return MultiHeadAttention{linear(name + ".q_proj", d, d), linear(name + ".k_proj", d, d),
                              linear(name + ".v_proj", d, d), linear(name + ".out_proj", d, d), c.n_heads};
  }
  FeedForward ffn(const std::string& name, const ModelConfig& c) {
    return FeedForward{linear(name + ".fc1", c.d_ff, c.d_model), linear(name + ".fc2", c.d_model, c.d_ff),
                       c.activation};
  }

  // Every tensor in the file must have been asked for: a stray one means the file was made
  // for a different architecture than its config describes.
  void check_all_used() const {
    for (const auto& [name, info] : file_.tensors())
      if (!used_.count(name)) throw ModelFileError("unexpected tensor '" + name + "' (not used by this config)");
  }

 private:
  std::vector<float> load(const std::string& name, const std::vector<int>& shape) {
    const TensorInfo& info = file_.info(name);  // throws "missing tensor"
    std::vector<std::int64_t> expected(shape.begin(), shape.end());
    if (info.shape != expected) {
      auto str = [](const auto& s) {
        std::string out = "[";
        for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
        return out + "]";
      };
      throw ModelFileError("tensor '" + name + "' has shape " + str(info.shape) + ", expected " + str(expected));
    }
    std::vector<float> values = file_.read_f32(name);
    for (std::size_t i = 0; i < values.size(); ++i)
      if (!std::isfinite(values[i]))
        throw ModelFileError("tensor '" + name + "' contains " + (std::isnan(values[i]) ? "NaN" : "Inf") +
                             " at flat index " + std::to_string(i));
    used_.insert(name);
    return values;
  }

  const SafetensorsFile& file_;
  std::set<std::string> used_;
};

std::vector<std::string> parse_vocab(const std::map<std::string, std::string>& meta, const std::string& key) {
  auto it = meta.find(key);
  if (it == meta.end()) throw ModelFileError("metadata '" + key + "' is missing");
  json j;
  try {
    j = json::parse(it->second);
  } catch (const json::exception& e) {
    throw ModelFileError("metadata '" + key + "' is not valid JSON: " + e.what());
  }
  if (!j.is_array() || j.empty()) throw ModelFileError("metadata '" + key + "' must be a non-empty JSON array");
  std::vector<std::string> tokens;
  for (const json& t : j) {
    if (!t.is_string()) throw ModelFileError("metadata '" + key + "' must contain only strings");
    tokens.push_back(t.get<std::string>());
  }
  return tokens;
}

const std::string& required(const std::map<std::string, std::string>& meta, const std::string& key) {
  auto it = meta.find(key);
  if (it == meta.end()) throw ModelFileError("metadata '" + key + "' is missing");
  return it->second;
}

void check_special_tokens(const ModelConfig& c, const Vocabulary& vocab, const std::string& side) {
  for (auto [name, id] : {std::pair<const char*, int>{"pad", c.special.pad}, {"unk", c.special.unk},
                          {"bos", c.special.bos}, {"eos", c.special.eos}})
    if (id >= vocab.size())
      throw ModelFileError(std::string("special token '") + name + "' id " + std::to_string(id) + " is outside the " +
                           side + " vocabulary of " + std::to_string(vocab.size()));
}

std::shared_ptr<const Model> build(const SafetensorsFile& file, const Model::LoadOptions& options) {
  auto model = std::make_shared<Model>();
  Model& m = *model;
  m.metadata = file.metadata();
  if (required(m.metadata, "format") != "attnscope")
    throw ModelFileError("metadata 'format' is '" + m.metadata["format"] + "', expected 'attnscope'");
  if (required(m.metadata, "format_version") != "1")
    throw ModelFileError("format_version '" + m.metadata["format_version"] + "' is not supported (this engine reads 1)");

  m.config = ModelConfig::from_json(required(m.metadata, "config"));
  const ModelConfig& c = m.config;
  m.tokenizer = Tokenizer::from_json(required(m.metadata, "tokenizer"));
  m.src_vocab = Vocabulary(parse_vocab(m.metadata, "src_vocab"));
  m.tgt_vocab = Vocabulary(parse_vocab(m.metadata, "tgt_vocab"));
  if (c.shared_embeddings && m.src_vocab.tokens() != m.tgt_vocab.tokens())
    throw ModelFileError("shared_embeddings needs src_vocab and tgt_vocab to be identical");
  check_special_tokens(c, m.src_vocab, "source");
  check_special_tokens(c, m.tgt_vocab, "target");

  const int d = c.d_model;
  WeightReader w(file);
  m.src_embed = w.matrix("src_embed.weight", m.src_vocab.size(), d);
  if (!c.shared_embeddings) m.tgt_embed_ = w.matrix("tgt_embed.weight", m.tgt_vocab.size(), d);
  if (c.positions == Positions::Learned) {
    m.encoder_positions = w.matrix("encoder.pos_embed.weight", c.max_positions, d);
    m.decoder_positions = w.matrix("decoder.pos_embed.weight", c.max_positions, d);
  } else {
    m.encoder_positions = m.decoder_positions = sinusoidal_positions(c.max_positions, d);
  }

  for (int i = 0; i < c.n_encoder_layers; ++i) {
    const std::string p = "encoder.layers." + std::to_string(i) + ".";
    m.encoder_layers.push_back(EncoderLayer{w.attention(p + "self_attn", c),
                                            w.layer_norm(p + "self_attn_norm", d, static_cast<float>(c.layer_norm_eps)),
                                            w.ffn(p + "ffn", c), w.layer_norm(p + "ffn_norm", d, static_cast<float>(c.layer_norm_eps)),
                                            c.norm});
  }
  for (int i = 0; i < c.n_decoder_layers; ++i) {
    const std::string p = "decoder.layers." + std::to_string(i) + ".";
    m.decoder_layers.push_back(DecoderLayer{
        w.attention(p + "self_attn", c), w.layer_norm(p + "self_attn_norm", d, static_cast<float>(c.layer_norm_eps)),
        w.attention(p + "cross_attn", c), w.layer_norm(p + "cross_attn_norm", d, static_cast<float>(c.layer_norm_eps)),
        w.ffn(p + "ffn", c), w.layer_norm(p + "ffn_norm", d, static_cast<float>(c.layer_norm_eps)), c.norm});
  }
  if (c.norm == NormPosition::Pre) {
    m.encoder_final_norm = w.layer_norm("encoder.final_norm", d, static_cast<float>(c.layer_norm_eps));
    m.decoder_final_norm = w.layer_norm("decoder.final_norm", d, static_cast<float>(c.layer_norm_eps));
  }
  if (!c.tied_output) m.output_weight_ = w.matrix("output.weight", m.tgt_vocab.size(), d);
  m.output_bias = w.vector("output.bias", m.tgt_vocab.size());
  w.check_all_used();

  // A decoder step multiplies one row by each of these, streaming megabytes of weights for few
  // FLOPs; the kernel reads them faster rearranged, and in half the bytes when they are binary16
  // values, as an F16 file's are (ops/gemm_simd.h; same results either way), or, if asked, in
  // int8 (ops/gemm_int8.h; approximate). The cost is a second copy: 8 MB for Multi30k in
  // binary16 (16 MB from an F32 file, 4 MB in int8). The encoder's products, many rows at a
  // time, do not need it.
  m.int8 = options.int8;
  for (DecoderLayer& layer : m.decoder_layers)
    for (Linear* l : {&layer.self_attn.q_proj, &layer.self_attn.k_proj, &layer.self_attn.v_proj,
                      &layer.self_attn.out_proj, &layer.cross_attn.q_proj, &layer.cross_attn.out_proj, &layer.ffn.fc1,
                      &layer.ffn.fc2})
      l->prepare_for_steps(options.int8);
  m.output_step = ops::StepWeights::build(m.output_weight(), options.int8);
  return model;
}

}  // namespace

Matrix sinusoidal_positions(int positions, int d) {
  Matrix pe(positions, d);
  for (int p = 0; p < positions; ++p) {
    for (int i = 0; 2 * i < d; ++i) {
      const double angle = p / std::pow(10000.0, (2.0 * i) / d);
      pe(p, 2 * i) = static_cast<float>(std::sin(angle));
      if (2 * i + 1 < d) pe(p, 2 * i + 1) = static_cast<float>(std::cos(angle));
    }
  }
  return pe;
}

std::shared_ptr<const Model> Model::load_bytes(const std::uint8_t* data, std::size_t size, const LoadOptions& options) {
  return build(SafetensorsFile(data, size), options);
}

std::shared_ptr<const Model> Model::load_file(const std::string& path, const LoadOptions& options) {
  const std::vector<std::uint8_t> bytes = read_file_bytes(path);
  try {
    return load_bytes(bytes.data(), bytes.size(), options);
  } catch (const ModelFileError& e) {
    throw ModelFileError("'" + path + "': " + e.detail());
  }
}

}  // namespace attnscope
