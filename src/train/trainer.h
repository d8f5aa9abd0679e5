#pragma once
// Training a model on sentence pairs, epoch by epoch: the loop models/train/train.py runs for the toy
// model (length-bucketed batches of about batch_tokens tokens, shuffled; Adam), with the
// exact-match count of greedy translations after each epoch. It sits above the decoding layer
// (it decodes to count exact matches); the passes themselves (transformer_grad.h, rnn_grad.h) do
// not. It reaches a family only through the seam of trainable.h.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "train/corpus.h"
#include "train/loss.h"
#include "train/model_file.h"
#include "train/optimizer.h"
#include "train/random.h"
#include "train/trainable.h"

namespace attnscope {
struct Model;
}

namespace attnscope::train {

// A fresh word-level model for `pairs` (models/train/train.py `train_toy`): tokenizer
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
TrainableModel fresh_model(const std::vector<TrainPair>& pairs, const Architecture& arch, std::uint64_t seed);

// A fresh word-level RNN encoder-decoder (src/families/rnn/) for `pairs`: vocabularies and
// max_positions as fresh_model, weights as fresh_rnn_params. Throws InputError on a config the
// family refuses (models/FORMAT.md "The RNN family").
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
TrainableRnn fresh_rnn_model(const std::vector<TrainPair>& pairs, const RnnArchitecture& arch, std::uint64_t seed);

// A fresh word-level decoder-only language model (src/families/decoder_only/) for `pairs`: one
// vocabulary (<pad> <unk> <s> </s> + the sorted words of both sides), each pair learned as
// "<s> source target </s>" (Trainable::example: the source is the prompt the target continues),
// max_positions = max(16, longest source + longest target + 2), embedding scale 1, LayerNorm eps
// 1e-5, weights as fresh_decoder_only_params. Throws InputError on a config the family refuses.
struct DecoderOnlyArchitecture {
  int layers = 1;
  int heads = 1;
  int d_model = 64;
  int d_ff = -1;                         // -1: 2 · d_model; 0: attention-only layers (no FFN)
  std::string activation = "gelu_tanh";  // relu | gelu | gelu_tanh
  std::string norm = "pre";              // pre | post
  std::string positions = "learned";     // learned | sinusoidal
  bool tied_output = true;
};
TrainableDecoderOnly fresh_decoder_only_model(const std::vector<TrainPair>& pairs, const DecoderOnlyArchitecture& arch,
                                              std::uint64_t seed);

// The fresh model of `family` ("transformer": `arch`; "rnn": `rnn`; "decoder_only":
// `decoder_only`), as the seam's Trainable.
std::unique_ptr<Trainable> fresh_trainable(const std::vector<TrainPair>& pairs, const std::string& family,
                                           const Architecture& arch, const RnnArchitecture& rnn,
                                           const DecoderOnlyArchitecture& decoder_only, std::uint64_t seed);
inline std::unique_ptr<Trainable> fresh_trainable(const std::vector<TrainPair>& pairs, const std::string& family,
                                                  const Architecture& arch, const RnnArchitecture& rnn,
                                                  std::uint64_t seed) {
  return fresh_trainable(pairs, family, arch, rnn, DecoderOnlyArchitecture{}, seed);
}

struct TrainOptions {
  double lr = 1e-3;
  int batch_tokens = 24;
  std::uint64_t seed = 1;       // batch order and dropout
  float label_smoothing = 0.0f;
  float dropout = 0.0f;
  double clip_norm = 0.0;       // 0: no clipping
  // Count the pairs whose greedy translation is exact after every epoch (EpochReport::exact). A
  // corpus drawn afresh every epoch from a random source (the induction preset's walks) has no
  // exact answer to count, and decoding every pair costs about 30% of its epoch.
  bool count_exact = true;
  AdamOptions adam;             // models/train/train.py: betas (0.9, 0.98), eps 1e-9
  Schedule schedule;            // constant unless set
};

struct EpochReport {
  int epoch = 0;         // 1 after the first epoch
  double loss = 0.0;     // mean per target token over the epoch (label-smoothed if smoothing)
  int exact = 0;         // pairs whose greedy translation equals the target (normalised); -1 uncounted
  int total = 0;
  double seconds = 0.0;  // training time of the epoch (without the exact-match count)
  // The weights after the epoch as the engine loads them: the model the exact count decoded
  // with, handed on so that a caller (the JS API's onEpoch) needs no second export and load.
  std::shared_ptr<const Model> model;
};

class Trainer {
 public:
  Trainer(std::unique_ptr<Trainable> model, std::vector<TrainPair> pairs, TrainOptions options);
  Trainer(TrainableModel model, std::vector<TrainPair> pairs, TrainOptions options)
      : Trainer(make_trainable(std::move(model)), std::move(pairs), options) {}

  EpochReport epoch();  // one pass over the pairs, then the exact-match count
  int epochs_done() const { return epochs_; }
  int updates_done() const { return updates_; }  // optimiser steps so far
  // The pairs the next epochs train on (and count exact matches of), checked as the constructor
  // checks them; the model and the optimiser carry on. A corpus drawn afresh for every epoch
  // (the induction preset's walks, train/successor_walks.h) is not memorised.
  void set_pairs(std::vector<TrainPair> pairs);
  // The current weights as a model file, and as the engine loads it (for every view).
  std::vector<std::uint8_t> export_bytes();
  std::shared_ptr<const Model> model();
  // Greedy translations of the pairs' sources that equal their targets (after tokenising both).
  int exact_matches(const Model& model) const;

 private:
  std::unique_ptr<Trainable> model_;
  std::vector<TrainPair> pairs_;
  std::vector<Example> examples_;
  std::vector<std::vector<int>> groups_;  // batches of example indices (length-bucketed)
  TrainOptions options_;
  Adam adam_;
  Random random_;
  int epochs_ = 0, updates_ = 0;
};

}  // namespace attnscope::train
