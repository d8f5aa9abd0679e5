#pragma once
// The seam between the trainer and a model family: what Trainer (and through it the CLI and the
// bindings) asks of a trainable model. Each family implements it in its folder, next to its
// backward pass (families/<name>/training.cpp), and registers how to make one (model/registry.h):
// from a model file being continued, or fresh from its architecture options. Nothing above this
// header names a family.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/random.h"
#include "core/tensor_list.h"
#include "model/config.h"
#include "model/example.h"
#include "model/model_file_writer.h"

namespace attnscope::train {

class Trainable {
 public:
  virtual ~Trainable() = default;
  virtual TensorList parameters() = 0;  // sorted by name (file order)
  virtual TensorList gradients() = 0;   // the same layout; loss_and_gradients adds into them
  virtual LossResult loss_and_gradients(const std::vector<Example>& batch, const LossOptions& options,
                                        Random* random) = 0;
  // Throws InputError on options the family cannot train with (checked when a trainer starts).
  virtual void check_options(const LossOptions& options) const = 0;
  virtual std::vector<std::uint8_t> export_bytes() = 0;
  // The fields every family has: special tokens, src_append_eos, max_positions.
  virtual const ModelConfig& shared_config() const = 0;
  // The example of a pair's token ids (without special tokens). A translation model reads the
  // source (+ </s> when src_append_eos) and predicts <bos> target </s>; a decoder-only model reads
  // no source and learns <bos> source target </s>, the source being its prompt.
  virtual Example example(const std::vector<int>& source, const std::vector<int>& target) const;
  virtual const ModelText& text() const = 0;
};

// A fresh word-level model's text, made by the trainer from the training pairs (train/trainer.h):
// the word tokenizer and the vocabularies, the pairs held to the corpus limits on the way.
struct WordText {
  ModelText text;
  std::size_t longest = 0;       // the longest sentence in words
  std::size_t longest_pair = 0;  // the most words of a source and its target together
};
// `joint`: one vocabulary of both sides (src_vocab = tgt_vocab), else one per side.
using WordTextOf = std::function<WordText(bool joint)>;

// One family's parameters and gradients, trained by its own loss_and_gradients (`Loss`). Model:
// {Params params; ModelText text;}; Params: tensors() and zeros_like().
template <class Params, class Model,
          LossResult (*Loss)(const Params&, const std::vector<Example>&, const LossOptions&, Random*, Params&)>
class FamilyTrainable : public Trainable {
 public:
  explicit FamilyTrainable(Model model) : model_(std::move(model)), grads_(model_.params.zeros_like()) {}
  TensorList parameters() override { return model_.params.tensors(); }
  TensorList gradients() override { return grads_.tensors(); }
  LossResult loss_and_gradients(const std::vector<Example>& batch, const LossOptions& options,
                                Random* random) override {
    return Loss(model_.params, batch, options, random, grads_);
  }
  const ModelText& text() const override { return model_.text; }

 protected:
  Model model_;
  Params grads_;
};

}  // namespace attnscope::train
