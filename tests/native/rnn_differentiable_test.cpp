// The RNN's Differentiable (src/train/differentiable.h, src/families/rnn/backward.h) against PyTorch
// autograd on models/reference/attnscope_ref/rnn.py (tests/golden/rnn_differentiable/<model>.json,
// models/goldens/make_rnn_differentiable_goldens.py): the logits from the input embeddings and
// the gradients of Σ d_logits ∘ logits with respect to the source and target embeddings, within
// 1e-4 absolute or relative to the largest expected magnitude. Then its refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "families/rnn/backward.h"
#include "families/rnn/rnn.h"
#include "io/safetensors.h"
#include "test_support.h"
#include "train/differentiable.h"

namespace attnscope::train {
namespace {

using json = nlohmann::json;
using testing::golden_path;
using testing::load_json;

std::vector<std::string> golden_names() { return testing::golden_json_names("rnn_differentiable"); }

Matrix matrix_of(const json& rows) {
  Matrix m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows.at(0).size()));
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    for (Eigen::Index c = 0; c < m.cols(); ++c) m(r, c) = rows.at(r).at(c).get<float>();
  return m;
}

// 1e-4, or 1e-4 of the largest expected magnitude where that is over 1.
::testing::AssertionResult close_to(const json& want, const Matrix& got, const std::string& what) {
  double largest = 1.0;
  for (const json& row : want)
    for (const json& v : row) largest = std::max(largest, std::abs(v.get<double>()));
  return testing::close_to(want, got.data(), static_cast<std::size_t>(got.size()),
                           {static_cast<int>(got.rows()), static_cast<int>(got.cols())}, what,
                           testing::kTolerance * largest);
}

std::unique_ptr<Differentiable> open(const std::string& model) {
  const auto loaded = Model::load_file(golden_path(model));
  return rnn_differentiable(loaded);
}

class RnnDifferentiableGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(RnnDifferentiableGolden, InputGradientsMatchPyTorch) {
  const json g = load_json(golden_path("rnn_differentiable/" + GetParam() + ".json"));
  const auto pass = open(g.at("model").get<std::string>());
  const Tokens tokens{g.at("source").get<std::vector<int>>(), g.at("target").get<std::vector<int>>()};
  const Matrix logits = pass->forward(tokens, pass->embed(tokens));
  EXPECT_EQ(pass->vocab_size(), logits.cols());
  EXPECT_TRUE(close_to(g.at("logits"), logits, GetParam() + " logits"));
  const InputEmbeddings d = pass->backward(matrix_of(g.at("d_logits")));
  EXPECT_TRUE(close_to(g.at("d_source"), d.source, GetParam() + " d_source"));
  EXPECT_TRUE(close_to(g.at("d_target"), d.target, GetParam() + " d_target"));
}

INSTANTIATE_TEST_SUITE_P(Models, RnnDifferentiableGolden, ::testing::ValuesIn(golden_names()));

