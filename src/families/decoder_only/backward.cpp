#include "families/decoder_only/backward.h"

#include <string>

#include "core/error.h"
#include "model/differentiable_checks.h"
#include "model/model.h"  // sinusoidal_positions: the loader's table
#include "model/packed_batch.h"

namespace attnscope::train {

DecoderOnlyPass::DecoderOnlyPass(const DecoderOnlyParams& params) : params_(params) {
  const decoder_only::Config& c = params.config;
  settings_ = {c.norm, c.layer_norm_eps, c.n_heads, c.activation};
  if (!c.learned_positions) sinusoids_ = sinusoidal_positions(params.shared.max_positions, c.d_model);
}

Stack<EncoderLayerParams> DecoderOnlyPass::stack() const {
  const DecoderOnlyParams& p = params_;
  return {p.layers, settings_.norm == NormPosition::Pre ? &p.final_norm : nullptr,
          p.config.learned_positions ? p.position_embed : sinusoids_};
}

Matrix DecoderOnlyPass::forward(const Matrix& inputs, const std::vector<int>& lengths, float dropout,
                                Random* random) {
  rows_ = {segments_of_lengths(lengths), /*causal=*/true, nullptr, {}};
  out_ = stack_forward(stack(), settings_, rows_, inputs, dropout, random, cache_);
  return projection_forward(params_.output_projection(), params_.output_bias, out_);  // [T, V]
}

Matrix DecoderOnlyPass::backward(const Matrix& d_logits, DecoderOnlyParams* grads) {
  const DecoderOnlyParams& p = params_;
  StackGrads<EncoderLayerParams> stack_grads;
  if (grads)
    stack_grads = {&grads->layers, &grads->final_norm, p.config.learned_positions ? &grads->position_embed : nullptr};
  Matrix dy = projection_backward(p.output_projection(), grads ? &grads->output_projection() : nullptr,
                                  grads ? &grads->output_bias : nullptr, out_, d_logits);
  return stack_backward(stack(), stack_grads, settings_, rows_, cache_, std::move(dy), nullptr);
}

LossResult loss_and_gradients(const DecoderOnlyParams& params, const std::vector<Example>& batch,
                              const LossOptions& options, Random* random, DecoderOnlyParams& grads) {
  for (const Example& e : batch)
    if (!e.src.empty()) throw InputError("a decoder-only model reads no source: its example is one target sequence");
  const float scale = params.config.embedding_scale;
  const PackedTargets targets = pack_targets(batch, params.shared.max_positions, params.vocab_size);
  DecoderOnlyPass pass(params);
  const Matrix logits = pass.forward(embedding_forward(params.token_embed, targets.ids, scale, "target"),
                                     targets.lengths, random ? options.dropout : 0.0f, random);
  Matrix d_logits;
  const LossResult result = batch_loss(logits, targets.gold, options.label_smoothing, d_logits);
  embedding_backward(grads.token_embed, targets.ids, scale, pass.backward(d_logits, &grads));
  return result;
}

namespace {

class DecoderOnlyDifferentiable : public PassDifferentiable<DecoderOnlyParams, DecoderOnlyPass> {
 public:
  using PassDifferentiable::PassDifferentiable;

  InputEmbeddings embed(const Tokens& tokens) const override {
    check_side(tokens.source, false, params_.shared.max_positions, "source");
    return {Matrix(), embedding_forward(params_.token_embed, tokens.target, params_.config.embedding_scale, "target")};
  }

  Matrix forward(const Tokens& tokens, const InputEmbeddings& inputs) override {
    check_side(tokens.source, false, params_.shared.max_positions, "source");
    check_side(tokens.target, true, params_.shared.max_positions, "target");
    check_input_rows(inputs.target, tokens.target.size(), params_.config.d_model, "target");
    if (inputs.source.size() != 0) throw InputError("a decoder-only model has no source input embeddings");
    return remember([&] { return pass_.forward(inputs.target, {static_cast<int>(tokens.target.size())}, 0.0f, nullptr); });
  }

  InputEmbeddings backward(const Matrix& d_logits) override {
    check_backward(d_logits);
    return {Matrix(), pass_.backward(d_logits, nullptr)};
  }

  int vocab_size() const override { return params_.vocab_size; }
};

}  // namespace

std::unique_ptr<Differentiable> make_differentiable(DecoderOnlyParams params) {
  return std::make_unique<DecoderOnlyDifferentiable>(std::move(params));
}

std::unique_ptr<Differentiable> decoder_only_differentiable(std::shared_ptr<const Model> model, const SafetensorsFile& file) {
  return make_differentiable(decoder_only_params_from(file, *model));
}

}  // namespace attnscope::train
