#pragma once
// BERT (Devlin et al. 2019): the encoder-only family behind the seam of model/family.h. Token,
// position and segment embeddings and a LayerNorm, post-LN encoder layers with GELU, an optional
// pooler and the masked-language-model head. No decoder: it encodes a sentence or a pair
// ("A [SEP] B") and predicts the pieces behind [MASK]. The reference is
// models/reference/attnscope_ref/bert.py; the file format is in models/FORMAT.md ("The BERT family").
//
//   x      = LN(E_token[ids] + E_position[0..T-1] + E_segment[segments])
//   x      = LN(x + SelfAttention(x));  x = LN(x + fc2(gelu(fc1 x)))      per layer
//   pooled = tanh(W_p x[0] + b_p)                                          optional
//   logits = LN(gelu(W_t x + b_t)) E_tokenᵀ + b                            the MLM head
#include <memory>
#include <string>
#include <vector>

#include "layers/encoder_layer.h"
#include "model/encoder_only.h"
#include "model/model.h"
#include "model/weight_reader.h"

namespace attnscope::bert {

// BERT's one activation, in its FFNs and the masked-language-model transform: the exact GELU.
constexpr Activation kActivation = Activation::GELU;

// The family's own config fields (models/FORMAT.md), parsed from ModelConfig::family_json.
struct Config {
  int d_model = 0, n_heads = 0, d_ff = 0, n_layers = 0;
  int n_segments = 2;  // token types
  float layer_norm_eps = 1e-12f;
  bool pooler = false;
  int mask = 0;  // the [MASK] id (special_tokens.mask)

  static Config from_json(const std::string& text);  // throws ModelFileError naming the field
};

// Rows of the site table: self-attention in every layer.
enum Site : int { kSelf = 0 };

struct Weights {
  // [V, d]; also the MLM head's decoder (tied). Held once in the form the load keeps
  // (WeightReader::embedding_table): plain binary32, or packed binary16 with the binary16 option.
  ops::WeightMatrix token_embed;
  Matrix positions;       // [max_positions, d], learned
  Matrix segment_embed;   // [n_segments, d]
  LayerNorm embed_norm;   // [d]
  std::vector<EncoderLayer> layers;
  Linear pooler;          // [d, d]; empty without a pooler
  Linear mlm_transform;   // [d, d]
  LayerNorm mlm_norm;     // [d]
  RowVector mlm_bias;     // [V]
};

class Bert : public ModelFamily, public EncoderOnly {
 public:
  Bert(const ModelConfig& model_config, const Config& config, Weights weights);

  const SiteTable& sites() const override { return sites_; }
  // The final hidden states [T, d] of `ids` (with its [CLS] and [SEP]s; segments from
  // segments_of). Named vectors: "embedding" (token), "positional", "segment", "embedding_sum"
  // (after the embedding LayerNorm), per layer "layers.<l>.{q,k,v,attn_output,ffn_hidden,
  // output}" and "layers.<l>.transformed_values" [heads * T, d] (row h*T + j: head h's value
  // vector of token j after the output projection, without its bias: Kobayashi et al. 2020),
  // "output" and, with a pooler, "pooled" [1, d].
  Matrix encode(const std::vector<int>& ids, const Capture& capture, EncoderTrace* trace,
                const Interventions& interventions) const override;
  const Decoder* decoder() const override { return nullptr; }
  const ops::WeightMatrix& token_embeddings(Side) const override { return weights_.token_embed; }
  const Matrix& positional_encoding() const override { return weights_.positions; }
  const MultiHeadAttention* attention_layer(int site, int layer) const override;
  // Refuses what names a decoder: its sub-layers' skips and the source encoding handed to it.
  const InterventionSupport& intervention_support() const override;
  const EncoderOnly* encoder_only() const override { return this; }
  // Its embeddings, encoder stack and masked-LM head (describe.cpp).
  ArchitectureDescription describe(const Model& model) const override;

  // The seam of model/encoder_only.h: "[CLS] pieces [SEP]" (input.cpp), the MLM head, [MASK].
  EncoderInput tokenize(const Model& model, const std::string& text) const override;
  // The MLM head on hidden states [T, d]: logits [T, V].
  Matrix mlm_logits(const Matrix& hidden) const override;
  int mask_id() const override { return config_.mask; }
  int self_attention_site() const override { return kSelf; }

  // Segment of every position: 0 up to and including the first [SEP], 1 after it.
  std::vector<int> segments_of(const std::vector<int>& ids) const;

  const Config& config() const { return config_; }
  const Weights& weights() const { return weights_; }

 private:
  ModelConfig model_config_;
  Config config_;
  Weights weights_;
  SiteTable sites_;
};

// Reads a BERT's tensors (models/FORMAT.md); registered in src/families/registry.cpp.
std::unique_ptr<ModelFamily> load(const Model& model, WeightReader& weights, const Model::LoadOptions& options);

// The BERT behind `model`; throws InputError when the model is of another family.
const Bert& of(const Model& model);

}  // namespace attnscope::bert