TEST(RnnDifferentiable, CoversTheLocationScoreAndEveryStyle) {
  const std::vector<std::string> names = golden_names();
  for (const char* name : {"gru_luong_location_feed", "lstm_bahdanau_location_local", "gru_none"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
}

// The gradient is of the last forward: a second forward from other embeddings gives another one,
// and running the first again gives the first back.
TEST(RnnDifferentiable, BackwardIsOfTheLastForward) {
  const auto pass = open("rnn/gru_luong_location_feed.safetensors");
  const Tokens tokens{{4, 5, 6, 3}, {2, 4, 5}};
  const InputEmbeddings inputs = pass->embed(tokens);
  const Matrix d_logits = Matrix::Ones(3, pass->vocab_size());
  pass->forward(tokens, inputs);
  const InputEmbeddings first = pass->backward(d_logits);
  InputEmbeddings scaled = inputs;
  scaled.source *= 2.0f;
  pass->forward(tokens, scaled);
  EXPECT_GT((pass->backward(d_logits).source - first.source).cwiseAbs().maxCoeff(), 1e-3f);
  pass->forward(tokens, inputs);
  EXPECT_EQ(pass->backward(d_logits).source, first.source);
}

// The table by architecture hands an RNN to this pass, from a file's bytes and from a loaded
// model's file alike.
TEST(RnnDifferentiable, IsTheTablesPassForAnRnnFile) {
  const std::string path = golden_path("rnn/lstm_luong_location.safetensors");
  const auto bytes = read_file_bytes(path);
  const auto from_table = differentiable_from_bytes(bytes.data(), bytes.size());
  const auto rnn = differentiable_for(Model::load_file(path));
  const Tokens tokens{{4, 5, 3}, {2, 4}};
  EXPECT_EQ(from_table->forward(tokens, from_table->embed(tokens)), rnn->forward(tokens, rnn->embed(tokens)));
}

template <class F>
void expect_input_error(F f, const std::string& words) {
  try {
    f();
    ADD_FAILURE() << "accepted; expected an InputError with '" << words << "'";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(RnnDifferentiable, RefusesBadInputWithAnInputError) {
  const auto pass = open("rnn/lstm_bahdanau_location_local.safetensors");
  const Tokens tokens{{4, 5, 3}, {2, 4}};
  expect_input_error([&] { pass->backward(Matrix::Zero(2, pass->vocab_size())); }, "forward");
  expect_input_error([&] { pass->embed({{4, 100000}, {2}}); }, "source id 100000");
  expect_input_error([&] { pass->embed({{4}, {2, -1}}); }, "target id -1");
  expect_input_error([&] { pass->embed({{}, {2}}); }, "source");
  expect_input_error([&] { pass->embed({{4}, std::vector<int>(17, 2)}); }, "target");  // max_positions 16
  InputEmbeddings inputs = pass->embed(tokens);
  inputs.source.conservativeResize(2, Eigen::NoChange);
  expect_input_error([&] { pass->forward(tokens, inputs); }, "source input embeddings");
  pass->forward(tokens, pass->embed(tokens));
  expect_input_error([&] { pass->backward(Matrix::Zero(3, pass->vocab_size())); }, "d_logits");
}

// The pass runs on the loaded model's own weights, which it keeps alive: a model loaded from bytes
// that are gone has the pass of the same file loaded from disk.
TEST(RnnDifferentiable, RunsOnTheLoadedWeightsWithoutTheFile) {
  const std::string name = "rnn/lstm_luong_location.safetensors";
  std::unique_ptr<Differentiable> from_bytes;
  {
    const auto bytes = read_file_bytes(golden_path(name));
    auto model = Model::load_bytes(bytes.data(), bytes.size());
    from_bytes = rnn_differentiable(std::move(model));
  }  // the bytes and the caller's model are gone
  const auto from_file = open(name);
  const Tokens tokens{{4, 5, 6, 3}, {2, 4, 5}};
  const Matrix logits = from_file->forward(tokens, from_file->embed(tokens));
  EXPECT_EQ(from_bytes->forward(tokens, from_bytes->embed(tokens)), logits);
  Matrix d_logits(logits.rows(), logits.cols());
  for (Eigen::Index i = 0; i < d_logits.size(); ++i) d_logits.data()[i] = 0.01f * static_cast<float>(i % 7) - 0.03f;
  const InputEmbeddings want = from_file->backward(d_logits), got = from_bytes->backward(d_logits);
  EXPECT_EQ(got.source, want.source);
  EXPECT_EQ(got.target, want.target);
  EXPECT_EQ(from_bytes->parameter_count(), from_file->parameter_count());
}

// An F16 file loaded in binary16 keeps its embeddings, bridge and output layer so; the pass runs
// on them (the inference kernel's products) and agrees with the pass of its binary32 load.
TEST(RnnDifferentiable, RunsOnBinary16Weights) {
  const std::string path = golden_path("../../models/multi30k-rnn-en-de.safetensors");
  Model::LoadOptions half_options, full_options;
  half_options.binary16 = true;
  full_options.binary16 = false;
  const auto half_model = Model::load_file(path, half_options);
  const auto* rnn = dynamic_cast<const rnn::Rnn*>(half_model->family.get());
  ASSERT_NE(rnn, nullptr);
  ASSERT_TRUE(rnn->weights().output.weight.half());
  ASSERT_TRUE(rnn->weights().bridge.weight.half());
  const auto half = rnn_differentiable(half_model), full = rnn_differentiable(Model::load_file(path, full_options));
  const Tokens tokens{{5, 9, 12, 7, 3}, {2, 11, 6, 8}};
  const Matrix logits = half->forward(tokens, half->embed(tokens)), want = full->forward(tokens, full->embed(tokens));
  EXPECT_LT((logits - want).cwiseAbs().maxCoeff(), 1e-4f * std::max(1.0f, want.cwiseAbs().maxCoeff()));
  Matrix d_logits = Matrix::Zero(logits.rows(), logits.cols());
  for (Eigen::Index t = 0; t < d_logits.rows(); ++t) d_logits(t, 4 + t) = 1.0f;
  const InputEmbeddings got = half->backward(d_logits), expected = full->backward(d_logits);
  for (const auto& [a, b] : {std::pair(&got.source, &expected.source), std::pair(&got.target, &expected.target)})
    EXPECT_LT((*a - *b).cwiseAbs().maxCoeff(), 1e-4f * std::max(1.0f, b->cwiseAbs().maxCoeff()));
  EXPECT_EQ(half->parameter_count(), full->parameter_count());
}

TEST(RnnDifferentiable, RefusesAFileOfAnotherFamily) {
  const auto transformer = Model::load_file(testing::frozen_toy_path());
  expect_input_error([&] { rnn_differentiable(transformer); }, "not an RNN");
}

}  // namespace
}  // namespace attnscope::train
