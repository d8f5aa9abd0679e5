#pragma once
// Trainable parameters <-> model files (models/FORMAT.md), the family-neutral half: a file's text
// and tensors read for training, and .safetensors bytes written as
// models/reference/attnscope_ref/export.py writes them (same header JSON, same tensor order, F32),
// which Model::load_bytes and the CLI read. Each family's model_file.h builds on it.
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor_list.h"

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

// The config "architecture" of a model file (ModelFileError on a broken file or one without a
// config): what the trainer and attribution look a family up by in the registry.
std::string architecture_of(const std::uint8_t* data, std::size_t size);

// A file's text for training to write back (tokenizer, vocabularies, name, description); throws
// InputError on metadata the writer would lose (a second tokenizer, generation defaults).
ModelText trainable_text(const SafetensorsFile& file, const Model& model);

// Every tensor of `tensors` read from `file` by its name as float32 (F16 converted), into the
// shape it has (the loader has checked the file's shapes).
void read_tensors(const SafetensorsFile& file, const TensorList& tensors);

// The model file's bytes: the `config` metadata value as given, the tensors (sorted by name) as F32.
std::vector<std::uint8_t> export_tensors(const std::string& config_json, const TensorList& tensors,
                                         const ModelText& text);

// Python's json.dumps of a string (ensure_ascii=False) and repr of a float, as export.py writes them.
std::string py_string(const std::string& s);
std::string py_float(double x);

}  // namespace attnscope::train
