#include "families/rnn/backward.h"

#include <cmath>
#include <string>

#include "core/error.h"
#include "layers/blocks.h"  // linear_*, embedding_*, smoothed_cross_entropy
#include "layers/params.h"  // count_values
#include "model/differentiable_checks.h"

namespace attnscope::train {
namespace {

using rnn::Cell;
using rnn::Score;
using rnn::Style;

// ---- the backward of one cell step (PyTorch's GRUCell / LSTMCell, families/rnn/cell.cpp) -------

// dh, dc: the gradients at the step's new h and c; on return, at the state it started from.
// Adds W_hh's and b_hh's gradients into `grad` when given; returns the gradient at x_proj [1, G·h].
RowVector cell_backward(const rnn::CellWeights& p, rnn::CellWeights* grad, Cell cell, const rnn::CellRecord& record,
                        RowVector& dh, RowVector& dc) {
  const Eigen::Index H = dh.size();
  RowVector d_xp(record.gates.size()), d_hp(record.gates.size());
  RowVector dh_direct = RowVector::Zero(H);
  if (cell == Cell::GRU) {
    for (Eigen::Index k = 0; k < H; ++k) {
      const float r = record.gates[k], z = record.gates[H + k], n = record.gates[2 * H + k];
      const float dz = dh[k] * (record.h_prev[k] - n);
      const float dn_pre = dh[k] * (1.0f - z) * (1.0f - n * n);
      const float dr_pre = dn_pre * record.hp_n[k] * r * (1.0f - r);
      const float dz_pre = dz * z * (1.0f - z);
      dh_direct[k] = dh[k] * z;
      d_xp[k] = dr_pre, d_xp[H + k] = dz_pre, d_xp[2 * H + k] = dn_pre;
      d_hp[k] = dr_pre, d_hp[H + k] = dz_pre, d_hp[2 * H + k] = dn_pre * r;
    }
  } else {
    for (Eigen::Index k = 0; k < H; ++k) {
      const float i = record.gates[k], f = record.gates[H + k], g = record.gates[2 * H + k], o = record.gates[3 * H + k];
      const float tc = std::tanh(record.c[k]);
      const float d_c = dc[k] + dh[k] * o * (1.0f - tc * tc);
      d_xp[k] = d_c * g * i * (1.0f - i);
      d_xp[H + k] = d_c * record.c_prev[k] * f * (1.0f - f);
      d_xp[2 * H + k] = d_c * i * (1.0f - g * g);
      d_xp[3 * H + k] = dh[k] * tc * o * (1.0f - o);
      dc[k] = d_c * f;
    }
    d_hp = d_xp;
  }
  if (grad) {
    grad->weight_hh.noalias() += d_hp.transpose() * record.h_prev;
    grad->bias_hh += d_hp;
  }
  dh = dh_direct + d_hp * p.weight_hh;
  return d_xp;
}

// Adds the input projection's gradients (x_proj = x W_ihᵀ + b_ih) into `grad` when given.
void add_input_projection(rnn::CellWeights* grad, const Matrix& d_xp, const Matrix& x) {
  if (!grad) return;
  grad->weight_ih.noalias() += d_xp.transpose() * x;
  grad->bias_ih += d_xp.colwise().sum();
}

// ---- the backward of one attention (families/rnn/decoder.cpp's attend) ------------------------

// da: the gradient at the weights. Returns the gradient at the query; adds into dH [S, d_mem],
// d_keys (additive, general) and, when `g` is given, the attention's parameters.
RowVector attend_backward(const rnn::Config& c, const rnn::AttentionWeights& p, rnn::AttentionWeights* g,
                          const rnn::Memory& m, const rnn::AttendRecord& rec, const RowVector& da, Matrix& dH,
                          Matrix& d_keys) {
  const Matrix& H = m.states;
  const Eigen::Index S = H.rows();
  const RowVector& q = rec.q;
  RowVector dq = RowVector::Zero(q.size());
  RowVector de(S);
  if (c.local_window == 0) {
    de = rec.a.cwiseProduct((da.array() - da.dot(rec.a)).matrix());
  } else {
    // a_j = window_j · gauss_j; ∂gauss_j/∂p = gauss_j (j - p) / σ²; p = (S - 1) σ(v_p · tanh(W_p q))
    const float sigma = static_cast<float>(c.local_window) / 2.0f;
    float dp = 0.0f;
    for (Eigen::Index j = 0; j < S; ++j) dp += da[j] * rec.a[j] * (static_cast<float>(j) - rec.p) / (sigma * sigma);
    const RowVector d_window = da.cwiseProduct(rec.gauss);
    de = rec.window.cwiseProduct((d_window.array() - d_window.dot(rec.window)).matrix());  // 0 outside the window
    const float d_gate = dp * static_cast<float>(S - 1) * rec.gate * (1.0f - rec.gate);
    const RowVector d_pre = (d_gate * p.position_v.row(0)).cwiseProduct((1.0f - rec.u.array().square()).matrix());
    if (g) {
      g->position_v.row(0) += d_gate * rec.u;
      g->position_proj.noalias() += d_pre.transpose() * q;
    }
    dq += d_pre * p.position_proj;
  }
  switch (c.score) {
    case Score::Additive: {  // e_j = v · t_j,  t_j = tanh(W_q q + k_j)
      const Matrix d_pre = ((de.transpose() * p.v).array() * (1.0f - rec.additive.array().square())).matrix();  // [S, A]
      d_keys += d_pre;
      const RowVector d_wq = d_pre.colwise().sum();
      if (g) {
        g->v.row(0) += de * rec.additive;
        g->query_proj.noalias() += d_wq.transpose() * q;
      }
      dq += d_wq * p.query_proj;
      break;
    }
    case Score::Dot:
    case Score::ScaledDot: {
      const float scale = c.score == Score::Dot ? 1.0f : 1.0f / std::sqrt(static_cast<float>(q.size()));
      dq += scale * (de * H);
      dH.noalias() += scale * (de.transpose() * q);
      break;
    }
    case Score::General:  // e = keys q
      dq += de * m.keys;
      d_keys.noalias() += de.transpose() * q;
      break;
    case Score::Cosine: {  // e_j = q·h_j / max(|q| |h_j|, 1e-8)
      const float nq = q.norm();
      for (Eigen::Index j = 0; j < S; ++j) {
        const float nh = H.row(j).norm(), n = nq * nh, dot = q.dot(H.row(j));
        if (n > 1e-8f) {
          const float dd = de[j] / n, dn = -de[j] * dot / (n * n);
          dq += dd * H.row(j) + (dn * nh / nq) * q;
          dH.row(j) += dd * q + (dn * nq / nh) * H.row(j);
        } else {  // the clamp: the norms get no gradient
          dq += (de[j] / 1e-8f) * H.row(j);
          dH.row(j) += (de[j] / 1e-8f) * q;
        }
      }
      break;
    }
    case Score::Location:  // e = W_a[:S] q: a row of W_a per source position, those past S unused
      dq += de * p.location_proj.topRows(S);
      if (g) g->location_proj.topRows(S).noalias() += de.transpose() * q;
      break;
  }
  return dq;
}

// ---- one sentence ---------------------------------------------------------------------------

struct EncoderLayerCache {
  Matrix x;                                       // [S, in] the layer's input
  std::vector<std::vector<rnn::CellRecord>> steps;  // [direction][k]: the k-th step (backward: position S-1-k)
};

struct StepCache : rnn::StepRecord {
  RowVector out_in;  // the output layer's input: [s_t; c] or h~_t
};

struct SentenceCache {
  std::vector<EncoderLayerCache> encoder;
  rnn::Memory memory;
  RowVector s0;                  // [H] tanh(bridge(final))
  std::vector<StepCache> steps;  // one per target position read
  Matrix logits;                 // [T, V]
};

// The teacher-forced forward from the embeddings the encoder reads, x_src [S, E], and those the
// decoder reads, x_tgt [T, E]: logits [T, V], row t after reading x_tgt's rows 0..t. The weights
// are training's (all plain) or a loaded model's: the bridge and the output layer in any form.
void forward(const rnn::Config& c, const rnn::Weights& w, const Matrix& x_src, const Matrix& x_tgt,
             SentenceCache& sc) {
  const Eigen::Index S = x_src.rows();
  Matrix x = x_src;
  sc.encoder.resize(static_cast<std::size_t>(c.n_encoder_layers));
  for (int l = 0; l < c.n_encoder_layers; ++l) {
    EncoderLayerCache& lc = sc.encoder[static_cast<std::size_t>(l)];
    lc.x = std::move(x);
    lc.steps.resize(static_cast<std::size_t>(c.directions()));
    x.resize(S, c.d_memory());
    for (int dir = 0; dir < c.directions(); ++dir)
      rnn::encode_direction(c.cell, w.encoder[static_cast<std::size_t>(l * c.directions() + dir)], lc.x, dir,
                            x.middleCols(dir * c.d_encoder, c.d_encoder), &lc.steps[static_cast<std::size_t>(dir)]);
  }
  sc.memory = rnn::memory_of(c, w.attention, std::move(x));
  const rnn::Memory& m = sc.memory;

  // s_0 as start() computes it (the inference layer's own product: the kernel).
  sc.s0 = rnn::bridge_state(w.bridge, m.final);
  rnn::Snapshot state;
  state.h.assign(static_cast<std::size_t>(c.n_decoder_layers), sc.s0);
  state.c.assign(static_cast<std::size_t>(c.n_decoder_layers), RowVector::Zero(c.d_hidden));
  state.feed = RowVector::Zero(c.d_hidden);
  const rnn::ContextOf context = [&m](RowVector* a) { return a ? RowVector(*a * m.states) : m.final; };
  const Eigen::Index T = x_tgt.rows();
  sc.steps.assign(static_cast<std::size_t>(T), StepCache());
  sc.logits.resize(T, w.output.weight.rows());
  for (Eigen::Index t = 0; t < T; ++t) {
    StepCache& st = sc.steps[static_cast<std::size_t>(t)];
    st.out_in = rnn::decoder_step(c, w, m, x_tgt.row(t), state, context, nullptr, nullptr, &st);
    sc.logits.row(t) = linear_forward(w.output, st.out_in);  // the reference product for plain weights
  }
}

// The gradients at the forward's embeddings, d_src [S, E] and d_tgt [T, E], of Σ d_logits ∘ logits;
// the parameters' gradients are added into `g` (plain weights) when it is given.
void backward(const rnn::Config& c, const rnn::Weights& w, rnn::Weights* g, const SentenceCache& sc,
              const Matrix& d_logits, Matrix& d_src, Matrix& d_tgt) {
  const rnn::Memory& m = sc.memory;
  const Eigen::Index S = m.states.rows(), E = c.d_embed, Hd = c.d_hidden, D = c.d_memory();
  const std::size_t L = static_cast<std::size_t>(c.n_decoder_layers);
  rnn::AttentionWeights* g_attention = g ? &g->attention : nullptr;
  Matrix dH = Matrix::Zero(S, D);
  Matrix d_keys = Matrix::Zero(m.keys.rows(), m.keys.cols());
  RowVector d_final = RowVector::Zero(D);
  std::vector<RowVector> dh(L, RowVector::Zero(Hd)), dc(L, RowVector::Zero(Hd));
  RowVector d_feed = RowVector::Zero(Hd);  // at h~_t, from step t + 1's input (Luong with feeding)
  d_tgt.setZero(static_cast<Eigen::Index>(sc.steps.size()), E);

  for (std::size_t t = sc.steps.size(); t-- > 0;) {
    const StepCache& st = sc.steps[t];
    const RowVector dl = d_logits.row(static_cast<Eigen::Index>(t));
    const RowVector d_out = linear_backward(w.output, g ? &g->output : nullptr, st.out_in, dl);
    RowVector d_ctx;
    if (c.style == Style::Luong) {
      const RowVector d_pre = (d_feed + d_out).cwiseProduct((1.0f - st.out_in.array().square()).matrix());
      if (g) g->combine.noalias() += d_pre.transpose() * st.combine_in;
      const RowVector d_comb = d_pre * w.combine;
      d_ctx = d_comb.head(D);
      dh.back() += d_comb.tail(Hd);
      dH.noalias() += st.attend.a.transpose() * d_ctx;
      dh.back() += attend_backward(c, w.attention, g_attention, m, st.attend, d_ctx * m.states.transpose(), dH, d_keys);
    } else {
      dh.back() += d_out.head(Hd);
      d_ctx = d_out.tail(D);
    }
    // the decoder cells, top layer first; dh[l - 1] then holds all of h_t[l - 1]'s gradient
    RowVector dx;
    for (std::size_t l = L; l-- > 0;) {
      const rnn::CellWeights& cell = w.decoder[l];
      rnn::CellWeights* g_cell = g ? &g->decoder[l] : nullptr;
      const RowVector d_xp = cell_backward(cell, g_cell, c.cell, st.cells[l], dh[l], dc[l]);
      add_input_projection(g_cell, d_xp, st.in[l]);
      dx = d_xp * cell.weight_ih;
      if (l > 0) dh[l - 1] += dx;
    }
    d_tgt.row(static_cast<Eigen::Index>(t)) = dx.head(E);
    if (c.style == Style::Bahdanau) {
      d_ctx += dx.tail(D);
      dH.noalias() += st.attend.a.transpose() * d_ctx;
      dh.back() += attend_backward(c, w.attention, g_attention, m, st.attend, d_ctx * m.states.transpose(), dH, d_keys);
    } else if (c.style == Style::None) {
      d_final += d_ctx + dx.tail(D);
    } else {
      d_feed = c.input_feeding ? RowVector(dx.tail(Hd)) : RowVector::Zero(Hd);
    }
  }

  // the bridge: every layer started from s0 (an LSTM's cell and h~_0 are constants)
  RowVector d_s0 = RowVector::Zero(Hd);
  for (const RowVector& d : dh) d_s0 += d;
  const RowVector d_pre = d_s0.cwiseProduct((1.0f - sc.s0.array().square()).matrix());
  d_final += linear_backward(w.bridge, g ? &g->bridge : nullptr, m.final, d_pre);
  dH.row(S - 1).head(c.d_encoder) += d_final.head(c.d_encoder);
  if (c.bidirectional) dH.row(0).tail(c.d_encoder) += d_final.tail(c.d_encoder);
  if (d_keys.size()) {
    if (g) g->attention.key_proj.noalias() += d_keys.transpose() * m.states;
    dH.noalias() += d_keys * w.attention.key_proj;
  }

  // the encoder, top layer first
  Matrix d_out = std::move(dH);
  for (int l = c.n_encoder_layers; l-- > 0;) {
    const EncoderLayerCache& lc = sc.encoder[static_cast<std::size_t>(l)];
    Matrix dx_layer = Matrix::Zero(lc.x.rows(), lc.x.cols());
    for (int dir = 0; dir < c.directions(); ++dir) {
      const std::size_t idx = static_cast<std::size_t>(l * c.directions() + dir);
      const rnn::CellWeights& cell = w.encoder[idx];
      rnn::CellWeights* g_cell = g ? &g->encoder[idx] : nullptr;
      Matrix d_xp(S, cell.weight_ih.rows());
      RowVector dhe = RowVector::Zero(c.d_encoder), dce = RowVector::Zero(c.d_encoder);
      for (Eigen::Index k = S; k-- > 0;) {
        const Eigen::Index j = dir == 0 ? k : S - 1 - k;
        dhe += d_out.block(j, dir * c.d_encoder, 1, c.d_encoder);
        d_xp.row(j) = cell_backward(cell, g_cell, c.cell,
                                    lc.steps[static_cast<std::size_t>(dir)][static_cast<std::size_t>(k)], dhe, dce);
      }
      add_input_projection(g_cell, d_xp, lc.x);
      dx_layer.noalias() += d_xp * cell.weight_ih;
    }
    d_out = std::move(dx_layer);
  }
  d_src = std::move(d_out);
}

void check_ids(const std::vector<int>& ids, int vocab, const char* what) {
  for (int id : ids)
    if (id < 0 || id >= vocab)
      throw InputError(std::string(what) + " id " + std::to_string(id) + " is outside the vocabulary of " +
                       std::to_string(vocab));
}

// The values the pass reads: every tensor of the model file.
std::size_t values_read(const rnn::Weights& w) {
  std::size_t n = count_values(w.src_embed) + count_values(w.bridge) + count_values(w.output);
  if (!w.shared_embeddings) n += count_values(w.tgt_embed_);
  for (const auto* cells : {&w.encoder, &w.decoder})
    for (const rnn::CellWeights& c : *cells)
      n += static_cast<std::size_t>(c.weight_ih.size() + c.weight_hh.size() + c.bias_ih.size() + c.bias_hh.size());
  const rnn::AttentionWeights& a = w.attention;
  for (const Matrix* m :
       {&a.query_proj, &a.key_proj, &a.v, &a.location_proj, &a.position_proj, &a.position_v, &w.combine})
    n += static_cast<std::size_t>(m->size());
  return n;
}

// One sentence pair's forward and backward on the weights a loaded model holds.
class RnnPass {
 public:
  RnnPass(const rnn::Config& config, const rnn::Weights& weights) : config_(&config), weights_(&weights) {}

