// The transformer as attribution differentiates it (model/differentiable.h): one sentence pair
// through the training pass's forward and backward, on the loaded model's own weights, without
// parameter gradients.
#include "families/transformer/backward.h"
#include "families/transformer/transformer.h"
#include "model/differentiable_checks.h"

namespace attnscope::train {
namespace {

std::size_t values_read(const transformer::Config& c, const transformer::Weights& w) {
  std::size_t n = count_values(w.src_embed) + count_values(w.output_bias);
  if (!w.shared_embeddings) n += count_values(w.tgt_embed_);
  if (!c.tied_output) n += count_values(w.output_weight_);
  if (c.positions == transformer::Positions::Learned) n += 2 * static_cast<std::size_t>(w.encoder_positions.size());
  for (const EncoderLayer& l : w.encoder_layers) n += count_values(l);
  for (const DecoderLayer& l : w.decoder_layers) n += count_values(l);
  if (c.norm == NormPosition::Pre) n += count_values(w.encoder_final_norm) + count_values(w.decoder_final_norm);
  return n;
}

class TransformerDifferentiable : public PassDifferentiable<TransformerPass> {
 public:
  TransformerDifferentiable(std::shared_ptr<const Model> model, const transformer::Transformer& t)
      : PassDifferentiable(model, TransformerPass(t.config(), t.weights()), values_read(t.config(), t.weights())),
        config_(t.config()),
        max_positions_(model->config.max_positions),
        weights_(t.weights()),
        tgt_vocab_size_(static_cast<int>(model->tgt_vocab.size())) {}

  InputEmbeddings embed(const Tokens& tokens) const override {
    const float scale = static_cast<float>(config_.embedding_scale);
    return {embedding_forward(weights_.src_embed, tokens.source, scale, "source"),
            embedding_forward(weights_.tgt_embed(), tokens.target, scale, "target")};
  }

  Matrix forward(const Tokens& tokens, const InputEmbeddings& inputs) override {
    const transformer::Config& c = config_;
    check_side(tokens.source, true, max_positions_, "source");
    check_side(tokens.target, true, max_positions_, "target");
    check_input_rows(inputs.source, tokens.source.size(), c.d_model, "source");
    check_input_rows(inputs.target, tokens.target.size(), c.d_model, "target");
    return remember([&] {
      return pass_.forward(inputs, {static_cast<int>(tokens.source.size())}, {static_cast<int>(tokens.target.size())},
                           0.0f, nullptr);
    });
  }

  InputEmbeddings backward(const Matrix& d_logits) override {
    check_backward(d_logits);
    return pass_.backward(d_logits, nullptr);
  }

  int vocab_size() const override { return tgt_vocab_size_; }

 private:
  const transformer::Config& config_;
  int max_positions_;
  const transformer::Weights& weights_;
  int tgt_vocab_size_;
};

}  // namespace

std::unique_ptr<Differentiable> transformer_differentiable(std::shared_ptr<const Model> model) {
  const transformer::Transformer& t = transformer::of(*model);
  return std::make_unique<TransformerDifferentiable>(model, t);
}

}  // namespace attnscope::train
