#pragma once
// Which family reads a model file: config.architecture looked up in the registration table of
// src/families/registry.cpp (one line per family).
#include <memory>
#include <string>

#include "model/model.h"
#include "model/weight_reader.h"

namespace attnscope {

// Builds a family's object from the file's tensors. `model` already holds the config,
// metadata, tokenizer and vocabularies.
using FamilyLoader = std::unique_ptr<ModelFamily> (*)(const Model& model, WeightReader& weights,
                                                      const Model::LoadOptions& options);

// Throws ModelFileError naming `architecture` and the known ones when no family reads it.
FamilyLoader family_loader(const std::string& architecture);

}  // namespace attnscope
