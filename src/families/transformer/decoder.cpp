// The decoder, one target position per step for a batch of hypotheses.
#include <algorithm>

#include "families/transformer/transformer.h"
#include "model/embedding.h"

namespace attnscope::transformer {

std::unique_ptr<DecoderState> Transformer::start(const Matrix& memory) const {
  auto state = std::make_unique<State>();
  state->source_length = static_cast<int>(memory.rows());
  for (const DecoderLayer& layer : weights_.decoder_layers) state->layers.push_back(layer.start(memory));
  return state;
}

Matrix Transformer::readout(const Matrix& residual, const Interventions& interventions) const {
  const Weights& w = weights_;
  if (config_.norm == NormPosition::Pre && !interventions.skip_layer_norm)
    return ops::linear(w.decoder_final_norm(residual), w.output_weight(), w.output_bias);
  return ops::linear(residual, w.output_weight(), w.output_bias);
}

Matrix Transformer::step(const std::vector<DecoderState*>& base_states, const std::vector<int>& tokens,
                         const Capture& capture, const std::vector<StepTrace*>& traces,
                         const Interventions& interventions) const {
  const std::size_t n = base_states.size();
  check_batch(n, tokens.size(), traces.size());
  // Named vectors are recorded per hypothesis, so a batch that wants them runs one at a time.
  if (n > 1 && capture.vectors && std::any_of(traces.begin(), traces.end(), [](StepTrace* t) { return t; }))
    return step_each(base_states, tokens, capture, traces, interventions);
  const Config& c = config_;
  const Weights& w = weights_;
  // Every state of this decoder was made by start(): the cast is the seam's contract.
  std::vector<State*> states(n);
  for (std::size_t i = 0; i < n; ++i) states[i] = static_cast<State*>(base_states[i]);
  auto observes = [&](std::size_t i) { return traces[i] != nullptr && capture.any(); };

  Matrix y(static_cast<Eigen::Index>(n), c.d_model);
  for (std::size_t i = 0; i < n; ++i) {
    NamedVectors* vectors = observes(i) && capture.vectors ? &traces[i]->vectors : nullptr;
    y.row(static_cast<Eigen::Index>(i)) = embed(w.tgt_embed(), w.decoder_positions, {tokens[i]}, states[i]->length(),
                                                static_cast<float>(c.embedding_scale), vectors);
  }

  const std::size_t n_layers = w.decoder_layers.size();
  // [hypothesis][layer][head]: each hypothesis' attention, when its capture asks for it.
  std::vector<std::vector<std::vector<Matrix>>> self_attn(n), cross_attn(n);
  for (std::size_t i = 0; i < n; ++i)
    if (observes(i) && capture.attention) self_attn[i].resize(n_layers), cross_attn[i].resize(n_layers);
  std::vector<DecoderLayerState*> layer_states(n);
  std::vector<Probe> probes(n);
  for (std::size_t l = 0; l < n_layers; ++l) {
    for (std::size_t i = 0; i < n; ++i) {
      layer_states[i] = &states[i]->layers[l];
      Probe& probe = probes[i];
      probe.self_attn = self_attn[i].empty() ? nullptr : &self_attn[i][l];
      probe.cross_attn = cross_attn[i].empty() ? nullptr : &cross_attn[i][l];
      probe.vectors = observes(i) && capture.vectors ? &traces[i]->vectors : nullptr;
      probe.prefix = "layers." + std::to_string(l) + ".";
    }
    y = w.decoder_layers[l].step(y, layer_states, probes, decoder_edits(static_cast<int>(l), interventions));
  }
  Matrix logits = readout(y, interventions);
  for (std::size_t i = 0; i < n; ++i) {
    if (self_attn[i].empty()) continue;
    std::vector<Tensor>& attention = traces[i]->attention;
    attention.assign(sites_.size(), Tensor());
    attention[kDecoderSelf] = pack_attention(self_attn[i], true);
    attention[kCross] = pack_attention(cross_attn[i], true);
  }
  return logits;
}

}  // namespace attnscope::transformer
