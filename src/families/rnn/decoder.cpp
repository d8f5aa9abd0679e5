// The decoder: one target position per step for each hypothesis, in the style the config names
// (rnn.h has the equations). A batch runs its hypotheses one after another, so each row gets
// exactly the bits a batch of one would. The training pass (backward.cpp) runs the same step,
// decoder_step, recording what its backward reads.
#include <algorithm>
#include <cmath>

#include "families/rnn/rnn.h"
#include "layers/attention.h"

namespace attnscope::rnn {

RowVector concat(const RowVector& a, const RowVector& b) {
  RowVector out(a.size() + b.size());
  out << a, b;
  return out;
}

Memory memory_of(const Config& c, const AttentionWeights& w, Matrix states) {
  Memory memory;
  memory.final = final_state(c, states);
  memory.mean = states.colwise().mean();
  if (c.style != Style::None && (c.score == Score::Additive || c.score == Score::General))
    memory.keys = ops::linear(states, w.key_proj, RowVector::Zero(w.key_proj.rows()));
  memory.states = std::move(states);
  return memory;
}

RowVector bridge_state(const Linear& bridge, const RowVector& final) { return bridge(final).array().tanh().matrix(); }

RowVector attentional_state(const Matrix& combine, const RowVector& context, const RowVector& s) {
  return ops::linear(concat(context, s), combine, RowVector::Zero(combine.rows())).array().tanh().matrix();
}

std::unique_ptr<DecoderState> Rnn::start(const Matrix& states) const {
  const Config& c = config_;
  const Weights& w = weights_;
  auto memory = std::make_shared<Memory>(memory_of(c, w.attention, states));

  // Every decoder layer starts from s_0 = tanh(bridge(final)); an LSTM's cell from 0; h~_0 = 0.
  Snapshot s0;
  s0.h.assign(static_cast<std::size_t>(c.n_decoder_layers), bridge_state(w.bridge, memory->final));
  if (c.cell == Cell::LSTM) s0.c.assign(static_cast<std::size_t>(c.n_decoder_layers), RowVector::Zero(c.d_hidden));
  s0.feed = RowVector::Zero(c.d_hidden);

  auto state = std::make_unique<State>();
  state->memory = std::move(memory);
  state->history.push_back(std::move(s0));
  return state;
}

RowVector attend(const Config& c, const AttentionWeights& w, const Memory& m, const RowVector& q,
                 NamedVectors* vectors, AttendRecord* record) {
  const Matrix& H = m.states;
  const Eigen::Index S = H.rows();
  if (record) record->q = q;
  RowVector e(S);  // the energies, before the softmax
  switch (c.score) {
    case Score::Additive: {  // v · tanh(W_q q + W_k h_j)
      const RowVector wq = q * w.query_proj.transpose();
      if (record) record->additive.resize(S, wq.size());
      for (Eigen::Index j = 0; j < S; ++j) {
        const auto t = (wq + m.keys.row(j)).array().tanh().matrix();
        if (record) record->additive.row(j) = t;
        e[j] = t.dot(w.v.row(0));
      }
      break;
    }
    case Score::Dot:  // q · h_j
      e = q * H.transpose();
      break;
    case Score::ScaledDot:  // q · h_j / sqrt(d), by the one owner of that rule
      e = attention_scores(q, H);
      break;
    case Score::General:  // q · (W_a h_j)
      e = q * m.keys.transpose();
      break;
    case Score::Cosine:  // q · h_j / max(|q| |h_j|, 1e-8)
      for (Eigen::Index j = 0; j < S; ++j) e[j] = q.dot(H.row(j)) / std::max(q.norm() * H.row(j).norm(), 1e-8f);
      break;
    case Score::Location:  // (W_a q)_j, one row of W_a per source position, cut to this sentence's S
      // (S <= max_positions = its rows: the source's one length check, decoding/source.cpp, and
      // the training pass's).
      e = q * w.location_proj.topRows(S).transpose();
      break;
  }
  if (vectors) (*vectors)["energies"] = e;

  Matrix a = e;
  if (c.local_window == 0) {
    ops::softmax_rows(a);
    if (record) record->a = a;
    return a;
  }
  // Luong's local-p: a centre p in [0, S - 1], the softmax over the window |j - p| <= D, times a
  // Gaussian of sigma = D / 2 (not renormalised, as in the paper); 0 outside the window.
  const RowVector u = (q * w.position_proj.transpose()).array().tanh().matrix();
  const float gate = 1.0f / (1.0f + std::exp(-u.dot(w.position_v.row(0))));
  const float p = static_cast<float>(S - 1) * gate;
  if (vectors) (*vectors)["position"] = Matrix::Constant(1, 1, p);
  const float D = static_cast<float>(c.local_window), sigma = D / 2.0f;
  float max = -INFINITY;
  for (Eigen::Index j = 0; j < S; ++j)
    if (std::abs(static_cast<float>(j) - p) <= D) max = std::max(max, e[j]);
  float sum = 0.0f;
  for (Eigen::Index j = 0; j < S; ++j) {
    const bool inside = std::abs(static_cast<float>(j) - p) <= D;
    a(0, j) = inside ? std::exp(e[j] - max) : 0.0f;
    sum += a(0, j);
  }
  if (record) record->window.resize(S), record->gauss.resize(S);
  for (Eigen::Index j = 0; j < S; ++j) {
    const float d = static_cast<float>(j) - p;
    const float window = a(0, j) / sum, gauss = std::exp(-(d * d) / (2.0f * sigma * sigma));
    a(0, j) = window * gauss;
    if (record) record->window[j] = window, record->gauss[j] = gauss;
  }
  if (record) record->a = a, record->u = u, record->p = p, record->gate = gate;
  return a;
}

RowVector Rnn::context(const Memory& m, RowVector* a, int position, const Interventions& iv) const {
  if (a && !sites_.empty()) {
    const AttentionEdits edits = iv.attention_edits(sites_[kAttention].name, 0, iv.skip_cross_attention, 1);
    if (edits.any_head() && edits.heads[0].replaced)
      *a = edits.heads[0].weights_for(position, static_cast<int>(m.states.rows()));
  }
  if (iv.last_source_state) return m.final;                      // "last state only"
  if (iv.copy_source_encoding) return m.mean;                    // "no attention"
  if (iv.skip_cross_attention) return RowVector::Zero(m.final.size());  // the source unseen
  return a ? RowVector(*a * m.states) : m.final;
}

RowVector decoder_step(const Config& c, const Weights& w, const Memory& m, const RowVector& e, Snapshot& state,
                       const ContextOf& context, NamedVectors* vectors, RowVector* attention, StepRecord* record) {
  std::vector<CellRecord>* cells = record ? &record->cells : nullptr;
  AttendRecord* attend_record = record ? &record->attend : nullptr;
  RowVector a, ctx, in, out_in;
  switch (c.style) {
    case Style::Bahdanau:
    case Style::None: {
      if (c.style == Style::Bahdanau)  // scored with s_{i-1}
        a = attend(c, w.attention, m, state.h.back(), vectors, attend_record);
      ctx = context(c.style == Style::Bahdanau ? &a : nullptr);
      in = concat(e, ctx);
      decoder_layers(c.cell, w.decoder, in, state.h, state.c, cells);
      out_in = concat(state.h.back(), ctx);
      break;
    }
    case Style::Luong: {
      in = c.input_feeding ? concat(e, state.feed) : e;
      decoder_layers(c.cell, w.decoder, in, state.h, state.c, cells);
      a = attend(c, w.attention, m, state.h.back(), vectors, attend_record);  // scored with s_i
      ctx = context(&a);
      if (record) record->combine_in = concat(ctx, state.h.back());
      state.feed = attentional_state(w.combine, ctx, state.h.back());
      out_in = state.feed;
      if (vectors) (*vectors)["attentional"] = state.feed;
      break;
    }
  }
  if (record) {
    record->in.assign(1, std::move(in));  // layer l > 0 read the new state of layer l - 1
    for (std::size_t l = 1; l < state.h.size(); ++l) record->in.push_back(state.h[l - 1]);
  }
  if (vectors) {
    (*vectors)["embedding"] = e;
    (*vectors)["hidden"] = state.h.back();
    if (c.cell == Cell::LSTM) (*vectors)["cell"] = state.c.back();
    (*vectors)["context"] = ctx;
  }
  if (attention) *attention = std::move(a);
  return out_in;
}

RowVector Rnn::step_one(State& state, int token, NamedVectors* vectors, Matrix* attention,
                        const Interventions& iv) const {
  const Config& c = config_;
  const Weights& w = weights_;
  const int t = state.length();
  if (t >= model_config_.max_positions)
    throw InputError("target position " + std::to_string(t) + " is past the " +
                     std::to_string(model_config_.max_positions) + " positions this model reads");
  if (token < 0 || token >= w.tgt_embed().rows())
    throw IndexError("target token id " + std::to_string(token) + " is outside the vocabulary of " +
                     std::to_string(w.tgt_embed().rows()));
  const Memory& m = *state.memory;
  Snapshot next = state.history.back();  // the step updates it in place
  const ContextOf with_interventions = [&](RowVector* a) { return context(m, a, t, iv); };
  RowVector a;
  const RowVector out_in = decoder_step(c, w, m, w.tgt_embed().row(token), next, with_interventions, vectors, &a);
  if (attention && a.size()) *attention = a;
  state.history.push_back(std::move(next));
  return ops::linear(out_in, w.output.weight, w.output.bias);
}

Matrix Rnn::step(const std::vector<DecoderState*>& states, const std::vector<int>& tokens, const Capture& capture,
                 const std::vector<StepTrace*>& traces, const Interventions& interventions) const {
  const std::size_t n = states.size();
  check_batch(n, tokens.size(), traces.size());
  Matrix logits;
  for (std::size_t i = 0; i < n; ++i) {
    const bool observe = traces[i] != nullptr && capture.any();
    NamedVectors* vectors = observe && capture.vectors ? &traces[i]->vectors : nullptr;
    Matrix attention;
    // Every state of this decoder was made by start(): the cast is the seam's contract.
    const RowVector row = step_one(*static_cast<State*>(states[i]), tokens[i], vectors,
                                   observe && capture.attention ? &attention : nullptr, interventions);
    if (i == 0) logits.resize(static_cast<Eigen::Index>(n), row.size());
    logits.row(static_cast<Eigen::Index>(i)) = row;
    if (observe && capture.attention) {
      traces[i]->attention.assign(sites_.size(), Tensor());
      if (!sites_.empty()) traces[i]->attention[kAttention] = pack_attention({{attention}}, true);
    }
  }
  return logits;
}

}  // namespace attnscope::rnn