  Matrix forward(const Matrix& x_src, const Matrix& x_tgt) {
    train::forward(*config_, *weights_, x_src, x_tgt, cache_);
    return cache_.logits;
  }
  InputEmbeddings backward(const Matrix& d_logits) const {
    InputEmbeddings d;
    train::backward(*config_, *weights_, nullptr, cache_, d_logits, d.source, d.target);
    return d;
  }

 private:
  const rnn::Config* config_;
  const rnn::Weights* weights_;
  SentenceCache cache_;
};

class RnnDifferentiable : public PassDifferentiable<RnnPass> {
 public:
  RnnDifferentiable(std::shared_ptr<const Model> model, const rnn::Rnn& rnn)
      : PassDifferentiable(model, RnnPass(rnn.config(), rnn.weights()), values_read(rnn.weights())),
        config_(rnn.config()),
        weights_(rnn.weights()),
        max_positions_(model->config.max_positions) {}

  // The rows of the embedding tables: the RNN has no embedding scale.
  InputEmbeddings embed(const Tokens& tokens) const override {
    check_tokens(tokens);
    return {embedding_forward(weights_.src_embed, tokens.source, 1.0f, "source"),
            embedding_forward(weights_.tgt_embed(), tokens.target, 1.0f, "target")};
  }

  Matrix forward(const Tokens& tokens, const InputEmbeddings& inputs) override {
    check_tokens(tokens);
    check_input_rows(inputs.source, tokens.source.size(), config_.d_embed, "source");
    check_input_rows(inputs.target, tokens.target.size(), config_.d_embed, "target");
    return remember([&] { return pass_.forward(inputs.source, inputs.target); });
  }

