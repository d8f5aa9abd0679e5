#pragma once
// Training the RNN: a fresh model from its architecture options, and the seam's Trainable
// (model/trainable.h) on its parameters, backward pass and model file. `kTraining` is what the
// registry (families/registry.cpp) holds of it.
#include <cstdint>
#include <memory>
#include <string>

#include "families/rnn/model_file.h"
#include "model/registry.h"
#include "model/trainable.h"

namespace attnscope::train {

// A fresh word-level RNN encoder-decoder (src/families/rnn/): vocabularies as the transformer's
// fresh model (one per side), max_positions = max(16, longest sentence + 2), weights as
// fresh_rnn_params. Throws InputError on a config the family refuses (models/FORMAT.md "The RNN
// family").
struct RnnArchitecture {
  std::string cell = "gru";            // gru | lstm
  std::string attention = "bahdanau";  // bahdanau | luong | none
  std::string score = "additive";      // additive | dot | scaled_dot | general | cosine | location ("none" without attention)
  int d_embed = 32;
  int d_hidden = 64;
  int d_encoder = 0;     // per direction; 0: d_hidden / directions (so every score fits)
  int d_attention = 0;   // additive only; 0: d_hidden
  int layers = 1;        // encoder and decoder layers each
  bool bidirectional = true;
  bool input_feeding = false;  // Luong only
  int local_window = 0;        // Luong's local-p D; 0: global attention
};
TrainableRnn fresh_rnn_model(const WordTextOf& words, const RnnArchitecture& arch, std::uint64_t seed);

std::unique_ptr<Trainable> make_trainable(TrainableRnn model);

}  // namespace attnscope::train

namespace attnscope::rnn {

extern const FamilyTraining kTraining;

}  // namespace attnscope::rnn
