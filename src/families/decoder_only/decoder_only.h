#pragma once
// The decoder-only language model (GPT: Radford et al. 2018, 2019) behind the seam of
// model/family.h. The reference is models/reference/attnscope_ref/gpt.py; the file format is in
// models/FORMAT.md ("The decoder-only family").
//
//   x      = E_token[ids] * embedding_scale + P[0..T-1]          (P learned or sinusoidal)
//   x      = x + attn(LN(x));  x = x + ffn(LN(x))                  per layer, pre-norm (GPT-2)
//        or  x = LN(x + attn(x));  x = LN(x + ffn(x))              post-norm (GPT-1)
//   logits = final_norm(x) E_outᵀ + b                              (final_norm: pre-norm only)
//
// Through the seam: the "source" is the prompt, its ids as the model reads them (<bos> first
// where decoding/source.h put one). encode() returns their scaled token embeddings [P, d] (the
// memory); start() holds them pending; the first step runs the causal stack over them at once
// (the token it is fed is not read) and returns the logits of the last position; every later
// step feeds one token on the KV cache. A state's length() counts the session's steps, not
// positions.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "layers/attention.h"
#include "layers/feed_forward.h"
#include "layers/kv_cache.h"
#include "layers/probe.h"
#include "model/model.h"
#include "model/weight_reader.h"

namespace attnscope::decoder_only {

// The family's own config fields (models/FORMAT.md), parsed from ModelConfig::family_json.
struct Config {
  int d_model = 0, n_heads = 0, d_ff = 0, n_layers = 0;  // d_ff = 0: attention-only layers
  Activation activation = Activation::GELUTanh;
  NormPosition norm = NormPosition::Pre;
  bool learned_positions = true;  // else sinusoidal
  float embedding_scale = 1.0f;
  bool tied_output = true;
  float layer_norm_eps = 1e-5f;

  static Config from_json(const std::string& text);  // throws ModelFileError naming the field
};

// Rows of the site table: causal self-attention in every layer.
enum Site : int { kSelf = 0 };

// The positions one hypothesis feeds in one step, with its cache and where its attention goes.
struct Feed {
  KVCache* cache;
  int rows;                              // the prompt's length on the first step, else 1
  std::vector<Matrix>* attn = nullptr;   // per head: [rows, keys after the step]
};

struct Layer {
  MultiHeadAttention self_attn;
  LayerNorm self_attn_norm;
  FeedForward ffn;  // empty (d_ff = 0): the layer is attention only
  LayerNorm ffn_norm;
  NormPosition norm_position = NormPosition::Pre;

  // x: the new positions of every feed, stacked in order; their keys and values are appended to
  // the feeds' caches. Named vectors go to `probe` (one hypothesis only).
  Matrix forward(const Matrix& x, const std::vector<Feed>& feeds, const Probe& probe, const LayerEdits& edits) const;
};

struct Weights {
  // Held once in the form the load keeps (WeightReader::embedding_table): binary16 for a file
  // stored as F16 under the binary16 load option, else binary32; packed when it is also the
  // tied output projection.
  ops::WeightMatrix token_embed;  // [V, d]
  Matrix positions;               // [max_positions, d]: learned or sinusoidal
  std::vector<Layer> layers;
  LayerNorm final_norm;           // pre-norm only
  // The output projection [V, d] in its step form. Tied: empty (token_embed is the projection),
  // except under the int8 load option, where it holds token_embed's int8 form (approximate, for
  // the steps) beside the exact table the lookups read.
  ops::WeightMatrix output_weight_;
  RowVector output_bias;          // [V]
  bool tied_output = true;

  const ops::WeightMatrix& output_weight() const {
    return tied_output && output_weight_.empty() ? token_embed : output_weight_;
  }
  ops::WeightMatrix& output_weight() { return tied_output && output_weight_.empty() ? token_embed : output_weight_; }
};

class State : public DecoderState {
 public:
  std::shared_ptr<const Matrix> prompt;  // scaled token embeddings [P, d], shared by a beam
  std::vector<KVCache> layers;
  int steps = 0;

  std::unique_ptr<DecoderState> clone() const override { return std::make_unique<State>(*this); }
  int length() const override { return steps; }
  void truncate(int length) override;
  // Positions in the cache after `steps` steps: none, then the prompt, then one a step.
  int positions(int after_steps) const;
};

class DecoderOnly : public ModelFamily, public Decoder {
 public:
  DecoderOnly(const ModelConfig& model_config, const Config& config, Weights weights);

  const SiteTable& sites() const override { return sites_; }
  // The prompt's token embeddings times embedding_scale, [P, d] (positions are added when the
  // first step runs). No attention is computed here; named vectors: "embedding". InputError for
  // an empty prompt or one longer than the context.
  Matrix encode(const std::vector<int>& prompt_ids, const Capture& capture, EncoderTrace* trace,
                const Interventions& interventions) const override;
  const Decoder* decoder() const override { return this; }
  Input input() const override { return Input::Prompt; }
  // The prompt (with its <bos>, if any) and every generated token but the last share the context.
  int generation_room(int max_positions, int prompt_length) const override {
    return std::max(1, max_positions - prompt_length + 1);
  }
  const ops::WeightMatrix& token_embeddings(Side) const override { return weights_.token_embed; }
  const Matrix& positional_encoding() const override { return weights_.positions; }
  const ops::WeightMatrix& output_embeddings() const override { return weights_.output_weight(); }
  const MultiHeadAttention* attention_layer(int site, int layer) const override;
  // Refuses what names an encoder or a source: there is neither.
  const InterventionSupport& intervention_support() const override;
  // Its embeddings, causal stack and output projection (describe.cpp).
  ArchitectureDescription describe(const Model& model) const override;

  std::unique_ptr<DecoderState> start(const Matrix& memory) const override;
  Matrix step(const std::vector<DecoderState*>& states, const std::vector<int>& tokens, const Capture& capture,
              const std::vector<StepTrace*>& traces, const Interventions& interventions) const override;
  int lens_layers() const override { return static_cast<int>(weights_.layers.size()); }
  // final_norm (pre-norm only), then the output projection: the step's own readout.
  Matrix readout(const Matrix& residual, const Interventions& interventions) const override;

  const Config& config() const { return config_; }
  const Weights& weights() const { return weights_; }

 private:
  LayerEdits edits(int layer, const Interventions& iv) const;
  // The positions a step feeds into `s`: the prompt on its first step (`token` unread), else
  // `token`'s one row. Throws InputError where the context is full.
  Matrix new_positions(const State& s, int token, NamedVectors* vectors) const;

  ModelConfig model_config_;
  Config config_;
  Weights weights_;
  SiteTable sites_;
};

// Reads a decoder-only model's tensors (models/FORMAT.md); registered in src/families/registry.cpp.
std::unique_ptr<ModelFamily> load(const Model& model, WeightReader& weights, const Model::LoadOptions& options);

}  // namespace attnscope::decoder_only
