#include "train/rnn_grad.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"
#include "layers/attention.h"
#include "train/blocks.h"

namespace attnscope::train {
namespace {

using rnn::Cell;
using rnn::Score;
using rnn::Style;

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

RowVector concat(const RowVector& a, const RowVector& b) {
  RowVector out(a.size() + b.size());
  out << a, b;
  return out;
}

// ---- one cell step (PyTorch's GRUCell / LSTMCell; the equations of families/rnn/cell.cpp) ----

struct CellCache {
  RowVector h_prev, c_prev;  // [h] the state it started from (c: LSTM)
  RowVector gates;           // [G·h] after their nonlinearities: GRU r, z, n; LSTM i, f, g, o
  RowVector hp_n;            // [h] GRU: W_hn h + b_hn (what r multiplies)
  RowVector c;               // [h] LSTM: the new cell
};

// x_proj = x W_ihᵀ + b_ih [1, G·h]; updates h (and c).
void cell_forward(const CellParams& p, Cell cell, const RowVector& x_proj, RowVector& h, RowVector& c,
                  CellCache& cache) {
  const Eigen::Index H = h.size();
  cache.h_prev = h;
  cache.c_prev = c;
  RowVector hp = h * p.weight_hh.transpose();
  hp += p.bias_hh;
  cache.gates.resize(x_proj.size());
  if (cell == Cell::GRU) {
    cache.hp_n = hp.segment(2 * H, H);
    for (Eigen::Index k = 0; k < H; ++k) {
      const float r = sigmoid(x_proj[k] + hp[k]);
      const float z = sigmoid(x_proj[H + k] + hp[H + k]);
      const float n = std::tanh(x_proj[2 * H + k] + r * hp[2 * H + k]);
      cache.gates[k] = r, cache.gates[H + k] = z, cache.gates[2 * H + k] = n;
      h[k] = (1.0f - z) * n + z * cache.h_prev[k];
    }
    return;
  }
  cache.c.resize(H);
  for (Eigen::Index k = 0; k < H; ++k) {
    const float i = sigmoid(x_proj[k] + hp[k]);
    const float f = sigmoid(x_proj[H + k] + hp[H + k]);
    const float g = std::tanh(x_proj[2 * H + k] + hp[2 * H + k]);
    const float o = sigmoid(x_proj[3 * H + k] + hp[3 * H + k]);
    cache.gates[k] = i, cache.gates[H + k] = f, cache.gates[2 * H + k] = g, cache.gates[3 * H + k] = o;
    cache.c[k] = f * c[k] + i * g;
    h[k] = o * std::tanh(cache.c[k]);
  }
  c = cache.c;
}

// dh, dc: the gradients at the step's new h and c; on return, at the state it started from.
// Adds W_hh's and b_hh's gradients; returns the gradient at x_proj [1, G·h].
RowVector cell_backward(const CellParams& p, CellParams& grad, Cell cell, const CellCache& cache, RowVector& dh,
                        RowVector& dc) {
  const Eigen::Index H = dh.size();
  RowVector d_xp(cache.gates.size()), d_hp(cache.gates.size());
  RowVector dh_direct = RowVector::Zero(H);
  if (cell == Cell::GRU) {
    for (Eigen::Index k = 0; k < H; ++k) {
      const float r = cache.gates[k], z = cache.gates[H + k], n = cache.gates[2 * H + k];
      const float dz = dh[k] * (cache.h_prev[k] - n);
      const float dn_pre = dh[k] * (1.0f - z) * (1.0f - n * n);
      const float dr_pre = dn_pre * cache.hp_n[k] * r * (1.0f - r);
      const float dz_pre = dz * z * (1.0f - z);
      dh_direct[k] = dh[k] * z;
      d_xp[k] = dr_pre, d_xp[H + k] = dz_pre, d_xp[2 * H + k] = dn_pre;
      d_hp[k] = dr_pre, d_hp[H + k] = dz_pre, d_hp[2 * H + k] = dn_pre * r;
    }
  } else {
    for (Eigen::Index k = 0; k < H; ++k) {
      const float i = cache.gates[k], f = cache.gates[H + k], g = cache.gates[2 * H + k], o = cache.gates[3 * H + k];
      const float tc = std::tanh(cache.c[k]);
      const float d_c = dc[k] + dh[k] * o * (1.0f - tc * tc);
      d_xp[k] = d_c * g * i * (1.0f - i);
      d_xp[H + k] = d_c * cache.c_prev[k] * f * (1.0f - f);
      d_xp[2 * H + k] = d_c * i * (1.0f - g * g);
      d_xp[3 * H + k] = dh[k] * tc * o * (1.0f - o);
      dc[k] = d_c * f;
    }
    d_hp = d_xp;
  }
  grad.weight_hh.noalias() += d_hp.transpose() * cache.h_prev;
  grad.bias_hh += d_hp;
  dh = dh_direct + d_hp * p.weight_hh;
  return d_xp;
}

// ---- attention: the score, the softmax (global or local-p), for one query ---------------------

struct AttendCache {
  RowVector q;      // [H] the query
  RowVector a;      // [S] the weights
  Matrix t;         // [S, A] additive: tanh(W_q q + W_k h_j)
  RowVector sm;     // [S] local-p: the window's softmax (0 outside), before the Gaussian
  RowVector gauss;  // [S] local-p: exp(-(j - p)² / (2σ²))
  RowVector u;      // [H] local-p: tanh(W_p q)
  float p = 0, sig = 0;  // local-p: the centre and sigmoid(v_p · u)
};

struct Memory {
  Matrix states;  // H [S, d_mem]
  Matrix keys;    // [S, A] additive H W_kᵀ; [S, H] general H W_aᵀ; empty otherwise
  RowVector final;  // [d_mem]
};

RowVector attend_forward(const RnnParams& w, const Memory& m, const RowVector& q, AttendCache& cache) {
  const rnn::Config& c = w.config;
  const Matrix& H = m.states;
  const Eigen::Index S = H.rows();
  cache.q = q;
  RowVector e(S);  // the energies
  switch (c.score) {
    case Score::Additive: {
      const RowVector wq = q * w.query_proj.transpose();
      cache.t = (m.keys.rowwise() + wq).array().tanh().matrix();
      e = (cache.t * w.v.transpose()).transpose();
      break;
    }
    case Score::Dot: e = q * H.transpose(); break;
    case Score::ScaledDot: e = attention_scores(q, H); break;  // the one owner of q·kᵀ/√d
    case Score::General: e = q * m.keys.transpose(); break;
    case Score::Cosine:
      for (Eigen::Index j = 0; j < S; ++j) e[j] = q.dot(H.row(j)) / std::max(q.norm() * H.row(j).norm(), 1e-8f);
      break;
    case Score::Location:  // RnnParams::zeros refuses these models, so a trainer never gets here
      throw Error("the RNN training pass has no backward for Luong's location score");
  }
  if (c.local_window == 0) {
    cache.a = (e.array() - e.maxCoeff()).exp().matrix();
    cache.a /= cache.a.sum();
    return cache.a;
  }
  cache.u = (q * w.position_proj.transpose()).array().tanh().matrix();
  cache.sig = sigmoid(cache.u.dot(w.position_v.row(0)));
  cache.p = static_cast<float>(S - 1) * cache.sig;
  const float D = static_cast<float>(c.local_window), sigma = D / 2.0f;
  float max = -INFINITY;
  for (Eigen::Index j = 0; j < S; ++j)
    if (std::abs(static_cast<float>(j) - cache.p) <= D) max = std::max(max, e[j]);
  cache.sm = RowVector::Zero(S);
  cache.gauss.resize(S);
  for (Eigen::Index j = 0; j < S; ++j) {
    const float d = static_cast<float>(j) - cache.p;
    if (std::abs(d) <= D) cache.sm[j] = std::exp(e[j] - max);
    cache.gauss[j] = std::exp(-(d * d) / (2.0f * sigma * sigma));
  }
  cache.sm /= cache.sm.sum();
  cache.a = cache.sm.cwiseProduct(cache.gauss);
  return cache.a;
}

// da: the gradient at the weights. Returns the gradient at the query; adds into dH [S, d_mem],
// d_keys (additive, general) and the attention's parameters.
RowVector attend_backward(const RnnParams& w, RnnParams& g, const Memory& m, const AttendCache& cache,
                          const RowVector& da, Matrix& dH, Matrix& d_keys) {
  const rnn::Config& c = w.config;
  const Matrix& H = m.states;
  const Eigen::Index S = H.rows();
  const RowVector& q = cache.q;
  RowVector dq = RowVector::Zero(q.size());
  RowVector de(S);
  if (c.local_window == 0) {
    de = cache.a.cwiseProduct((da.array() - da.dot(cache.a)).matrix());
  } else {
    // a_j = sm_j · gauss_j; ∂gauss_j/∂p = gauss_j (j - p) / σ²; p = (S - 1) σ(v_p · tanh(W_p q))
    const float sigma = static_cast<float>(c.local_window) / 2.0f;
    float dp = 0.0f;
    for (Eigen::Index j = 0; j < S; ++j) dp += da[j] * cache.a[j] * (static_cast<float>(j) - cache.p) / (sigma * sigma);
    const RowVector d_sm = da.cwiseProduct(cache.gauss);
    de = cache.sm.cwiseProduct((d_sm.array() - d_sm.dot(cache.sm)).matrix());  // 0 outside the window
    const float d_gate = dp * static_cast<float>(S - 1) * cache.sig * (1.0f - cache.sig);
    g.position_v.row(0) += d_gate * cache.u;
    const RowVector d_pre = (d_gate * w.position_v.row(0)).cwiseProduct((1.0f - cache.u.array().square()).matrix());
    g.position_proj.noalias() += d_pre.transpose() * q;
    dq += d_pre * w.position_proj;
  }
  switch (c.score) {
    case Score::Additive: {  // e_j = v · t_j,  t_j = tanh(W_q q + k_j)
      g.v.row(0) += de * cache.t;
      const Matrix d_pre = ((de.transpose() * w.v).array() * (1.0f - cache.t.array().square())).matrix();  // [S, A]
      d_keys += d_pre;
      const RowVector d_wq = d_pre.colwise().sum();
      g.query_proj.noalias() += d_wq.transpose() * q;
      dq += d_wq * w.query_proj;
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
    case Score::Location:  // refused by RnnParams::zeros, as above
      throw Error("the RNN training pass has no backward for Luong's location score");
  }
  return dq;
}

// ---- one sentence ---------------------------------------------------------------------------

struct EncoderLayerCache {
  Matrix x;                                  // [S, in] the layer's input
  std::vector<std::vector<CellCache>> steps;  // [direction][k]: the k-th step (backward: position S-1-k)
};

struct StepCache {
  int token = 0;
  std::vector<RowVector> in;     // [layer]: its input; layer 0: [e; c] (Bahdanau, none), [e; h~_{t-1}] or e (Luong)
  std::vector<CellCache> cells;  // [layer]
  AttendCache attend;
  RowVector ctx;                 // [d_mem]
  RowVector out_in;              // the output layer's input: [s_t; c] or h~_t
  RowVector combine_in;          // Luong: [c; s_t]
};

struct SentenceCache {
  std::vector<EncoderLayerCache> encoder;
  Memory memory;
  RowVector s0;                  // [H] tanh(bridge(final))
  std::vector<StepCache> steps;  // one per target position read
  Matrix logits;                 // [T, V]
};

void forward(const RnnParams& w, const Example& ex, SentenceCache& sc) {
  const rnn::Config& c = w.config;
  const Eigen::Index S = static_cast<Eigen::Index>(ex.src.size());
  // encoder
  Matrix x(S, c.d_embed);
  for (Eigen::Index j = 0; j < S; ++j) x.row(j) = w.src_embed.row(ex.src[static_cast<std::size_t>(j)]);
  sc.encoder.resize(static_cast<std::size_t>(c.n_encoder_layers));
  for (int l = 0; l < c.n_encoder_layers; ++l) {
    EncoderLayerCache& lc = sc.encoder[static_cast<std::size_t>(l)];
    lc.x = x;
    lc.steps.assign(static_cast<std::size_t>(c.directions()), std::vector<CellCache>(static_cast<std::size_t>(S)));
    Matrix out(S, c.d_memory());
    for (int dir = 0; dir < c.directions(); ++dir) {
      const CellParams& cell = w.encoder[static_cast<std::size_t>(l * c.directions() + dir)];
      Matrix x_proj = lc.x * cell.weight_ih.transpose();
      x_proj.rowwise() += cell.bias_ih.row(0);
      RowVector h = RowVector::Zero(c.d_encoder), cs = RowVector::Zero(c.d_encoder);
      for (Eigen::Index k = 0; k < S; ++k) {
        const Eigen::Index j = dir == 0 ? k : S - 1 - k;
        cell_forward(cell, c.cell, x_proj.row(j), h, cs, lc.steps[static_cast<std::size_t>(dir)][static_cast<std::size_t>(k)]);
        out.block(j, dir * c.d_encoder, 1, c.d_encoder) = h;
      }
    }
    x = std::move(out);
  }
  Memory& m = sc.memory;
  m.states = std::move(x);
  m.final = rnn::final_state(c, m.states);
  if (c.style != Style::None && (c.score == Score::Additive || c.score == Score::General))
    m.keys = m.states * w.key_proj.transpose();

  // decoder, teacher-forced
  sc.s0 = (m.final * w.bridge.weight.transpose() + w.bridge.bias).array().tanh().matrix();
  std::vector<RowVector> h(static_cast<std::size_t>(c.n_decoder_layers), sc.s0);
  std::vector<RowVector> cs(static_cast<std::size_t>(c.n_decoder_layers), RowVector::Zero(c.d_hidden));
  RowVector feed = RowVector::Zero(c.d_hidden);
  const Eigen::Index T = static_cast<Eigen::Index>(ex.tgt.size()) - 1;
  sc.steps.assign(static_cast<std::size_t>(T), StepCache());
  sc.logits.resize(T, w.tgt_vocab_size);
  for (Eigen::Index t = 0; t < T; ++t) {
    StepCache& st = sc.steps[static_cast<std::size_t>(t)];
    st.token = ex.tgt[static_cast<std::size_t>(t)];
    const RowVector e = w.target_embedding().row(st.token);
    st.in.resize(h.size());
    if (c.style == Style::Bahdanau) {
      st.ctx = attend_forward(w, m, h.back(), st.attend) * m.states;  // scored with s_{t-1}
      st.in[0] = concat(e, st.ctx);
    } else if (c.style == Style::None) {
      st.ctx = m.final;
      st.in[0] = concat(e, st.ctx);
    } else {
      st.in[0] = c.input_feeding ? concat(e, feed) : e;
    }
    st.cells.resize(h.size());
    for (std::size_t l = 0; l < h.size(); ++l) {
      const CellParams& cell = w.decoder[l];
      if (l > 0) st.in[l] = h[l - 1];
      RowVector x_proj = st.in[l] * cell.weight_ih.transpose();
      x_proj += cell.bias_ih;
      cell_forward(cell, c.cell, x_proj, h[l], cs[l], st.cells[l]);
    }
    if (c.style == Style::Luong) {
      st.ctx = attend_forward(w, m, h.back(), st.attend) * m.states;  // scored with s_t
      st.combine_in = concat(st.ctx, h.back());
      feed = (st.combine_in * w.combine.transpose()).array().tanh().matrix();
      st.out_in = feed;
    } else {
      st.out_in = concat(h.back(), st.ctx);
    }
    sc.logits.row(t) = st.out_in * w.output.weight.transpose() + w.output.bias;
  }
}

void backward(const RnnParams& w, RnnParams& g, const Example& ex, const SentenceCache& sc, const Matrix& d_logits) {
  const rnn::Config& c = w.config;
  const Memory& m = sc.memory;
  const Eigen::Index S = m.states.rows(), E = c.d_embed, Hd = c.d_hidden, D = c.d_memory();
  const std::size_t L = static_cast<std::size_t>(c.n_decoder_layers);
  Matrix dH = Matrix::Zero(S, D);
  Matrix d_keys = Matrix::Zero(m.keys.rows(), m.keys.cols());
  RowVector d_final = RowVector::Zero(D);
  std::vector<RowVector> dh(L, RowVector::Zero(Hd)), dc(L, RowVector::Zero(Hd));
  RowVector d_feed = RowVector::Zero(Hd);  // at h~_t, from step t + 1's input (Luong with feeding)

  for (std::size_t t = sc.steps.size(); t-- > 0;) {
    const StepCache& st = sc.steps[t];
    const RowVector dl = d_logits.row(static_cast<Eigen::Index>(t));
    g.output.weight.noalias() += dl.transpose() * st.out_in;
    g.output.bias += dl;
    const RowVector d_out = dl * w.output.weight;
    RowVector d_ctx;
    if (c.style == Style::Luong) {
      const RowVector d_pre = (d_feed + d_out).cwiseProduct((1.0f - st.out_in.array().square()).matrix());
      g.combine.noalias() += d_pre.transpose() * st.combine_in;
      const RowVector d_comb = d_pre * w.combine;
      d_ctx = d_comb.head(D);
      dh.back() += d_comb.tail(Hd);
      dH.noalias() += st.attend.a.transpose() * d_ctx;
      dh.back() += attend_backward(w, g, m, st.attend, d_ctx * m.states.transpose(), dH, d_keys);
    } else {
      dh.back() += d_out.head(Hd);
      d_ctx = d_out.tail(D);
    }
    // the decoder cells, top layer first; dh[l - 1] then holds all of h_t[l - 1]'s gradient
    RowVector dx;
    for (std::size_t l = L; l-- > 0;) {
      const CellParams& cell = w.decoder[l];
      const RowVector d_xp = cell_backward(cell, g.decoder[l], c.cell, st.cells[l], dh[l], dc[l]);
      g.decoder[l].weight_ih.noalias() += d_xp.transpose() * st.in[l];
      g.decoder[l].bias_ih += d_xp;
      dx = d_xp * cell.weight_ih;
      if (l > 0) dh[l - 1] += dx;
    }
    g.target_embedding().row(st.token) += dx.head(E);
    if (c.style == Style::Bahdanau) {
      d_ctx += dx.tail(D);
      dH.noalias() += st.attend.a.transpose() * d_ctx;
      dh.back() += attend_backward(w, g, m, st.attend, d_ctx * m.states.transpose(), dH, d_keys);
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
  g.bridge.weight.noalias() += d_pre.transpose() * m.final;
  g.bridge.bias += d_pre;
  d_final += d_pre * w.bridge.weight;
  dH.row(S - 1).head(c.d_encoder) += d_final.head(c.d_encoder);
  if (c.bidirectional) dH.row(0).tail(c.d_encoder) += d_final.tail(c.d_encoder);
  if (d_keys.size()) {
    g.key_proj.noalias() += d_keys.transpose() * m.states;
    dH.noalias() += d_keys * w.key_proj;
  }

  // the encoder, top layer first
  Matrix d_out = std::move(dH);
  for (int l = c.n_encoder_layers; l-- > 0;) {
    const EncoderLayerCache& lc = sc.encoder[static_cast<std::size_t>(l)];
    Matrix dx_layer = Matrix::Zero(lc.x.rows(), lc.x.cols());
    for (int dir = 0; dir < c.directions(); ++dir) {
      const std::size_t idx = static_cast<std::size_t>(l * c.directions() + dir);
      const CellParams& cell = w.encoder[idx];
      Matrix d_xp(S, cell.weight_ih.rows());
      RowVector dhe = RowVector::Zero(c.d_encoder), dce = RowVector::Zero(c.d_encoder);
      for (Eigen::Index k = S; k-- > 0;) {
        const Eigen::Index j = dir == 0 ? k : S - 1 - k;
        dhe += d_out.block(j, dir * c.d_encoder, 1, c.d_encoder);
        d_xp.row(j) = cell_backward(cell, g.encoder[idx], c.cell,
                                    lc.steps[static_cast<std::size_t>(dir)][static_cast<std::size_t>(k)], dhe, dce);
      }
      g.encoder[idx].weight_ih.noalias() += d_xp.transpose() * lc.x;
      g.encoder[idx].bias_ih += d_xp.colwise().sum();
      dx_layer.noalias() += d_xp * cell.weight_ih;
    }
    d_out = std::move(dx_layer);
  }
  for (Eigen::Index j = 0; j < S; ++j) g.src_embed.row(ex.src[static_cast<std::size_t>(j)]) += d_out.row(j);
}

void check_ids(const std::vector<int>& ids, int vocab, const char* what) {
  for (int id : ids)
    if (id < 0 || id >= vocab)
      throw InputError(std::string(what) + " id " + std::to_string(id) + " is outside the vocabulary of " +
                       std::to_string(vocab));
}

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
  SentenceCache sc;  // reused sentence after sentence
  Matrix d_logits;
  for (const Example& e : batch) {
    forward(params, e, sc);
    const std::vector<int> gold(e.tgt.begin() + 1, e.tgt.end());
    result.loss_sum += smoothed_cross_entropy(sc.logits, gold, options.label_smoothing, result.tokens, d_logits);
    backward(params, grads, e, sc, d_logits);
  }
  return result;
}

}  // namespace attnscope::train
