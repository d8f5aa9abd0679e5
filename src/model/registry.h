#pragma once
// What each model family offers, by config.architecture: the registration table of
// src/families/registry.cpp, one line per family. Its loader reads a model file for inference;
// where the family trains, its training half (a model file to continue, a fresh model from its
// architecture options, those options' names for the CLI and the JavaScript trainer); where it
// has one, its gradient pass for attribution. The trainer, attribution and the CLI's train
// command find a family here by name and never name one themselves.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "model/model.h"
#include "model/trainable.h"
#include "model/weight_reader.h"

namespace attnscope {

namespace train {
class Differentiable;
}

// Builds a family's object from the file's tensors. `model` already holds the config,
// metadata, tokenizer and vocabularies.
using FamilyLoader = std::unique_ptr<ModelFamily> (*)(const Model& model, WeightReader& weights,
                                                      const Model::LoadOptions& options);

// One option of a family's fresh model: its name in the training options' JSON (the JavaScript
// trainer's camelCase) and its attnscope-cli train flag. Families that share an option (every one
// has "layers") declare it alike.
struct ArchitectureOption {
  enum class Kind { Integer, Text, Boolean };
  const char* name;  // "dEmbed"
  const char* flag;  // "--d-embed"
  Kind kind;         // Integer: in [0, 10^9]
  bool flag_sets = false;  // Boolean only: the value its flag (which takes no value) sets ("--untied": false)
};

// A fresh model the demo page's Training panel offers (web/app/state/trained.js): the reader picks
// its layers, its heads where it has them and its width; the rest is fixed here. Its trainer
// options are `options` plus "layers", "heads" (where it has heads), `width` (the width), "seed"
// and "lr".
struct TrainingPreset {
  const char* id;           // in a trained model's name ("rnn-bahdanau"): lowercase letters, digits and '-'
  const char* label;        // the panel's picker: "RNN, Bahdanau attention"
  bool has_heads;           // the heads knob sets "heads" (else the model has none)
  const char* width;        // the option the width knob sets: "dModel"
  const char* width_label;  // the knob's name: "d_model"
  double proposed_lr;       // the learning rate the panel proposes (the toy models' recipes, models/README.md)
  const char* options;      // the fixed training options, a JSON object, "family" named unless the default
  // What it trains on: "pairs", sentence pairs (the Training panel's picker), or "induction",
  // successor walks (the induction-heads preset: its size is fixed in `options`).
  const char* task = "pairs";
};

// A family's training half.
struct FamilyTraining {
  // A model file's bytes, to continue training it (ModelFileError on a broken file, InputError
  // on one the family's writer could not write back).
  std::unique_ptr<train::Trainable> (*from_bytes)(const std::uint8_t* data, std::size_t size);
  // A fresh word-level model: `options` a JSON object of this family's architecture options
  // (absent ones take the family's defaults), `words` the training pairs' text, asked for once
  // the options are checked. InputError on options the family refuses.
  std::unique_ptr<train::Trainable> (*fresh)(const nlohmann::json& options, const train::WordTextOf& words,
                                            std::uint64_t seed);
  const ArchitectureOption* options;  // its architecture options
  std::size_t option_count;
  const char* noun;  // in messages, the family as an option's owner: "the RNN" ("'cell' is the RNN's")
  const char* one;   // the family as one model: "an RNN" ("an RNN has none")
  const char* help;  // attnscope-cli train's usage lines for its options
  const TrainingPreset* presets = nullptr;  // what the page's Training panel offers of it; the default
  std::size_t preset_count = 0;             // family's first is the one a trained model's name leaves unnamed
};

struct FamilyRegistration {
  const char* architecture;
  FamilyLoader load;
  const FamilyTraining* training;  // nullptr: the family does not train
  // Attribution's gradient pass of a loaded model (model/differentiable.h), on the model's own
  // weights (it keeps the model alive); nullptr: none.
  std::unique_ptr<train::Differentiable> (*differentiable)(std::shared_ptr<const Model> model);
};

// Every family, in the table's order (the order messages list them in).
const std::vector<FamilyRegistration>& registered_families();

// The family of `architecture`, or nullptr.
const FamilyRegistration* find_family(const std::string& architecture);

// Throws ModelFileError naming `architecture` and the known ones when no family reads it.
FamilyLoader family_loader(const std::string& architecture);

}  // namespace attnscope
