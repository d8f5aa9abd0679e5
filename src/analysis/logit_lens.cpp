#include "analysis/logit_lens.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "model/seq2seq.h"

namespace attnscope {
namespace {

std::string output_name(int layer) { return "layers." + std::to_string(layer) + ".output"; }

// The residual stream after every layer at the position a step predicts from, [layers, d], from
// what the step captured; empty when it captured no vectors. A step may feed several positions
// at once (a decoder-only model's first step runs its whole prompt): the last one predicts.
Matrix captured_residuals(const NamedVectors& vectors, int layers) {
  Matrix rows;
  for (int l = 0; l < layers; ++l) {
    const auto found = vectors.find(output_name(l));
    if (found == vectors.end()) return Matrix();
    if (l == 0) rows.resize(layers, found->second.cols());
    rows.row(l) = found->second.bottomRows(1);
  }
  return rows;
}

// The expansion of step `step` whose hypothesis had generated tokens[0, step), or null.
const Expansion* expansion_along(const DecodeSession& session, int step, const std::vector<int>& tokens) {
  for (const Expansion& e : session.record(step).expansions)
    if (static_cast<int>(e.prefix.size()) == step && std::equal(e.prefix.begin(), e.prefix.end(), tokens.begin()))
      return &e;
  return nullptr;
}

// Per step, the residuals of `tokens`' path: the captured ones if every step has them, else a
// replay of the path on a fresh decoder state with vectors captured.
std::vector<Matrix> residuals_along(const DecodeSession& session, const std::vector<int>& tokens, int layers) {
  const int steps = static_cast<int>(tokens.size());
  std::vector<Matrix> out;
  for (int s = 0; s < steps; ++s) {
    const Expansion* e = expansion_along(session, s, tokens);
    if (!e) break;
    Matrix rows = captured_residuals(e->trace.vectors, layers);
    if (rows.size() == 0) break;
    out.push_back(std::move(rows));
  }
  if (static_cast<int>(out.size()) == steps) return out;

  out.clear();
  const Model& model = session.model();
  const Interventions& iv = session.options().interventions;
  const Matrix memory = encode(model, session.source().ids, Capture{}, nullptr, iv);
  const std::unique_ptr<DecoderState> state = start_decoder(model, memory);
  Capture vectors;
  vectors.vectors = true;
  int input = model.config.special.bos;
  for (int s = 0; s < steps; ++s) {
    StepTrace trace;
    decode_step(model, *state, input, vectors, &trace, iv);
    out.push_back(captured_residuals(trace.vectors, layers));
    if (out.back().size() == 0) throw Error("the decoder did not record its layers' outputs for the logit lens");
    input = tokens[s];
  }
  return out;
}

// The k most probable ids of one row of logits, most probable first, lower id on ties.
std::vector<int> most_probable(const Matrix& logits, int row, int k) {
  std::vector<int> ids(static_cast<std::size_t>(logits.cols()));
  std::iota(ids.begin(), ids.end(), 0);
  k = std::min<int>(k, static_cast<int>(ids.size()));
  std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), [&](int a, int b) {
    const float x = logits(row, a), y = logits(row, b);
    return x > y || (x == y && a < b);
  });
  ids.resize(k);
  return ids;
}

LensLayer read_layer(const Matrix& logits, int row, int top_k, int chosen, const Vocabulary& vocab) {
  const ops::LogSoftmax norm = ops::log_softmax_of_row(logits.row(row));
  auto prob = [&](int id) { return std::exp(norm.log_prob(logits(row, id))); };
  LensLayer layer;
  for (int id : most_probable(logits, row, top_k)) layer.top.push_back({id, vocab.token(id), prob(id)});
  layer.chosen_prob = prob(chosen);
  const float chosen_logit = logits(row, chosen);
  layer.chosen_rank = 1 + static_cast<int>((logits.row(row).array() > chosen_logit).count());
  return layer;
}

// The session's leading hypothesis: the best finished one once done, else the first live one.
std::vector<int> leading_tokens(const DecodeSession& session) {
  if (session.done()) {
    const std::vector<FinishedHypothesis> best = session.nbest();
    if (!best.empty()) return best.front().tokens;
  }
  const std::vector<Hypothesis> live = session.live();
  return live.empty() ? std::vector<int>{} : live.front().tokens;
}

}  // namespace

LogitLens logit_lens(const DecodeSession& session, int top_k) {
  return logit_lens(session, top_k, leading_tokens(session));
}

LogitLens logit_lens(const DecodeSession& session, int top_k, const std::vector<int>& tokens) {
  const Model& model = session.model();
  const Decoder& decoder = model.decoder();
  const int layers = decoder.lens_layers();
  if (layers <= 0)
    throw InputError("this model has no logit lens: its decoder has no layers whose residual stream can be read out");
  if (top_k < 1) throw InputError("the logit lens' top_k must be at least 1, got " + std::to_string(top_k));
  if (static_cast<int>(tokens.size()) > session.steps_taken())
    throw InputError("the logit lens was given " + std::to_string(tokens.size()) + " tokens but the session has taken " +
                     std::to_string(session.steps_taken()) + " steps");
  const Vocabulary& vocab = model.tgt_vocab;
  for (int id : tokens) vocab.token(id);  // throws IndexError for a bad id

  LogitLens lens;
  lens.layers = layers;
  const std::vector<Matrix> residuals = residuals_along(session, tokens, layers);
  for (std::size_t s = 0; s < tokens.size(); ++s) {
    const Matrix logits = decoder.readout(residuals[s], session.options().interventions);
    LensStep step;
    step.token = tokens[s];
    step.piece = vocab.token(tokens[s]);
    for (int l = 0; l < layers; ++l) step.layers.push_back(read_layer(logits, l, top_k, tokens[s], vocab));
    lens.steps.push_back(std::move(step));
  }
  return lens;
}

}  // namespace attnscope
