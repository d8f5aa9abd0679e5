// The transformer-style families' Differentiable (src/train/differentiable.h) through
// differentiable_from_bytes: BERT's logits and input gradient against PyTorch autograd
// (tests/golden/differentiable/, models/goldens/make_differentiable_goldens.py; the transformer's
// and the decoder-only model's are checked by the attribution goldens, tests/native/attribution_test.cpp),
// what each family reads and returns, and its refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "io/safetensors.h"
#include "test_support.h"
#include "ops/ops.h"
#include "train/differentiable.h"

namespace attnscope::train {
namespace {

using testing::golden_path;

std::unique_ptr<Differentiable> open(const std::string& model) {
  const auto bytes = read_file_bytes(golden_path(model));
  return differentiable_from_bytes(bytes.data(), bytes.size());
}

// A sentence pair's logits [S, V] and the gradient of Σ d_logits ∘ logits at its input
// embeddings [S, d], within 1e-4 of the largest expected magnitude (or 1e-4 where that is below 1).
TEST(Differentiable, BertMatchesPyTorchAutograd) {
  for (const char* name : {"small_mlm", "tiny_pooler"}) {
    SCOPED_TRACE(name);
    const auto g = testing::load_json(golden_path(std::string("differentiable/") + name + ".json"));
    const auto pass = open(g.at("model").get<std::string>());
    const Tokens tokens{g.at("source").get<std::vector<int>>(), {}};
    const Matrix logits = pass->forward(tokens, pass->embed(tokens));
    Matrix d_logits(logits.rows(), logits.cols());
    for (Eigen::Index r = 0; r < d_logits.rows(); ++r)
      for (Eigen::Index c = 0; c < d_logits.cols(); ++c) d_logits(r, c) = g.at("d_logits").at(r).at(c).get<float>();
    const Matrix d_source = pass->backward(d_logits).source;
    for (const auto& [what, got] : {std::pair<const char*, const Matrix*>{"logits", &logits}, {"d_source", &d_source}}) {
      double largest = 1.0;
      for (const auto& row : g.at(what))
        for (const auto& v : row) largest = std::max(largest, std::abs(v.get<double>()));
      EXPECT_TRUE(testing::close_to(g.at(what), got->data(), static_cast<std::size_t>(got->size()),
                                    {static_cast<int>(got->rows()), static_cast<int>(got->cols())}, what,
                                    testing::kTolerance * largest));
    }
  }
}

TEST(Differentiable, EachFamilyReadsItsSidesAndGivesOneLogitRowPerOutput) {
  struct Case {
    const char* model;
    Tokens tokens;
    std::size_t rows;
  };
  for (const Case& c : {Case{"tiny_post_sin.safetensors", {{4, 5, 3}, {2, 6, 7}}, 3},
                        Case{"decoder_only/attention_only_gelu.safetensors", {{}, {2, 11, 8, 10}}, 4},
                        Case{"bert/small_mlm.safetensors", {{2, 7, 8, 3}, {}}, 4}}) {
    SCOPED_TRACE(c.model);
    const auto pass = open(c.model);
    const InputEmbeddings inputs = pass->embed(c.tokens);
    EXPECT_EQ(static_cast<std::size_t>(inputs.source.rows()), c.tokens.source.size());
    EXPECT_EQ(static_cast<std::size_t>(inputs.target.rows()), c.tokens.target.size());
    const Matrix logits = pass->forward(c.tokens, inputs);
    EXPECT_EQ(static_cast<std::size_t>(logits.rows()), c.rows);
    EXPECT_EQ(logits.cols(), pass->vocab_size());
    const InputEmbeddings d = pass->backward(Matrix::Ones(logits.rows(), logits.cols()));
    EXPECT_EQ(d.source.rows(), inputs.source.rows());
    EXPECT_EQ(d.target.rows(), inputs.target.rows());
    EXPECT_TRUE(d.source.allFinite() && d.target.allFinite());
  }
}

// A forward from other embeddings gives other gradients; the same embeddings give the same ones.
TEST(Differentiable, BackwardIsOfTheLastForward) {
  const auto pass = open("small_pre_learned.safetensors");
  const Tokens tokens{{4, 5, 6, 3}, {2, 4, 5}};
  const InputEmbeddings inputs = pass->embed(tokens);
  const Matrix d_logits = Matrix::Ones(3, pass->vocab_size());
  const Matrix logits = pass->forward(tokens, inputs);
  const InputEmbeddings first = pass->backward(d_logits);
  InputEmbeddings halved = inputs;
  halved.source *= 0.5f;
  pass->forward(tokens, halved);
  EXPECT_FALSE(pass->backward(d_logits).source.isApprox(first.source));
  EXPECT_TRUE(pass->forward(tokens, inputs) == logits);
  EXPECT_TRUE(pass->backward(d_logits).source == first.source);
}

TEST(Differentiable, RefusesBadInputWithAnInputError) {
  const auto pass = open("tiny_post_sin.safetensors");
  EXPECT_EQ(testing::thrown_message<InputError>([&] { pass->backward(Matrix::Zero(1, pass->vocab_size())); }), "backward needs a forward first");
  const Tokens tokens{{4, 5, 3}, {2, 6}};
  const InputEmbeddings inputs = pass->embed(tokens);
  EXPECT_NE(testing::thrown_message<InputError>([&] { pass->embed({{4, 100000}, {2}}); }).find("source id 100000 is outside the vocabulary"),
            std::string::npos);
  EXPECT_NE(testing::thrown_message<InputError>([&] { pass->forward({{4, 5}, {2, 6}}, inputs); }).find("source input embeddings are [3, "),
            std::string::npos);
  EXPECT_EQ(testing::thrown_message<InputError>([&] { pass->forward({{}, {2}}, inputs); }), "the source needs at least one token");
  const Matrix logits = pass->forward(tokens, inputs);
  EXPECT_NE(testing::thrown_message<InputError>([&] { pass->backward(Matrix::Zero(3, logits.cols())); }).find("d_logits is [3, "),
            std::string::npos);
  const auto lm = open("decoder_only/attention_only_gelu.safetensors");
  EXPECT_EQ(testing::thrown_message<InputError>([&] { lm->embed({{4}, {2, 4}}); }), "this model reads no source tokens, got 1");
  std::vector<int> long_context(13, 4);
  EXPECT_EQ(testing::thrown_message<InputError>([&] { lm->forward({{}, long_context}, lm->embed({{}, long_context})); }),
            "the target has 13 tokens, more than the model's 12 positions");
}

// ops::activation_derivative against the central difference of ops::activate (h = 1e-2: the
// difference's own error, h² f‴ / 6, is far below the 1e-3 allowed).
TEST(Differentiable, ActivationDerivativeIsTheSlopeOfTheActivation) {
  const float h = 1e-2f;
  Matrix x(1, 41);
  for (int i = 0; i < 41; ++i) x(0, i) = -4.0f + 0.2f * static_cast<float>(i) + 0.05f;  // never at ReLU's kink
  for (Activation act : {Activation::ReLU, Activation::GELU, Activation::Swish, Activation::GELUTanh}) {
    Matrix above = x.array() + h, below = x.array() - h, slope = x;
    ops::activate(above, act);
    ops::activate(below, act);
    ops::activation_derivative(slope, act);
    const Matrix central = (above - below) / (2 * h);
    for (int i = 0; i < 41; ++i)
      EXPECT_NEAR(slope(0, i), central(0, i), 1e-3) << "activation " << static_cast<int>(act) << " at " << x(0, i);
  }
}

TEST(Differentiable, ABrokenFileIsAModelFileError) {
  EXPECT_THROW(differentiable_from_bytes(reinterpret_cast<const std::uint8_t*>("not a model"), 11), ModelFileError);
}

}  // namespace
}  // namespace attnscope::train
