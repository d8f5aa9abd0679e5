// The prompt as the memory, and the decoder's steps: the first over the prompt (<bos> first
// where the model reads one) at once, every later one a token on the KV cache.
#include <algorithm>

#include "families/decoder_only/decoder_only.h"
#include "model/embedding.h"

namespace attnscope::decoder_only {

int State::positions(int after_steps) const {
  return after_steps == 0 ? 0 : static_cast<int>(prompt->rows()) + after_steps - 1;
}

void State::truncate(int length) {
  steps = std::clamp(length, 0, steps);
  for (KVCache& cache : layers) cache.truncate(positions(steps));
}

Matrix DecoderOnly::encode(const std::vector<int>& prompt_ids, const Capture& capture, EncoderTrace* trace,
                           const Interventions& interventions) const {
  intervention_support().check(interventions);
  const int n = static_cast<int>(prompt_ids.size()), context = model_config_.max_positions;
  if (n == 0) throw InputError("the prompt is empty: a decoder-only model continues at least one token (<bos>)");
  if (n > context)
    throw InputError("prompt of " + std::to_string(n) + " tokens" +
                     (prompt_ids[0] == model_config_.special.bos ? " (with <bos>)" : "") +
                     " exceeds the model's context of " + std::to_string(context));
  const ops::WeightMatrix& table = weights_.token_embed;
  Matrix memory(n, table.cols());
  for (int i = 0; i < n; ++i) {
    if (prompt_ids[i] < 0 || prompt_ids[i] >= table.rows())
      throw IndexError("token id " + std::to_string(prompt_ids[i]) + " is outside the vocabulary [0, " +
                       std::to_string(table.rows()) + ")");
    memory.row(i) = table.row(prompt_ids[i]) * config_.embedding_scale;
  }
  if (trace != nullptr && capture.any()) {
    trace->attention.assign(sites_.size(), Tensor());  // no site is computed once per prompt
    if (capture.vectors) trace->vectors["embedding"] = memory;
  }
  return memory;
}

std::unique_ptr<DecoderState> DecoderOnly::start(const Matrix& memory) const {
  auto state = std::make_unique<State>();
  state->prompt = std::make_shared<const Matrix>(memory);
  state->layers.resize(weights_.layers.size());
  return state;
}

Matrix DecoderOnly::new_positions(const State& s, int token, NamedVectors* vectors) const {
  const Weights& w = weights_;
  const int context = model_config_.max_positions;
  const int first = s.positions(s.steps), rows = s.steps == 0 ? static_cast<int>(s.prompt->rows()) : 1;
  if (first + rows > context)
    throw InputError("the model's context of " + std::to_string(context) + " positions is full (a prompt of " +
                     std::to_string(s.prompt->rows()) + " tokens, its <bos> counted where it has one, and " +
                     std::to_string(s.steps) + " generated): it cannot continue");
  if (s.steps > 0) return embed(w.token_embed, w.positions, {token}, first, config_.embedding_scale, vectors);
  if (vectors) {
    (*vectors)["embedding"] = *s.prompt;
    (*vectors)["positional"] = w.positions.topRows(rows);
  }
  return *s.prompt + w.positions.topRows(rows);
}

Matrix DecoderOnly::readout(const Matrix& residual, const Interventions& interventions) const {
  const Weights& w = weights_;
  if (config_.norm == NormPosition::Pre && !interventions.skip_layer_norm)
    return ops::linear(w.final_norm(residual), w.output_weight(), w.output_bias);
  return ops::linear(residual, w.output_weight(), w.output_bias);
}

Matrix DecoderOnly::step(const std::vector<DecoderState*>& base_states, const std::vector<int>& tokens,
                         const Capture& capture, const std::vector<StepTrace*>& traces,
                         const Interventions& interventions) const {
  const std::size_t n = base_states.size();
  check_batch(n, tokens.size(), traces.size());
  // Every state of this decoder was made by start(): the cast is the seam's contract.
  std::vector<State*> states(n);
  for (std::size_t i = 0; i < n; ++i) states[i] = static_cast<State*>(base_states[i]);
  // A first step feeds a whole prompt and named vectors belong to one hypothesis: such a batch
  // runs one hypothesis at a time.
  const bool wants_vectors =
      capture.vectors && std::any_of(traces.begin(), traces.end(), [](StepTrace* t) { return t; });
  if (n > 1 && (wants_vectors || std::any_of(states.begin(), states.end(), [](State* s) { return s->steps == 0; })))
    return step_each(base_states, tokens, capture, traces, interventions);
  const Weights& w = weights_;
  auto observes = [&](std::size_t i) { return traces[i] != nullptr && capture.any(); };
  NamedVectors* vectors = n == 1 && observes(0) && capture.vectors ? &traces[0]->vectors : nullptr;

  // The new positions of every hypothesis, stacked.
  std::vector<Matrix> inputs(n);
  Eigen::Index total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    inputs[i] = new_positions(*states[i], tokens[i], vectors);
    total += inputs[i].rows();
  }
  Matrix x(total, w.token_embed.cols());
  for (std::size_t i = 0, row = 0; i < n; row += inputs[i].rows(), ++i) x.middleRows(row, inputs[i].rows()) = inputs[i];

  // [hypothesis][layer][head]: each hypothesis' attention, when its capture asks for it.
  std::vector<std::vector<std::vector<Matrix>>> attn(n);
  for (std::size_t i = 0; i < n; ++i)
    if (observes(i) && capture.attention) attn[i].resize(w.layers.size());
  std::vector<Feed> feeds(n);
  for (std::size_t l = 0; l < w.layers.size(); ++l) {
    for (std::size_t i = 0; i < n; ++i)
      feeds[i] = Feed{&states[i]->layers[l], static_cast<int>(inputs[i].rows()), attn[i].empty() ? nullptr : &attn[i][l]};
    Probe probe;
    probe.vectors = vectors;
    probe.prefix = "layers." + std::to_string(l) + ".";
    x = w.layers[l].forward(x, feeds, probe, edits(static_cast<int>(l), interventions));
  }

  // The prediction of each hypothesis is its last position's.
  Matrix last(static_cast<Eigen::Index>(n), x.cols());
  for (std::size_t i = 0, row = 0; i < n; ++i) {
    row += inputs[i].rows();
    last.row(static_cast<Eigen::Index>(i)) = x.row(static_cast<Eigen::Index>(row) - 1);
  }
  Matrix logits = readout(last, interventions);

  for (std::size_t i = 0; i < n; ++i) {
    // The first step's map keeps its query rows even for a prompt of one token: [L, H, P, P].
    const bool first_step = states[i]->steps++ == 0;
    if (attn[i].empty()) continue;
    traces[i]->attention.assign(sites_.size(), Tensor());
    traces[i]->attention[kSelf] = pack_attention(attn[i], !first_step);
  }
  return logits;
}

}  // namespace attnscope::decoder_only
