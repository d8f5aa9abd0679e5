#include "train/trainable.h"

#include "core/error.h"
#include "io/safetensors.h"
#include "model/config.h"
#include "train/decoder_only_grad.h"
#include "train/rnn_grad.h"
#include "train/transformer_grad.h"

namespace attnscope::train {
namespace {

// One family's parameters and gradients, trained by its own loss_and_gradients overload.
template <class Params, class Model>
class FamilyTrainable : public Trainable {
 public:
  explicit FamilyTrainable(Model model) : model_(std::move(model)), grads_(model_.params.zeros_like()) {}
  TensorList parameters() override { return model_.params.tensors(); }
  TensorList gradients() override { return grads_.tensors(); }
  LossResult loss_and_gradients(const std::vector<Example>& batch, const LossOptions& options,
                                Random* random) override {
    return train::loss_and_gradients(model_.params, batch, options, random, grads_);
  }
  const ModelText& text() const override { return model_.text; }

 protected:
  Model model_;
  Params grads_;
};

class TransformerTrainable : public FamilyTrainable<TransformerParams, TrainableModel> {
 public:
  using FamilyTrainable::FamilyTrainable;
  std::vector<std::uint8_t> export_bytes() override { return export_safetensors(model_.params, model_.text); }
  const ModelConfig& shared_config() const override { return model_.params.config; }
  void check_options(const LossOptions&) const override {}
};

class RnnTrainable : public FamilyTrainable<RnnParams, TrainableRnn> {
 public:
  using FamilyTrainable::FamilyTrainable;
  std::vector<std::uint8_t> export_bytes() override { return export_safetensors(model_); }
  const ModelConfig& shared_config() const override { return model_.params.shared; }
  void check_options(const LossOptions& options) const override { check_rnn_loss_options(options); }
};

class DecoderOnlyTrainable : public FamilyTrainable<DecoderOnlyParams, TrainableDecoderOnly> {
 public:
  using FamilyTrainable::FamilyTrainable;
  std::vector<std::uint8_t> export_bytes() override { return export_safetensors(model_); }
  const ModelConfig& shared_config() const override { return model_.params.shared; }
  void check_options(const LossOptions&) const override {}
  Example example(const std::vector<int>& source, const std::vector<int>& target) const override {
    const auto& s = model_.params.shared.special;
    Example e;
    e.tgt.push_back(s.bos);
    e.tgt.insert(e.tgt.end(), source.begin(), source.end());
    e.tgt.insert(e.tgt.end(), target.begin(), target.end());
    e.tgt.push_back(s.eos);
    return e;
  }
};

// The families that train, by config "architecture".
struct Registration {
  const char* architecture;
  std::unique_ptr<Trainable> (*from_bytes)(const std::uint8_t*, std::size_t);
};

const Registration kTrainable[] = {
    {"transformer", [](const std::uint8_t* d, std::size_t n) { return make_trainable(trainable_from_bytes(d, n)); }},
    {"rnn", [](const std::uint8_t* d, std::size_t n) { return make_trainable(trainable_rnn_from_bytes(d, n)); }},
    {"decoder_only", [](const std::uint8_t* d, std::size_t n) { return make_trainable(decoder_only_from_bytes(d, n)); }},
};

}  // namespace

std::unique_ptr<Trainable> make_trainable(TrainableModel model) {
  return std::make_unique<TransformerTrainable>(std::move(model));
}

std::unique_ptr<Trainable> make_trainable(TrainableRnn model) { return std::make_unique<RnnTrainable>(std::move(model)); }

std::unique_ptr<Trainable> make_trainable(TrainableDecoderOnly model) {
  return std::make_unique<DecoderOnlyTrainable>(std::move(model));
}

Example Trainable::example(const std::vector<int>& source, const std::vector<int>& target) const {
  const ModelConfig& c = shared_config();
  Example e{source, {c.special.bos}};
  if (c.src_append_eos) e.src.push_back(c.special.eos);
  e.tgt.insert(e.tgt.end(), target.begin(), target.end());
  e.tgt.push_back(c.special.eos);
  return e;
}

std::unique_ptr<Trainable> trainable_from_bytes_any(const std::uint8_t* data, std::size_t size) {
  const std::string architecture = architecture_of(data, size);
  for (const Registration& r : kTrainable)
    if (architecture == r.architecture) return r.from_bytes(data, size);
  throw InputError("models of architecture '" + architecture + "' cannot be trained");
}

}  // namespace attnscope::train
