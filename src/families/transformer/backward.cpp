#include "families/transformer/backward.h"

#include <string>

#include "core/error.h"
#include "model/model.h"  // the loader's sinusoidal tables
#include "model/packed_batch.h"

namespace attnscope::train {

TransformerPass::TransformerPass(const TransformerParams& params) : params_(params) {
  const ModelConfig& c = params.config;
  settings_ = {c.norm, static_cast<float>(c.layer_norm_eps), c.n_heads, c.activation};
  if (c.positions == Positions::Sinusoidal) sinusoids_ = sinusoidal_positions(c.max_positions, c.d_model);
  if (c.positions == Positions::SinusoidalHalves)
    sinusoids_ = sinusoidal_halves_positions(c.max_positions, c.d_model);
}

Stack<EncoderLayerParams> TransformerPass::encoder() const {
  const TransformerParams& p = params_;
  const bool learned = p.config.positions == Positions::Learned;
  return {p.encoder, settings_.norm == NormPosition::Pre ? &p.encoder_final_norm : nullptr,
          learned ? p.encoder_pos : sinusoids_};
}

Stack<DecoderLayerParams> TransformerPass::decoder() const {
  const TransformerParams& p = params_;
  const bool learned = p.config.positions == Positions::Learned;
  return {p.decoder, settings_.norm == NormPosition::Pre ? &p.decoder_final_norm : nullptr,
          learned ? p.decoder_pos : sinusoids_};
}

Matrix TransformerPass::forward(const InputEmbeddings& inputs, const std::vector<int>& source_lengths,
                                const std::vector<int>& target_lengths, float dropout, Random* random) {
  source_rows_ = {segments_of_lengths(source_lengths), /*causal=*/false, nullptr, {}};
  target_rows_ = {segments_of_lengths(target_lengths), /*causal=*/true, &memory_, source_rows_.segments};
  memory_ = stack_forward(encoder(), settings_, source_rows_, inputs.source, dropout, random, encoder_);
  decoder_out_ = stack_forward(decoder(), settings_, target_rows_, inputs.target, dropout, random, decoder_);
  return projection_forward(params_.output_projection(), params_.output_bias, decoder_out_);  // [T, V]
}

InputEmbeddings TransformerPass::backward(const Matrix& d_logits, TransformerParams* grads) {
  const TransformerParams& p = params_;
  const bool learned = p.config.positions == Positions::Learned;
  StackGrads<EncoderLayerParams> encoder_grads;
  StackGrads<DecoderLayerParams> decoder_grads;
  if (grads) {
    encoder_grads = {&grads->encoder, &grads->encoder_final_norm, learned ? &grads->encoder_pos : nullptr};
    decoder_grads = {&grads->decoder, &grads->decoder_final_norm, learned ? &grads->decoder_pos : nullptr};
  }
  Matrix dy = projection_backward(p.output_projection(), grads ? &grads->output_projection() : nullptr,
                                  grads ? &grads->output_bias : nullptr, decoder_out_, d_logits);
  Matrix d_memory = Matrix::Zero(memory_.rows(), memory_.cols());
  InputEmbeddings d_inputs;
  d_inputs.target = stack_backward(decoder(), decoder_grads, settings_, target_rows_, decoder_, std::move(dy), &d_memory);
  d_inputs.source = stack_backward(encoder(), encoder_grads, settings_, source_rows_, encoder_, std::move(d_memory), nullptr);
  return d_inputs;
}

LossResult loss_and_gradients(const TransformerParams& params, const std::vector<Example>& batch,
                              const LossOptions& options, Random* random, TransformerParams& grads) {
  const ModelConfig& c = params.config;
  const float scale = static_cast<float>(c.embedding_scale);
  std::vector<int> src_ids, src_lengths;
  for (const Example& e : batch) {
    if (e.src.empty()) throw InputError("a training pair needs a source and a target token");
    if (static_cast<int>(e.src.size()) > c.max_positions)
      throw InputError("a training pair is longer than max_positions = " + std::to_string(c.max_positions));
    src_lengths.push_back(static_cast<int>(e.src.size()));
    src_ids.insert(src_ids.end(), e.src.begin(), e.src.end());
  }
  const PackedTargets targets = pack_targets(batch, c.max_positions, params.tgt_vocab_size);
  InputEmbeddings inputs{embedding_forward(params.src_embed, src_ids, scale, "source"),
                         embedding_forward(params.target_embedding(), targets.ids, scale, "target")};

  TransformerPass pass(params);
  const Matrix logits = pass.forward(inputs, src_lengths, targets.lengths, random ? options.dropout : 0.0f, random);
  Matrix d_logits;
  const LossResult result = batch_loss(logits, targets.gold, options.label_smoothing, d_logits);

  const InputEmbeddings d_inputs = pass.backward(d_logits, &grads);
  embedding_backward(grads.target_embedding(), targets.ids, scale, d_inputs.target);
  embedding_backward(grads.src_embed, src_ids, scale, d_inputs.source);
  return result;
}

}  // namespace attnscope::train
