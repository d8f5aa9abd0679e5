// The transformer as attribution differentiates it (model/differentiable.h): one sentence pair through
// the training pass's forward and backward, without parameter gradients.
#include "families/transformer/backward.h"
#include "families/transformer/model_file.h"
#include "model/differentiable_checks.h"

namespace attnscope::train {
namespace {

class TransformerDifferentiable : public PassDifferentiable<TransformerParams, TransformerPass> {
 public:
  using PassDifferentiable::PassDifferentiable;

  InputEmbeddings embed(const Tokens& tokens) const override {
    const float scale = static_cast<float>(params_.config.embedding_scale);
    return {embedding_forward(params_.src_embed, tokens.source, scale, "source"),
            embedding_forward(params_.target_embedding(), tokens.target, scale, "target")};
  }

  Matrix forward(const Tokens& tokens, const InputEmbeddings& inputs) override {
    const ModelConfig& c = params_.config;
    check_side(tokens.source, true, c.max_positions, "source");
    check_side(tokens.target, true, c.max_positions, "target");
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

  int vocab_size() const override { return params_.tgt_vocab_size; }
};

}  // namespace

std::unique_ptr<Differentiable> make_differentiable(TransformerParams params) {
  return std::make_unique<TransformerDifferentiable>(std::move(params));
}

std::unique_ptr<Differentiable> transformer_differentiable(std::shared_ptr<const Model> model, const SafetensorsFile& file) {
  return make_differentiable(transformer_params_from(file, *model));
}

}  // namespace attnscope::train
