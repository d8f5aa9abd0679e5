#pragma once
// The encoder-decoder transformer (Vaswani et al. 2017), post- or pre-norm: one model family
// behind the seam of model/family.h. Its attention sites are encoder self-attention, decoder
// self-attention and cross-attention (transformer.cpp holds the table).
#include <memory>
#include <vector>

#include "layers/decoder_layer.h"
#include "layers/encoder_layer.h"
#include "model/config.h"
#include "model/model.h"
#include "model/weight_reader.h"

namespace attnscope::transformer {

// Sinusoidal: Vaswani's interleaved sin/cos; SinusoidalHalves: sin in the first half of the
// columns, cos in the second (Marian's, as Hugging Face writes it).
enum class Positions { Sinusoidal, Learned, SinusoidalHalves };
// As the config's `positions` field spells it (config.cpp); descriptions show it so too.
const char* positions_name(Positions p);

// The family's own config fields (models/FORMAT.md), parsed from ModelConfig::family_json.
struct Config {
  int d_model = 0, n_heads = 0, d_ff = 0;
  int n_encoder_layers = 0, n_decoder_layers = 0;
  Activation activation = Activation::ReLU;
  NormPosition norm = NormPosition::Post;
  Positions positions = Positions::Sinusoidal;
  double embedding_scale = 1.0;  // as written in the file; applied in float32
  bool tied_output = false;
  double layer_norm_eps = 1e-5;

  int d_head() const { return d_model / n_heads; }

  // Throws ModelFileError naming the field. The transformer's file states shared_embeddings and
  // src_append_eos (ModelConfig reads them), which other families may leave out.
  static Config from_json(const std::string& text);
  // The config object a model file holds, with `shared`'s fields: as
  // models/reference/attnscope_ref/export.py writes it (json.dumps, models/FORMAT.md's key
  // order, Python's float repr).
  std::string to_json(const ModelConfig& shared) const;
};

// Rows of the site table.
enum Site : int { kEncoderSelf = 0, kDecoderSelf = 1, kCross = 2 };

struct Weights {
  // The token embeddings, each held once in the form the load keeps (WeightReader::
  // embedding_table): binary16 for a file stored as F16 under the binary16 load option, else
  // binary32; packed where the table is also the tied output projection.
  ops::WeightMatrix src_embed;                    // [V_src, d]
  ops::WeightMatrix tgt_embed_;                   // [V_tgt, d]; empty when shared_embeddings
  Matrix encoder_positions, decoder_positions;    // [max_positions, d]: learned or sinusoidal
  std::vector<EncoderLayer> encoder_layers;
  std::vector<DecoderLayer> decoder_layers;
  LayerNorm encoder_final_norm, decoder_final_norm;  // used with pre-norm only
  // The output projection [V_tgt, d], the largest product of a step, in its step form. Tied:
  // empty (the target embeddings are the projection), except under the int8 load option, where
  // it holds their int8 form (approximate, for the steps) beside the exact table the lookups read.
  ops::WeightMatrix output_weight_;
  RowVector output_bias;                          // [V_tgt]
  bool shared_embeddings = false, tied_output = false;

  // Shared with src_embed / tgt_embed when the config says so, hence accessors.
  const ops::WeightMatrix& tgt_embed() const { return shared_embeddings ? src_embed : tgt_embed_; }
  const ops::WeightMatrix& output_weight() const {
    return tied_output && output_weight_.empty() ? tgt_embed() : output_weight_;
  }
  ops::WeightMatrix& tgt_embed() { return shared_embeddings ? src_embed : tgt_embed_; }
  ops::WeightMatrix& output_weight() { return tied_output && output_weight_.empty() ? tgt_embed() : output_weight_; }
};

// What the decoder carries from one step to the next for one hypothesis.
class State : public DecoderState {
 public:
  std::vector<DecoderLayerState> layers;
  int source_length = 0;

  std::unique_ptr<DecoderState> clone() const override { return std::make_unique<State>(*this); }
  int length() const override { return layers.empty() ? 0 : layers[0].self.length(); }
  void truncate(int length) override {
    for (DecoderLayerState& layer : layers) layer.self.truncate(length);
  }
};

class Transformer : public ModelFamily, public Decoder {
 public:
  Transformer(const ModelConfig& shared, const Config& config, Weights weights);

  const SiteTable& sites() const override { return sites_; }
  Matrix encode(const std::vector<int>& source_ids, const Capture& capture, EncoderTrace* trace,
                const Interventions& interventions) const override;
  const Decoder* decoder() const override { return this; }
  const ops::WeightMatrix& token_embeddings(Side side) const override {
    return side == Side::Source ? weights_.src_embed : weights_.tgt_embed();
  }
  const Matrix& positional_encoding() const override { return weights_.encoder_positions; }
  const MultiHeadAttention* attention_layer(int site, int layer) const override;
  // Refuses "last state only": its encoder returns one vector per source token.
  const InterventionSupport& intervention_support() const override;
  // Its embeddings, stacks and output projection (describe.cpp).
  ArchitectureDescription describe(const Model& model) const override;

  // Decoder: projects the memory into every layer's cross-attention keys and values (once).
  std::unique_ptr<DecoderState> start(const Matrix& memory) const override;
  Matrix step(const std::vector<DecoderState*>& states, const std::vector<int>& tokens, const Capture& capture,
              const std::vector<StepTrace*>& traces, const Interventions& interventions) const override;
  int lens_layers() const override { return static_cast<int>(weights_.decoder_layers.size()); }
  // decoder_final_norm (pre-norm only), then the output projection: the step's own readout.
  Matrix readout(const Matrix& residual, const Interventions& interventions) const override;

  const Weights& weights() const { return weights_; }
  const Config& config() const { return config_; }
  const ModelConfig& shared_config() const { return shared_; }

 private:
  LayerEdits encoder_edits(int layer, const Interventions& iv) const;
  LayerEdits decoder_edits(int layer, const Interventions& iv) const;

  ModelConfig shared_;
  Config config_;
  Weights weights_;
  SiteTable sites_;
};

// Reads a transformer's tensors (models/FORMAT.md); registered in src/families/registry.cpp.
std::unique_ptr<ModelFamily> load(const Model& model, WeightReader& weights, const Model::LoadOptions& options);

// The transformer behind `model`; throws Error when the model is of another family.
const Transformer& of(const Model& model);

}  // namespace attnscope::transformer
