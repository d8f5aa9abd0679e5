#include "families/decoder_only/backward.h"

#include <string>

#include "core/error.h"
#include "model/differentiable_checks.h"
#include "model/model.h"
#include "model/packed_batch.h"

namespace attnscope::train {

DecoderOnlyPass::DecoderOnlyPass(const decoder_only::Config& config, const decoder_only::Weights& weights)
    : config_(config), weights_(weights) {}

Stack<decoder_only::Layer> DecoderOnlyPass::stack() const {
  return {weights_.layers, config_.norm == NormPosition::Pre ? &weights_.final_norm : nullptr, weights_.positions};
}

Matrix DecoderOnlyPass::forward(const Matrix& inputs, const std::vector<int>& lengths, float dropout,
                                Random* random) {
  rows_ = {segments_of_lengths(lengths), /*causal=*/true, nullptr, {}};
  out_ = stack_forward(stack(), rows_, inputs, dropout, random, cache_);
  return projection_forward(weights_.output_weight(), weights_.output_bias, out_);  // [T, V]
}

Matrix DecoderOnlyPass::backward(const Matrix& d_logits, DecoderOnlyParams* grads) {
  StackGrads<decoder_only::Layer> stack_grads;
  decoder_only::Weights* g = grads ? &grads->weights : nullptr;
  if (g) stack_grads = {&g->layers, &g->final_norm, config_.learned_positions ? &g->positions : nullptr};
  Matrix dy = projection_backward(weights_.output_weight(), g ? &g->output_weight() : nullptr,
                                  g ? &g->output_bias : nullptr, out_, d_logits);
  return stack_backward(stack(), stack_grads, rows_, cache_, std::move(dy), nullptr);
}

LossResult loss_and_gradients(const DecoderOnlyParams& params, const std::vector<Example>& batch,
                              const LossOptions& options, Random* random, DecoderOnlyParams& grads) {
  for (const Example& e : batch)
    if (!e.src.empty()) throw InputError("a decoder-only model reads no source: its example is one target sequence");
  const float scale = params.config.embedding_scale;
  const PackedTargets targets = pack_targets(batch, params.shared.max_positions, params.vocab_size);
  DecoderOnlyPass pass(params.config, params.weights);
  const Matrix logits = pass.forward(embedding_forward(params.weights.token_embed, targets.ids, scale, "target"),
                                     targets.lengths, random ? options.dropout : 0.0f, random);
  Matrix d_logits;
  const LossResult result = batch_loss(logits, targets.gold, options.label_smoothing, d_logits);
  embedding_backward(grads.weights.token_embed, targets.ids, scale, pass.backward(d_logits, &grads));
  return result;
}

namespace {

std::size_t values_read(const decoder_only::Config& c, const decoder_only::Weights& w) {
  std::size_t n = count_values(w.token_embed) + count_values(w.output_bias);
  if (c.learned_positions) n += static_cast<std::size_t>(w.positions.size());
  for (const decoder_only::Layer& layer : w.layers) n += count_values(layer);
  if (c.norm == NormPosition::Pre) n += count_values(w.final_norm);
  if (!c.tied_output) n += count_values(w.output_weight_);
  return n;
}

class DecoderOnlyDifferentiable : public PassDifferentiable<DecoderOnlyPass> {
 public:
  DecoderOnlyDifferentiable(std::shared_ptr<const Model> model, const decoder_only::DecoderOnly& family)
      : PassDifferentiable(model, DecoderOnlyPass(family.config(), family.weights()),
                           values_read(family.config(), family.weights())),
        config_(family.config()),
        weights_(family.weights()),
        max_positions_(model->config.max_positions),
        vocab_size_(static_cast<int>(model->src_vocab.size())) {}

  InputEmbeddings embed(const Tokens& tokens) const override {
    check_side(tokens.source, false, max_positions_, "source");
    return {Matrix(), embedding_forward(weights_.token_embed, tokens.target, config_.embedding_scale, "target")};
  }

  Matrix forward(const Tokens& tokens, const InputEmbeddings& inputs) override {
    check_side(tokens.source, false, max_positions_, "source");
    check_side(tokens.target, true, max_positions_, "target");
    check_input_rows(inputs.target, tokens.target.size(), config_.d_model, "target");
    if (inputs.source.size() != 0) throw InputError("a decoder-only model has no source input embeddings");
    return remember([&] { return pass_.forward(inputs.target, {static_cast<int>(tokens.target.size())}, 0.0f, nullptr); });
  }

  InputEmbeddings backward(const Matrix& d_logits) override {
    check_backward(d_logits);
    return {Matrix(), pass_.backward(d_logits, nullptr)};
  }

  int vocab_size() const override { return vocab_size_; }

 private:
  const decoder_only::Config& config_;
  const decoder_only::Weights& weights_;
  int max_positions_, vocab_size_;
};

}  // namespace

std::unique_ptr<Differentiable> decoder_only_differentiable(std::shared_ptr<const Model> model) {
  const auto* family = dynamic_cast<const decoder_only::DecoderOnly*>(model->family.get());
  if (!family) throw InputError("the model is a '" + model->config.architecture + "', not a decoder-only model");
  return std::make_unique<DecoderOnlyDifferentiable>(model, *family);
}

}  // namespace attnscope::train
