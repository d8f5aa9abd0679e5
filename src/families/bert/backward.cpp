#include "families/bert/backward.h"

#include "core/error.h"
#include "io/safetensors.h"
#include "model/differentiable_checks.h"
#include "model/model.h"
#include "model/model_file_writer.h"

namespace attnscope::train {

BertParams BertParams::zeros(const bert::Config& c, int vocab_size, int max_positions) {
  BertParams p;
  p.config = c;
  p.vocab_size = vocab_size;
  p.max_positions = max_positions;
  const int d = c.d_model;
  p.token_embed = Matrix::Zero(vocab_size, d);
  p.position_embed = Matrix::Zero(max_positions, d);
  p.segment_embed = Matrix::Zero(c.n_segments, d);
  p.embed_norm = norm_zeros(d);
  for (int i = 0; i < c.n_layers; ++i)
    p.layers.push_back({attention_zeros(d), norm_zeros(d), ffn_zeros(d, c.d_ff), norm_zeros(d)});
  p.mlm_transform = linear_zeros(d, d);
  p.mlm_norm = norm_zeros(d);
  p.mlm_bias = Matrix::Zero(1, vocab_size);
  return p;
}

TensorList BertParams::tensors() {
  TensorList out = {{"embed.token.weight", &token_embed, false},
                    {"embed.position.weight", &position_embed, false},
                    {"embed.segment.weight", &segment_embed, false},
                    {"mlm.bias", &mlm_bias, true}};
  add_tensors(out, "embed.norm", embed_norm);
  for (std::size_t i = 0; i < layers.size(); ++i) add_tensors(out, "layers." + std::to_string(i), layers[i]);
  add_tensors(out, "mlm.transform", mlm_transform);
  add_tensors(out, "mlm.norm", mlm_norm);
  sort_by_name(out);
  return out;
}

BertPass::BertPass(const BertParams& params)
    : params_(params), settings_{NormPosition::Post, params.config.layer_norm_eps, params.config.n_heads, Activation::GELU} {}

Matrix BertPass::forward(const Matrix& inputs, const std::vector<int>& segments) {
  const BertParams& p = params_;
  const int n = static_cast<int>(inputs.rows());
  rows_ = {{{0, n}}, /*causal=*/false, nullptr, {}};
  Matrix x = add_positions(inputs, p.position_embed, rows_.segments);
  for (int i = 0; i < n; ++i) x.row(i) += p.segment_embed.row(segments[static_cast<std::size_t>(i)]);
  x = layer_norm_forward(p.embed_norm, settings_.eps, x, embed_norm_);
  hidden_ = layers_forward(p.layers, settings_, rows_, std::move(x), 0.0f, nullptr, layers_);
  transform_ = linear_forward(p.mlm_transform, hidden_);
  Matrix activated = transform_;
  ops::activate(activated, Activation::GELU);
  normed_ = layer_norm_forward(p.mlm_norm, settings_.eps, activated, mlm_norm_);
  return projection_forward(p.token_embed, p.mlm_bias, normed_);  // [S, V]
}

Matrix BertPass::backward(const Matrix& d_logits) const {
  const BertParams& p = params_;
  const Matrix d_normed = projection_backward(p.token_embed, nullptr, nullptr, normed_, d_logits);
  Matrix slope = transform_;
  ops::activation_derivative(slope, Activation::GELU);
  const Matrix d_transform = layer_norm_backward(p.mlm_norm, nullptr, mlm_norm_, d_normed).cwiseProduct(slope);
  Matrix dy = linear_backward(p.mlm_transform, nullptr, hidden_, d_transform);
  dy = layers_backward(p.layers, static_cast<std::vector<EncoderLayerParams>*>(nullptr), settings_, rows_, layers_,
                       std::move(dy), nullptr);
  return layer_norm_backward(p.embed_norm, nullptr, embed_norm_, dy);
}

namespace {

class BertDifferentiable : public PassDifferentiable<BertParams, BertPass> {
 public:
  BertDifferentiable(std::shared_ptr<const Model> model, BertParams params)
      : PassDifferentiable(std::move(params)), model_(std::move(model)) {}

  InputEmbeddings embed(const Tokens& tokens) const override {
    check_side(tokens.target, false, params_.max_positions, "target");
    return {embedding_forward(params_.token_embed, tokens.source, 1.0f, "source"), Matrix()};
  }

  Matrix forward(const Tokens& tokens, const InputEmbeddings& inputs) override {
    check_side(tokens.source, true, params_.max_positions, "source");
    check_side(tokens.target, false, params_.max_positions, "target");
    check_input_rows(inputs.source, tokens.source.size(), params_.config.d_model, "source");
    if (inputs.target.size() != 0) throw InputError("a BERT model has no target input embeddings");
    // The token types the engine's encoder gives these ids (0, then 1 after the first [SEP]).
    return remember([&] { return pass_.forward(inputs.source, bert::of(*model_).segments_of(tokens.source)); });
  }

  InputEmbeddings backward(const Matrix& d_logits) override {
    check_backward(d_logits);
    return {pass_.backward(d_logits), Matrix()};
  }

  int vocab_size() const override { return params_.vocab_size; }

 private:
  std::shared_ptr<const Model> model_;  // its token-type rule
};

}  // namespace

std::unique_ptr<Differentiable> bert_differentiable(std::shared_ptr<const Model> model, const SafetensorsFile& file) {
  const bert::Bert& bert = bert::of(*model);
  BertParams params = BertParams::zeros(bert.config(), model->src_vocab.size(), model->config.max_positions);
  read_tensors(file, params.tensors());
  return std::make_unique<BertDifferentiable>(std::move(model), std::move(params));
}

}  // namespace attnscope::train
