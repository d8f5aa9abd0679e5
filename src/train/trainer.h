#pragma once
// Training a model on sentence pairs, epoch by epoch: the loop models/train/train.py runs for the toy
// model (length-bucketed batches of about batch_tokens tokens, shuffled; Adam), with the
// exact-match count of greedy translations after each epoch. It sits above the decoding layer
// (it decodes to count exact matches); the passes themselves (families/<name>/backward.h) do
// not. It reaches a family only through the seam of model/trainable.h and the registry
// (model/registry.h).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/random.h"
#include "model/example.h"
#include "model/trainable.h"
#include "train/corpus.h"
#include "train/optimizer.h"
#include "train/trainable.h"  // trainable_from_bytes_any: a trainer continues a model file

namespace attnscope {
struct Model;
}

namespace attnscope::train {

// The word-level text of a fresh model for `pairs` (model/trainable.h WordText): the tokenizer
// {"type": "word", "lowercase": true, "split_punctuation": true} and the vocabularies <pad> <unk>
// <s> </s> + the sorted words of each side (`joint`: of both sides, one vocabulary), as
// models/train/train.py makes them. The pairs are held to the limits of train/corpus.h (tokens per
// side, vocabulary size) before any weight is allocated. `pairs` must outlive the function.
WordTextOf word_text_of(const std::vector<TrainPair>& pairs);

// The fresh model of `family` (any that trains: model/registry.h) for `pairs`, as the seam's
// Trainable. `architecture`: a JSON object of the family's architecture options (train/
// options_json.h names them), absent ones its defaults. InputError on an unknown family, an option
// it does not take, or an architecture it refuses.
std::unique_ptr<Trainable> fresh_trainable(const std::vector<TrainPair>& pairs, const std::string& family,
                                           const nlohmann::json& architecture, std::uint64_t seed);

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
