#pragma once
// The seam between the trainer and a model family: what Trainer (and through it the CLI and the
// bindings) asks of a trainable model. Each family implements it next to its backward pass
// (TransformerParams + transformer_grad, RnnParams + rnn_grad); trainable.cpp's table maps a
// config's "architecture" (a file being continued, or the "family" option of a fresh model) to
// the family. Nothing above this header names a family.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "train/decoder_only_model_file.h"
#include "train/loss.h"
#include "train/model_file.h"
#include "train/random.h"
#include "train/rnn_model_file.h"
#include "train/tensor_list.h"

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

std::unique_ptr<Trainable> make_trainable(TrainableModel model);  // the transformer
std::unique_ptr<Trainable> make_trainable(TrainableRnn model);
std::unique_ptr<Trainable> make_trainable(TrainableDecoderOnly model);

// A model file of any family, to continue training it.
std::unique_ptr<Trainable> trainable_from_bytes_any(const std::uint8_t* data, std::size_t size);

}  // namespace attnscope::train
