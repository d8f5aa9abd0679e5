#include "families/bert/backward.h"

#include "core/error.h"
#include "model/differentiable_checks.h"
#include "model/model.h"

namespace attnscope::train {

BertPass::BertPass(const bert::Config& config, const bert::Weights& weights) : config_(config), weights_(weights) {}

Matrix BertPass::forward(const Matrix& inputs, const std::vector<int>& segments) {
  const bert::Weights& w = weights_;
  const int n = static_cast<int>(inputs.rows());
  rows_ = {{{0, n}}, /*causal=*/false, nullptr, {}};
  Matrix x = add_positions(inputs, w.positions, rows_.segments);
  for (int i = 0; i < n; ++i) x.row(i) += w.segment_embed.row(segments[static_cast<std::size_t>(i)]);
  x = layer_norm_forward(w.embed_norm, x, embed_norm_);
  hidden_ = layers_forward(w.layers, rows_, std::move(x), 0.0f, nullptr, layers_);
  transform_ = linear_forward(w.mlm_transform, hidden_);
  Matrix activated = transform_;
  ops::activate(activated, bert::kActivation);
  normed_ = layer_norm_forward(w.mlm_norm, activated, mlm_norm_);
  return projection_forward(w.token_embed, w.mlm_bias, normed_);  // [S, V]
}

Matrix BertPass::backward(const Matrix& d_logits) const {
  const bert::Weights& w = weights_;
  const Matrix d_normed = projection_backward(w.token_embed, nullptr, nullptr, normed_, d_logits);
  Matrix slope = transform_;
  ops::activation_derivative(slope, bert::kActivation);
  const Matrix d_transform = layer_norm_backward(w.mlm_norm, nullptr, mlm_norm_, d_normed).cwiseProduct(slope);
  Matrix dy = linear_backward(w.mlm_transform, nullptr, hidden_, d_transform);
  dy = layers_backward(w.layers, static_cast<std::vector<EncoderLayer>*>(nullptr), rows_, layers_, std::move(dy),
                       nullptr);
  return layer_norm_backward(w.embed_norm, nullptr, embed_norm_, dy);
}

namespace {

// The values the masked-LM logits read (the pooler is not among them).
std::size_t values_read(const bert::Weights& w) {
  std::size_t n = count_values(w.token_embed) + static_cast<std::size_t>(w.positions.size()) +
                  static_cast<std::size_t>(w.segment_embed.size()) + count_values(w.embed_norm) +
                  count_values(w.mlm_transform) + count_values(w.mlm_norm) + count_values(w.mlm_bias);
  for (const EncoderLayer& layer : w.layers) n += count_values(layer);
  return n;
}

class BertDifferentiable : public PassDifferentiable<BertPass> {
 public:
  BertDifferentiable(std::shared_ptr<const Model> model, const bert::Bert& bert)
      : PassDifferentiable(model, BertPass(bert.config(), bert.weights()), values_read(bert.weights())),
        bert_(bert),
        max_positions_(model->config.max_positions),
        vocab_size_(static_cast<int>(model->src_vocab.size())) {}

  InputEmbeddings embed(const Tokens& tokens) const override {
    check_side(tokens.target, false, max_positions_, "target");
    return {embedding_forward(bert_.weights().token_embed, tokens.source, 1.0f, "source"), Matrix()};
  }

  Matrix forward(const Tokens& tokens, const InputEmbeddings& inputs) override {
    check_side(tokens.source, true, max_positions_, "source");
    check_side(tokens.target, false, max_positions_, "target");
    check_input_rows(inputs.source, tokens.source.size(), bert_.config().d_model, "source");
    if (inputs.target.size() != 0) throw InputError("a BERT model has no target input embeddings");
    // The token types the engine's encoder gives these ids (0, then 1 after the first [SEP]).
    return remember([&] { return pass_.forward(inputs.source, bert_.segments_of(tokens.source)); });
  }

  InputEmbeddings backward(const Matrix& d_logits) override {
    check_backward(d_logits);
    return {pass_.backward(d_logits), Matrix()};
  }

  int vocab_size() const override { return vocab_size_; }

 private:
  const bert::Bert& bert_;  // its weights and token-type rule
  int max_positions_, vocab_size_;
};

}  // namespace

std::unique_ptr<Differentiable> bert_differentiable(std::shared_ptr<const Model> model) {
  const bert::Bert& bert = bert::of(*model);
  return std::make_unique<BertDifferentiable>(model, bert);
}

}  // namespace attnscope::train
