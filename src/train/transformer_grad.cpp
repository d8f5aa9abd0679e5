#include "train/transformer_grad.h"

#include <cmath>
#include <string>

#include "core/error.h"

namespace attnscope::train {
namespace {

// ---- forward caches: one flat struct per layer ---------------------------------------------

struct EncoderLayerCache {
  NormCache self_attn_norm;  // post: of x + attn; pre: of x
  AttentionCache self_attn;
  Matrix self_attn_drop;     // [N, d] dropout mask (empty without dropout)
  NormCache ffn_norm;
  FeedForwardCache ffn;
  Matrix ffn_drop;
};

struct DecoderLayerCache {
  NormCache self_attn_norm;
  AttentionCache self_attn;
  Matrix self_attn_drop;
  NormCache cross_attn_norm;
  AttentionCache cross_attn;
  Matrix cross_attn_drop;
  NormCache ffn_norm;
  FeedForwardCache ffn;
  Matrix ffn_drop;
};

struct ForwardCache {
  std::vector<Segment> src_segments, tgt_segments;  // rows of each sentence
  std::vector<int> src_ids, src_pos, tgt_ids, tgt_pos, gold;  // per packed row
  Matrix src_embed_drop, tgt_embed_drop;  // dropout masks on the embeddings
  std::vector<EncoderLayerCache> encoder;
  std::vector<DecoderLayerCache> decoder;
  NormCache encoder_final_norm, decoder_final_norm;  // pre-norm
  Matrix memory;       // [S, d] encoder output (after final_norm in pre)
  Matrix decoder_out;  // [T, d] input of the output projection
  Matrix probs;        // [T, V] softmax of the logits
};

// A residual sub-layer, forward:  post: LN(x + drop(f(x)));  pre: x + drop(f(LN(x))).
template <class F>
Matrix sublayer_forward(const Matrix& x, const NormParams& norm, const ModelConfig& c, NormCache& norm_cache,
                        Matrix& drop_mask, float dropout, Random* random, F f) {
  const float eps = static_cast<float>(c.layer_norm_eps);
  if (c.norm == NormPosition::Pre) {
    const Matrix h = layer_norm_forward(norm, eps, x, norm_cache);
    return x + dropout_forward(f(h), dropout, random, drop_mask);
  }
  const Matrix sum = x + dropout_forward(f(x), dropout, random, drop_mask);
  return layer_norm_forward(norm, eps, sum, norm_cache);
}

// Backward of the above; `f_back(d_out_of_f)` returns the gradient at f's input.
template <class FBack>
Matrix sublayer_backward(const Matrix& dy, const NormParams& norm, NormParams& norm_grad, const ModelConfig& c,
                         const NormCache& norm_cache, const Matrix& drop_mask, FBack f_back) {
  if (c.norm == NormPosition::Pre) {
    const Matrix dh = f_back(dropout_backward(dy, drop_mask));
    return dy + layer_norm_backward(norm, norm_grad, norm_cache, dh);
  }
  const Matrix d_sum = layer_norm_backward(norm, norm_grad, norm_cache, dy);
  return d_sum + f_back(dropout_backward(d_sum, drop_mask));
}

void check_ids(const std::vector<int>& ids, int vocab, const char* what) {
  for (int id : ids)
    if (id < 0 || id >= vocab)
      throw InputError(std::string(what) + " id " + std::to_string(id) + " is outside the vocabulary of " +
                       std::to_string(vocab));
}

// embed[ids] * scale + positions[pos]
Matrix embed(const Matrix& table, const std::vector<int>& ids, const std::vector<int>& pos, float scale,
             const Matrix& positions) {
  Matrix x(ids.size(), table.cols());
  for (std::size_t r = 0; r < ids.size(); ++r) x.row(r) = table.row(ids[r]) * scale + positions.row(pos[r]);
  return x;
}

void embed_backward(Matrix& table_grad, Matrix* positions_grad, const std::vector<int>& ids,
                    const std::vector<int>& pos, float scale, const Matrix& dx) {
  for (std::size_t r = 0; r < ids.size(); ++r) {
    table_grad.row(ids[r]) += dx.row(r) * scale;
    if (positions_grad) positions_grad->row(pos[r]) += dx.row(r);
  }
}

}  // namespace

Matrix sinusoidal_table(int positions, int d) {
  Matrix pe(positions, d);
  for (int p = 0; p < positions; ++p)
    for (int j = 0; j < d; ++j) {
      const double angle = p / std::pow(10000.0, static_cast<double>(j - j % 2) / d);
      pe(p, j) = static_cast<float>(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  return pe;
}

LossResult loss_and_gradients(const TransformerParams& params, const std::vector<Example>& batch,
                              const LossOptions& options, Random* random, TransformerParams& grads) {
  const ModelConfig& c = params.config;
  const float scale = static_cast<float>(c.embedding_scale);
  const float p_drop = random ? options.dropout : 0.0f;
  ForwardCache fc;

  // ---- the batch, packed ----
  for (const Example& e : batch) {
    if (e.src.empty() || e.tgt.size() < 2) throw InputError("a training pair needs a source and a target token");
    if (static_cast<int>(e.src.size()) > c.max_positions || static_cast<int>(e.tgt.size()) - 1 > c.max_positions)
      throw InputError("a training pair is longer than max_positions = " + std::to_string(c.max_positions));
    fc.src_segments.push_back({static_cast<int>(fc.src_ids.size()), static_cast<int>(e.src.size())});
    fc.tgt_segments.push_back({static_cast<int>(fc.tgt_ids.size()), static_cast<int>(e.tgt.size()) - 1});
    for (std::size_t t = 0; t < e.src.size(); ++t) fc.src_ids.push_back(e.src[t]), fc.src_pos.push_back(t);
    for (std::size_t t = 0; t + 1 < e.tgt.size(); ++t)
      fc.tgt_ids.push_back(e.tgt[t]), fc.tgt_pos.push_back(t), fc.gold.push_back(e.tgt[t + 1]);
  }
  check_ids(fc.src_ids, params.src_vocab_size, "source");
  check_ids(fc.tgt_ids, params.tgt_vocab_size, "target");
  check_ids(fc.gold, params.tgt_vocab_size, "target");
  const bool learned = c.positions == Positions::Learned;
  const Matrix sinusoids = learned ? Matrix() : sinusoidal_table(c.max_positions, c.d_model);
  const Matrix& enc_positions = learned ? params.encoder_pos : sinusoids;
  const Matrix& dec_positions = learned ? params.decoder_pos : sinusoids;

  // ---- encoder ----
  Matrix x = dropout_forward(embed(params.src_embed, fc.src_ids, fc.src_pos, scale, enc_positions), p_drop, random,
                             fc.src_embed_drop);
  fc.encoder.resize(params.encoder.size());
  for (std::size_t l = 0; l < params.encoder.size(); ++l) {
    const EncoderLayerParams& p = params.encoder[l];
    EncoderLayerCache& lc = fc.encoder[l];
    x = sublayer_forward(x, p.self_attn_norm, c, lc.self_attn_norm, lc.self_attn_drop, p_drop, random,
                         [&](const Matrix& h) {
                           return attention_forward(p.self_attn, c.n_heads, h, h, fc.src_segments, fc.src_segments,
                                                    /*causal=*/false, lc.self_attn);
                         });
    x = sublayer_forward(x, p.ffn_norm, c, lc.ffn_norm, lc.ffn_drop, p_drop, random,
                         [&](const Matrix& h) { return ffn_forward(p.ffn, c.activation, h, lc.ffn); });
  }
  fc.memory = c.norm == NormPosition::Pre
                  ? layer_norm_forward(params.encoder_final_norm, static_cast<float>(c.layer_norm_eps), x,
                                       fc.encoder_final_norm)
                  : x;

  // ---- decoder ----
  Matrix y = dropout_forward(embed(params.target_embedding(), fc.tgt_ids, fc.tgt_pos, scale, dec_positions), p_drop,
                             random, fc.tgt_embed_drop);
  fc.decoder.resize(params.decoder.size());
  for (std::size_t l = 0; l < params.decoder.size(); ++l) {
    const DecoderLayerParams& p = params.decoder[l];
    DecoderLayerCache& lc = fc.decoder[l];
    y = sublayer_forward(y, p.self_attn_norm, c, lc.self_attn_norm, lc.self_attn_drop, p_drop, random,
                         [&](const Matrix& h) {
                           return attention_forward(p.self_attn, c.n_heads, h, h, fc.tgt_segments, fc.tgt_segments,
                                                    /*causal=*/true, lc.self_attn);
                         });
    y = sublayer_forward(y, p.cross_attn_norm, c, lc.cross_attn_norm, lc.cross_attn_drop, p_drop, random,
                         [&](const Matrix& h) {
                           return attention_forward(p.cross_attn, c.n_heads, h, fc.memory, fc.tgt_segments,
                                                    fc.src_segments, /*causal=*/false, lc.cross_attn);
                         });
    y = sublayer_forward(y, p.ffn_norm, c, lc.ffn_norm, lc.ffn_drop, p_drop, random,
                         [&](const Matrix& h) { return ffn_forward(p.ffn, c.activation, h, lc.ffn); });
  }
  fc.decoder_out = c.norm == NormPosition::Pre
                       ? layer_norm_forward(params.decoder_final_norm, static_cast<float>(c.layer_norm_eps), y,
                                            fc.decoder_final_norm)
                       : y;

  // ---- logits and label-smoothed cross-entropy ----
  Matrix logits = fc.decoder_out * params.output_projection().transpose();  // [T, V]
  logits.rowwise() += params.output_bias.row(0);
  LossResult result;
  result.tokens = static_cast<int>(fc.gold.size());
  Matrix d_logits;  // ∂(loss_sum / n) / ∂logits
  result.loss_sum = smoothed_cross_entropy(logits, fc.gold, options.label_smoothing, result.tokens, d_logits);

  // ---- backward ----
  grads.output_bias += d_logits.colwise().sum();
  grads.output_projection().noalias() += d_logits.transpose() * fc.decoder_out;
  Matrix dy = d_logits * params.output_projection();
  if (c.norm == NormPosition::Pre)
    dy = layer_norm_backward(params.decoder_final_norm, grads.decoder_final_norm, fc.decoder_final_norm, dy);
  Matrix d_memory = Matrix::Zero(fc.memory.rows(), fc.memory.cols());
  for (std::size_t l = params.decoder.size(); l-- > 0;) {
    const DecoderLayerParams& p = params.decoder[l];
    DecoderLayerParams& g = grads.decoder[l];
    const DecoderLayerCache& lc = fc.decoder[l];
    dy = sublayer_backward(dy, p.ffn_norm, g.ffn_norm, c, lc.ffn_norm, lc.ffn_drop, [&](const Matrix& d) {
      return ffn_backward(p.ffn, g.ffn, c.activation, lc.ffn, d);
    });
    dy = sublayer_backward(dy, p.cross_attn_norm, g.cross_attn_norm, c, lc.cross_attn_norm, lc.cross_attn_drop,
                           [&](const Matrix& d) {
                             AttentionInputGrads a = attention_backward(p.cross_attn, g.cross_attn, c.n_heads,
                                                                        fc.tgt_segments, fc.src_segments,
                                                                        lc.cross_attn, d);
                             d_memory += a.dx_kv;
                             return a.dx_q;
                           });
    dy = sublayer_backward(dy, p.self_attn_norm, g.self_attn_norm, c, lc.self_attn_norm, lc.self_attn_drop,
                           [&](const Matrix& d) {
                             AttentionInputGrads a = attention_backward(p.self_attn, g.self_attn, c.n_heads,
                                                                        fc.tgt_segments, fc.tgt_segments,
                                                                        lc.self_attn, d);
                             return Matrix(a.dx_q + a.dx_kv);
                           });
  }
  dy = dropout_backward(dy, fc.tgt_embed_drop);
  embed_backward(grads.target_embedding(), learned ? &grads.decoder_pos : nullptr, fc.tgt_ids, fc.tgt_pos, scale, dy);

  Matrix dx = c.norm == NormPosition::Pre ? layer_norm_backward(params.encoder_final_norm, grads.encoder_final_norm,
                                                                fc.encoder_final_norm, d_memory)
                                          : d_memory;
  for (std::size_t l = params.encoder.size(); l-- > 0;) {
    const EncoderLayerParams& p = params.encoder[l];
    EncoderLayerParams& g = grads.encoder[l];
    const EncoderLayerCache& lc = fc.encoder[l];
    dx = sublayer_backward(dx, p.ffn_norm, g.ffn_norm, c, lc.ffn_norm, lc.ffn_drop, [&](const Matrix& d) {
      return ffn_backward(p.ffn, g.ffn, c.activation, lc.ffn, d);
    });
    dx = sublayer_backward(dx, p.self_attn_norm, g.self_attn_norm, c, lc.self_attn_norm, lc.self_attn_drop,
                           [&](const Matrix& d) {
                             AttentionInputGrads a = attention_backward(p.self_attn, g.self_attn, c.n_heads,
                                                                        fc.src_segments, fc.src_segments,
                                                                        lc.self_attn, d);
                             return Matrix(a.dx_q + a.dx_kv);
                           });
  }
  dx = dropout_backward(dx, fc.src_embed_drop);
  embed_backward(grads.src_embed, learned ? &grads.encoder_pos : nullptr, fc.src_ids, fc.src_pos, scale, dx);
  return result;
}

}  // namespace attnscope::train
