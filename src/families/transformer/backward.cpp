#include "families/transformer/backward.h"

#include <string>

#include "core/error.h"
#include "model/packed_batch.h"

namespace attnscope::train {

TransformerPass::TransformerPass(const transformer::Config& config, const transformer::Weights& weights)
    : config_(config), weights_(weights) {}

Stack<EncoderLayer> TransformerPass::encoder() const {
  const bool pre = config_.norm == NormPosition::Pre;
  return {weights_.encoder_layers, pre ? &weights_.encoder_final_norm : nullptr, weights_.encoder_positions};
}

Stack<DecoderLayer> TransformerPass::decoder() const {
  const bool pre = config_.norm == NormPosition::Pre;
  return {weights_.decoder_layers, pre ? &weights_.decoder_final_norm : nullptr, weights_.decoder_positions};
}

Matrix TransformerPass::forward(const InputEmbeddings& inputs, const std::vector<int>& source_lengths,
                                const std::vector<int>& target_lengths, float dropout, Random* random) {
  source_rows_ = {segments_of_lengths(source_lengths), /*causal=*/false, nullptr, {}};
  target_rows_ = {segments_of_lengths(target_lengths), /*causal=*/true, &memory_, source_rows_.segments};
  memory_ = stack_forward(encoder(), source_rows_, inputs.source, dropout, random, encoder_);
  decoder_out_ = stack_forward(decoder(), target_rows_, inputs.target, dropout, random, decoder_);
  return projection_forward(weights_.output_weight(), weights_.output_bias, decoder_out_);  // [T, V]
}

InputEmbeddings TransformerPass::backward(const Matrix& d_logits, TransformerParams* grads) {
  const bool learned = config_.positions == transformer::Positions::Learned;
  StackGrads<EncoderLayer> encoder_grads;
  StackGrads<DecoderLayer> decoder_grads;
  transformer::Weights* g = grads ? &grads->weights : nullptr;
  if (g) {
    encoder_grads = {&g->encoder_layers, &g->encoder_final_norm, learned ? &g->encoder_positions : nullptr};
    decoder_grads = {&g->decoder_layers, &g->decoder_final_norm, learned ? &g->decoder_positions : nullptr};
  }
  Matrix dy = projection_backward(weights_.output_weight(), g ? &g->output_weight() : nullptr,
                                  g ? &g->output_bias : nullptr, decoder_out_, d_logits);
  Matrix d_memory = Matrix::Zero(memory_.rows(), memory_.cols());
  InputEmbeddings d_inputs;
  d_inputs.target = stack_backward(decoder(), decoder_grads, target_rows_, decoder_, std::move(dy), &d_memory);
  d_inputs.source = stack_backward(encoder(), encoder_grads, source_rows_, encoder_, std::move(d_memory), nullptr);
  return d_inputs;
}

LossResult loss_and_gradients(const TransformerParams& params, const std::vector<Example>& batch,
                              const LossOptions& options, Random* random, TransformerParams& grads) {
  const transformer::Config& c = params.config;
  const int max_positions = params.shared.max_positions;
  const float scale = static_cast<float>(c.embedding_scale);
  std::vector<int> src_ids, src_lengths;
  for (const Example& e : batch) {
    if (e.src.empty()) throw InputError("a training pair needs a source and a target token");
    if (static_cast<int>(e.src.size()) > max_positions)
      throw InputError("a training pair is longer than max_positions = " + std::to_string(max_positions));
    src_lengths.push_back(static_cast<int>(e.src.size()));
    src_ids.insert(src_ids.end(), e.src.begin(), e.src.end());
  }
  const PackedTargets targets = pack_targets(batch, max_positions, params.tgt_vocab_size);
  const transformer::Weights& w = params.weights;
  InputEmbeddings inputs{embedding_forward(w.src_embed, src_ids, scale, "source"),
                         embedding_forward(w.tgt_embed(), targets.ids, scale, "target")};

  TransformerPass pass(c, w);
  const Matrix logits = pass.forward(inputs, src_lengths, targets.lengths, random ? options.dropout : 0.0f, random);
  Matrix d_logits;
  const LossResult result = batch_loss(logits, targets.gold, options.label_smoothing, d_logits);

  const InputEmbeddings d_inputs = pass.backward(d_logits, &grads);
  embedding_backward(grads.weights.tgt_embed(), targets.ids, scale, d_inputs.target);
  embedding_backward(grads.weights.src_embed, src_ids, scale, d_inputs.source);
  return result;
}

}  // namespace attnscope::train
