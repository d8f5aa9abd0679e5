// Turns a validated safetensors container into a Model: the family-neutral parts here (config,
// tokenizer, vocabularies), the weights by the family that config.architecture names.
#include <cmath>

#include "core/json.h"
#include "core/quote.h"

#include "io/safetensors.h"
#include "model/model.h"
#include "model/registry.h"
#include "text/table_limits.h"

namespace attnscope {
namespace {

using json = nlohmann::json;

std::vector<std::string> parse_vocab(const std::map<std::string, std::string>& meta, const std::string& key) {
  auto it = meta.find(key);
  if (it == meta.end()) throw ModelFileError("metadata '" + key + "' is missing");
  // The table's size is checked by the scan before the parser builds anything.
  const json j = parse_json(it->second, "metadata '" + key + "'", JsonSource::ModelFile, false, kMaxVocabulary);
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
    throw ModelFileError("metadata 'format' is " + quote(m.metadata["format"]) + ", expected 'attnscope'");
  if (required(m.metadata, "format_version") != "1")
    throw ModelFileError("format_version " + quote(m.metadata["format_version"]) + " is not supported (this engine reads 1)");

  m.config = ModelConfig::from_json(required(m.metadata, "config"));
  const ModelConfig& c = m.config;
  m.src_vocab = Vocabulary(parse_vocab(m.metadata, "src_vocab"));
  m.tgt_vocab = Vocabulary(parse_vocab(m.metadata, "tgt_vocab"));
  m.tokenizer = Tokenizer::from_json(required(m.metadata, "tokenizer"), m.src_vocab);
  if (auto it = m.metadata.find("tgt_tokenizer"); it != m.metadata.end()) {
    try {
      m.tgt_tokenizer = Tokenizer::from_json(it->second, m.tgt_vocab);
    } catch (const ModelFileError& e) {
      throw ModelFileError("metadata 'tgt_tokenizer': " + e.detail());
    }
  } else {
    m.tgt_tokenizer = m.tokenizer;
  }
  if (auto it = m.metadata.find("generation"); it != m.metadata.end())
    m.generation = GenerationDefaults::from_json(it->second);
  if (c.shared_embeddings && m.src_vocab.tokens() != m.tgt_vocab.tokens())
    throw ModelFileError("shared_embeddings needs src_vocab and tgt_vocab to be identical");
  check_special_tokens(c, m.src_vocab, "source");
  check_special_tokens(c, m.tgt_vocab, "target");
  for (int id : c.suppress_tokens)
    if (id >= m.tgt_vocab.size())
      throw ModelFileError("config field 'suppress_tokens' holds id " + std::to_string(id) +
                           ", outside the target vocabulary of " + std::to_string(m.tgt_vocab.size()));

  WeightReader weights(file, options.binary16);
  m.family = family_loader(c.architecture)(m, weights, options);
  weights.check_all_used();
  m.int8 = options.int8;
  m.binary16 = m.bfloat16 = false;
  for (const auto& [name, info] : file.tensors()) {
    m.binary16 = m.binary16 || weights.held_format(name) == ops::simd::HalfFormat::Binary16;
    m.bfloat16 = m.bfloat16 || weights.held_format(name) == ops::simd::HalfFormat::Bfloat16;
  }
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

Matrix sinusoidal_halves_positions(int positions, int d) {
  Matrix pe(positions, d);
  const int half = d / 2;
  for (int p = 0; p < positions; ++p) {
    for (int i = 0; i < half; ++i) {
      const double angle = p / std::pow(10000.0, (2.0 * i) / d);
      pe(p, i) = static_cast<float>(std::sin(angle));
      pe(p, half + i) = static_cast<float>(std::cos(angle));
    }
  }
  return pe;
}

const Decoder& Model::decoder() const {
  const Decoder* d = family->decoder();
  if (!d) throw Error("this model (architecture '" + config.architecture + "') has no decoder: it cannot translate");
  return *d;
}

std::shared_ptr<const Model> Model::load_bytes(const std::uint8_t* data, std::size_t size, const LoadOptions& options) {
  return build(SafetensorsFile(data, size), options);
}

std::shared_ptr<const Model> Model::load(std::shared_ptr<const ByteSource> source, const LoadOptions& options) {
  return build(SafetensorsFile(std::move(source)), options);
}

std::shared_ptr<const Model> Model::load_file(const std::string& path, const LoadOptions& options) {
  const std::string name = "'" + printable(path) + "'";
  try {
    try {
      // The header first: a file that is no model, or not the size its header promises, is refused
      // before its bulk is read; then each tensor is read into its place, never the whole file.
      return load(std::make_shared<FileBytes>(path), options);
    } catch (const ModelFileError& e) {
      throw ModelFileError(name + ": " + e.detail());
    }
  } catch (const std::bad_alloc&) {
    // What a load allocates is bounded by the file's size (WeightReader checks a tensor before
    // allocating it; derived tables are bounded too): a file this machine cannot hold.
    throw Error("cannot load model file " + name + ": not enough memory");
  }
}

}  // namespace attnscope
