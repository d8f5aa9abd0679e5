// The JS Trainer's handle (Embind class TrainerHandle): training on sentence pairs, one epoch per
// call (src/train/trainer.h), from a fresh model or a model file's bytes; after each epoch the
// weights go to a model handle. Each call returns its result or {error} (conversions.h). Beside
// it, the families' Training panel presets (training_presets).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "conversions.h"
#include "model_handle.h"
#include "train/options_json.h"
#include "train/trainer.h"

namespace attnscope::bindings {

class TrainerHandle {
 public:
  // A fresh word-level model: vocabularies from the pairs, family and architecture from the options.
  val create(const val& sources, const val& targets, const std::string& options);

  // Continues from a model file's bytes (its family, architecture and vocabularies).
  val resume(const val& array, const val& sources, const val& targets, const std::string& options);  // a Uint8Array

  // One epoch: {epoch, loss, exact (null when the options say not to count), total, seconds,
  // updates (optimiser steps so far)}; `into` receives the weights after it.
  val epoch(ModelHandle& into);

  val epochs_done() const;

  // The pairs the next epochs train on (a corpus drawn afresh each epoch); the model and the
  // optimiser carry on.
  val set_pairs(const val& sources, const val& targets);

  // The current weights as a .safetensors file (a Uint8Array copy).
  val export_bytes();

 private:
  static std::vector<train::TrainPair> pairs_of(const val& sources, const val& targets);
  void start(std::unique_ptr<train::Trainable> model, std::vector<train::TrainPair> pairs,
             const train::TrainSetup& setup);
  train::Trainer& trainer() const;

  std::unique_ptr<train::Trainer> trainer_;
};

// The demo page's Training panel presets, each family's (train/family_options.h training_presets):
// [{id, label, family, heads, width, widthLabel, proposedLr, options (a JSON object's text)}],
// the default family's first first.
val training_presets();

}  // namespace attnscope::bindings