  InputEmbeddings backward(const Matrix& d_logits) override {
    check_backward(d_logits);
    return pass_.backward(d_logits);
  }

  int vocab_size() const override { return static_cast<int>(weights_.output.weight.rows()); }

 private:
  // Both sides, within max_positions (the location score has a row per source position, the
  // decoder a position per target token).
  void check_tokens(const Tokens& tokens) const {
    check_side(tokens.source, true, max_positions_, "source");
    check_side(tokens.target, true, max_positions_, "target");
  }

  const rnn::Config& config_;
  const rnn::Weights& weights_;
  int max_positions_;
};

}  // namespace

void check_rnn_loss_options(const LossOptions& options) {
  if (options.dropout > 0.0f)
    throw InputError("the RNN family trains without dropout (its reference, models/reference/attnscope_ref/rnn.py, has none): "
                     "set dropout to 0");
}

LossResult loss_and_gradients(const RnnParams& params, const std::vector<Example>& batch,
                              const LossOptions& options, Random* random, RnnParams& grads) {
  if (random) check_rnn_loss_options(options);
  LossResult result;
  for (const Example& e : batch) {
    if (e.src.empty() || e.tgt.size() < 2) throw InputError("a training pair needs a source and a target token");
    if (static_cast<int>(e.src.size()) > params.shared.max_positions ||
        static_cast<int>(e.tgt.size()) - 1 > params.shared.max_positions)
      throw InputError("a training pair is longer than max_positions = " + std::to_string(params.shared.max_positions));
    check_ids(e.src, params.src_vocab_size, "source");
    check_ids(e.tgt, params.tgt_vocab_size, "target");
    result.tokens += static_cast<int>(e.tgt.size()) - 1;
  }
  const rnn::Weights& w = params.weights;
  SentenceCache sc;  // reused sentence after sentence
  Matrix d_logits, d_src, d_tgt;
  for (const Example& e : batch) {
    const std::vector<int> inputs(e.tgt.begin(), e.tgt.end() - 1);  // what the decoder reads
    forward(params.config, w, embedding_forward(w.src_embed, e.src, 1.0f, "source"),
            embedding_forward(w.tgt_embed(), inputs, 1.0f, "target"), sc);
    const std::vector<int> gold(e.tgt.begin() + 1, e.tgt.end());
    result.loss_sum += smoothed_cross_entropy(sc.logits, gold, options.label_smoothing, result.tokens, d_logits);
    backward(params.config, w, &grads.weights, sc, d_logits, d_src, d_tgt);
    embedding_backward(grads.weights.src_embed, e.src, 1.0f, d_src);
    embedding_backward(grads.target_embedding(), inputs, 1.0f, d_tgt);
  }
  return result;
}

std::unique_ptr<Differentiable> rnn_differentiable(std::shared_ptr<const Model> model) {
  const auto* rnn = dynamic_cast<const rnn::Rnn*>(model->family.get());
  if (!rnn) throw InputError("the model is a '" + model->config.architecture + "', not an RNN");
  return std::make_unique<RnnDifferentiable>(model, *rnn);
}

}  // namespace attnscope::train
