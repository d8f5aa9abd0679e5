#pragma once
// Training the transformer: a fresh model from its architecture options, and the seam's Trainable
// (model/trainable.h) on its parameters, backward pass and model file. `kTraining` is what the
// registry (families/registry.cpp) holds of it.
#include <cstdint>
#include <memory>

#include "families/transformer/model_file.h"
#include "model/registry.h"
#include "model/trainable.h"

namespace attnscope::train {

// A fresh word-level model (models/train/train.py `train_toy`): tokenizer
// {"type": "word", "lowercase": true, "split_punctuation": true}, vocabularies = <pad> <unk> <s>
// </s> + the sorted words of each side, post-norm, ReLU, sinusoidal positions, embedding scale
// sqrt(d_model), max_positions = max(16, longest sentence + 2). The pairs are held to the
// limits of train/corpus.h (tokens per side, vocabulary size) before any weight is allocated,
// and the architecture to a model file's (model/config_fields.h).
struct Architecture {
  int layers = 1;      // encoder and decoder layers each
  int heads = 1;
  int d_model = 64;
  int d_ff = 0;        // 0: 2 · d_model
};
TrainableModel fresh_model(const WordTextOf& words, const Architecture& arch, std::uint64_t seed);

std::unique_ptr<Trainable> make_trainable(TrainableModel model);

}  // namespace attnscope::train

namespace attnscope::transformer {

extern const FamilyTraining kTraining;

}  // namespace attnscope::transformer
