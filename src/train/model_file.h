#pragma once
// Trainable parameters <-> model files (models/FORMAT.md): start from a file's bytes or from
// fresh weights, and export .safetensors bytes as models/reference/attnscope_ref/export.py writes them
// (same header JSON, same tensor order, F32), which Model::load_bytes and the CLI read.
#include <cstdint>
#include <string>
#include <vector>

#include "train/parameters.h"

namespace attnscope {
class SafetensorsFile;
struct Model;
}

namespace attnscope::train {

// Everything a model file holds besides the config and the weights.
struct ModelText {
  std::string tokenizer_json;               // the `tokenizer` metadata value, kept verbatim
  std::vector<std::string> src_vocab, tgt_vocab;
  std::string name, description;            // optional (empty: not written)
};

struct TrainableModel {
  TransformerParams params;
  ModelText text;
};

// Validates the bytes with Model::load_bytes (the engine's own checks), then reads every tensor
// as float32 (F16 converted) into the parameters.
TrainableModel trainable_from_bytes(const std::uint8_t* data, std::size_t size);
// The parameters alone (what a gradient pass needs): no refusal of metadata the writer would lose.
TransformerParams transformer_params_from_bytes(const std::uint8_t* data, std::size_t size);

// The config "architecture" of a model file (ModelFileError on a broken file or one without a
// config): what the tables of trainable.cpp and differentiable.cpp look a family up by.
std::string architecture_of(const std::uint8_t* data, std::size_t size);

// A file's text for training to write back (tokenizer, vocabularies, name, description); throws
// InputError on metadata the writer would lose (a second tokenizer, generation defaults).
ModelText trainable_text(const SafetensorsFile& file, const Model& model);

// Every tensor of `tensors` read from `file` by its name as float32 (F16 converted), into the
// shape it has (the loader has checked the file's shapes).
void read_tensors(const SafetensorsFile& file, const TensorList& tensors);

// Fresh weights as models/train/train.py initialises them: every matrix xavier-uniform
// (U(±sqrt(6 / (fan_in + fan_out)))), then the token embeddings N(0, d^-1/2); linear biases
// U(±1/sqrt(fan_in)) (nn.Linear's default, which train.py keeps), output.bias 0, LayerNorm 1 and 0.
// Drawn from train::Random(seed), tensor by tensor in file order.
TransformerParams fresh_params(const ModelConfig& config, int src_vocab_size, int tgt_vocab_size, std::uint64_t seed);

// The model file's bytes, F32.
std::vector<std::uint8_t> export_safetensors(TransformerParams& params, const ModelText& text);
// Any family's: the `config` metadata value as given, the tensors (sorted by name) as F32.
std::vector<std::uint8_t> export_tensors(const std::string& config_json, const TensorList& tensors,
                                         const ModelText& text);

// Python's json.dumps of a string (ensure_ascii=False) and repr of a float, as export.py writes them.
std::string py_string(const std::string& s);
std::string py_float(double x);

// The `config` metadata value exactly as export.py writes it (json.dumps, FORMAT.md key order,
// Python float repr).
std::string config_json(const ModelConfig& config);

}  // namespace attnscope::train
