#include "analysis/session_analysis.h"

namespace attnscope {
namespace {

const Tensor& captured(const Tensor& t) {
  if (t.empty()) throw Error("attention was not captured: create the session with capture.attention = true");
  return t;
}

const Matrix& vector_named(const NamedVectors& vectors, const std::string& name) {
  auto it = vectors.find(name);
  if (it == vectors.end())
    throw Error("intermediate vectors were not captured: create the session with capture.vectors = true");
  return it->second;
}

const Expansion& expansion_at(const DecodeSession& s, int step, int expansion) {
  const auto& history = s.history();
  if (step < 0 || step >= static_cast<int>(history.size()))
    throw IndexError("step " + std::to_string(step) + " is out of range: " + std::to_string(history.size()) +
                     " steps taken");
  const auto& expansions = history[step].expansions;
  if (expansion < 0 || expansion >= static_cast<int>(expansions.size()))
    throw IndexError("hypothesis " + std::to_string(expansion) + " is out of range: step " + std::to_string(step) +
                     " extended " + std::to_string(expansions.size()));
  return expansions[expansion];
}

// The expansions that built the hypothesis of `last`, one per step 0..step: its ancestors in
// the beam tree, each found in its step's history.
std::vector<const Expansion*> lineage(const DecodeSession& s, int step, const Expansion& last) {
  std::vector<const Expansion*> chain(step + 1, nullptr);
  chain[step] = &last;
  int node = last.node;
  for (int k = step - 1; k >= 0; --k) {
    node = s.tree()[node].parent;
    for (const Expansion& e : s.history()[k].expansions)
      if (e.node == node) chain[k] = &e;
    if (!chain[k]) throw Error("the hypothesis' history is incomplete at step " + std::to_string(k));
  }
  return chain;
}

}  // namespace

Matrix encoder_rollout(const DecodeSession& session) {
  return attention_rollout(captured(session.encoder_trace().self_attn));
}

Tensor value_weighted_attention(const DecodeSession& session, AttentionSite site, int step, int expansion) {
  const Model& model = session.model();
  const NamedVectors& enc = session.encoder_trace().vectors;
  std::vector<Matrix> values;
  std::vector<const Matrix*> out_proj;
  if (site == AttentionSite::Encoder) {
    for (std::size_t l = 0; l < model.encoder_layers.size(); ++l) {
      values.push_back(vector_named(enc, "layers." + std::to_string(l) + ".v"));
      out_proj.push_back(&model.encoder_layers[l].self_attn.out_proj.weight);
    }
    return value_weighted_attention(captured(session.encoder_trace().self_attn), values, out_proj);
  }
  const Expansion& e = expansion_at(session, step, expansion);
  if (site == AttentionSite::Cross) {
    // What the cross-attention reads: each layer's value projection of the encoder output.
    const Matrix& memory = vector_named(enc, "output");
    for (const DecoderLayer& layer : model.decoder_layers) {
      values.push_back(layer.cross_attn.v_proj(memory));
      out_proj.push_back(&layer.cross_attn.out_proj.weight);
    }
    return value_weighted_attention(captured(e.trace.cross_attn), values, out_proj);
  }
  // Decoder self-attention reads the values of every position so far, from this hypothesis'
  // own earlier steps.
  const auto chain = lineage(session, step, e);
  for (std::size_t l = 0; l < model.decoder_layers.size(); ++l) {
    Matrix v(step + 1, model.config.d_model);
    for (int k = 0; k <= step; ++k)
      v.row(k) = vector_named(chain[k]->trace.vectors, "layers." + std::to_string(l) + ".self_v").row(0);
    values.push_back(std::move(v));
    out_proj.push_back(&model.decoder_layers[l].self_attn.out_proj.weight);
  }
  return value_weighted_attention(captured(e.trace.self_attn), values, out_proj);
}

std::vector<std::string> encoder_patterns(const DecodeSession& session) {
  const Tensor& a = captured(session.encoder_trace().self_attn);
  const int layers = a.shape[0], heads = a.shape[1], S = a.shape[2];
  std::vector<std::string> out;
  for (int l = 0; l < layers; ++l)
    for (int h = 0; h < heads; ++h)
      out.push_back(attention_pattern(
          Eigen::Map<const Matrix>(a.data.data() + (static_cast<std::size_t>(l) * heads + h) * S * S, S, S)));
  return out;
}

}  // namespace attnscope
