#pragma once
// Comparing a trained tensor with a training golden (models/goldens/make_train_goldens.py,
// models/goldens/make_rnn_train_goldens.py; schema in tests/golden/README.md "Training goldens").
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "model/example.h"
#include "test_support.h"
#include "train/optimizer.h"

namespace attnscope::train::golden {

using json = nlohmann::json;

// A training golden's batch ({"batch": {"src": [[ids]], "tgt": [[ids]]}}) and loss options.
inline std::vector<Example> batch_of(const json& g) {
  const json& src = g.at("batch").at("src");
  const json& tgt = g.at("batch").at("tgt");
  std::vector<Example> batch;
  for (std::size_t i = 0; i < src.size(); ++i)
    batch.push_back({src[i].get<std::vector<int>>(), tgt[i].get<std::vector<int>>()});
  return batch;
}

inline LossOptions loss_options_of(const json& g) {
  LossOptions options;
  options.label_smoothing = g.at("label_smoothing").get<float>();
  return options;
}

// |expected - actual| <= max(absolute, relative·|expected|); false for NaN or Inf anywhere.
inline bool close(double expected, double actual, double relative, double absolute) {
  if (!std::isfinite(expected) || !std::isfinite(actual)) return false;
  return std::abs(expected - actual) <= std::max(absolute, relative * std::abs(expected));
}

// One tensor against its golden: every element ({"shape", "values"}), or a digest ({"sum",
// "abs_sum", "signed_sum", "samples"}) whose sums may be off by at most the sum of the
// per-element tolerances.
inline void expect_tensor(const json& want, const Matrix& got, bool is_vector, double relative, double absolute,
                   const std::string& what) {
  std::vector<long> shape = want.at("shape").get<std::vector<long>>();
  const std::vector<long> got_shape = is_vector ? std::vector<long>{static_cast<long>(got.size())}
                                                : std::vector<long>{static_cast<long>(got.rows()), static_cast<long>(got.cols())};
  ASSERT_EQ(shape, got_shape) << what;
  const float* a = got.data();
  const std::size_t n = static_cast<std::size_t>(got.size());
  for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(std::isfinite(a[i])) << what << " [" << i << "] is " << a[i];
  if (want.contains("values")) {
    const auto& values = want.at("values");
    ASSERT_EQ(values.size(), n) << what;
    int bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double e = values[i].get<double>();
      if (!close(e, a[i], relative, absolute) && bad++ < 5)
        ADD_FAILURE() << what << " [" << i << "]: expected " << e << ", got " << a[i];
    }
    EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << n << " elements differ";
    return;
  }
  double sum = 0, abs_sum = 0, signed_sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t h = static_cast<std::uint32_t>(static_cast<std::uint64_t>(i) * 2654435761ull);
    sum += a[i];
    abs_sum += std::abs(a[i]);
    signed_sum += (h >> 31) ? -a[i] : a[i];
  }
  const double bound = n * absolute + relative * want.at("abs_sum").get<double>();
  EXPECT_LE(std::abs(sum - want.at("sum").get<double>()), bound) << what << " sum " << sum;
  EXPECT_LE(std::abs(abs_sum - want.at("abs_sum").get<double>()), bound) << what << " abs_sum " << abs_sum;
  EXPECT_LE(std::abs(signed_sum - want.at("signed_sum").get<double>()), bound) << what << " signed_sum " << signed_sum;
  for (const json& s : want.at("samples")) {
    const std::size_t i = s[0].get<std::size_t>();
    ASSERT_LT(i, n) << what;
    EXPECT_TRUE(close(s[1].get<double>(), a[i], relative, absolute))
        << what << " [" << i << "]: expected " << s[1].get<double>() << ", got " << a[i];
  }
}

// The loss and every gradient of `params` on `batch` against the golden `g` ("loss", "n_tokens",
// "gradients"). One check for every family: `loss_and_gradients` is the family's overload.
template <class Params, class Batch, class Options>
void expect_loss_and_gradients(const json& g, const Params& params, const Batch& batch, const Options& options) {
  Params grads = params.zeros_like();
  const auto r = loss_and_gradients(params, batch, options, nullptr, grads);
  EXPECT_EQ(r.tokens, g.at("n_tokens").get<int>());
  EXPECT_TRUE(close(g.at("loss").get<double>(), r.loss(), 1e-5, 1e-6))
      << "loss " << r.loss() << " expected " << g.at("loss").get<double>();
  std::set<std::string> names;
  for (auto& t : grads.tensors()) {
    names.insert(t.name);
    ASSERT_TRUE(g.at("gradients").contains(t.name)) << t.name << " has no golden";
    expect_tensor(g.at("gradients").at(t.name), *t.tensor, t.vector, 1e-4, 1e-6, "gradient of " + t.name);
  }
  EXPECT_EQ(names.size(), g.at("gradients").size()) << "the golden has tensors the parameters lack";
}

// Every "optimizer_cases" entry of `g`: N steps of Adam / Adam+L2 / AdamW with clipping and the
// inverse-sqrt schedule from `start`, the weights against PyTorch's.
template <class Params, class Batch, class Options>
void expect_adam_steps(const json& g, const Params& start, const Batch& batch, const Options& options) {
  for (const json& c : g.at("optimizer_cases")) {
    const json& o = c.at("options");
    SCOPED_TRACE(o.at("name").get<std::string>());
    Params params = start;
    AdamOptions adam;
    adam.beta1 = o.at("betas")[0].get<double>();
    adam.beta2 = o.at("betas")[1].get<double>();
    adam.eps = o.at("eps").get<double>();
    adam.weight_decay = o.at("weight_decay").get<double>();
    adam.decoupled_weight_decay = o.at("optimizer") == "adamw";
    Adam optimizer(params, adam);
    Schedule schedule{Schedule::Kind::InverseSqrt, o.at("warmup").get<int>()};
    Params grads = params.zeros_like();
    for (int step = 0; step < c.at("steps").get<int>(); ++step) {
      grads.set_zero();
      loss_and_gradients(params, batch, options, nullptr, grads);
      clip_grad_norm(grads, o.at("clip_norm").get<double>());
      optimizer.step(params, grads, o.at("lr").get<double>() * schedule.factor(step));
    }
    for (auto& t : params.tensors())
      expect_tensor(c.at("weights").at(t.name), *t.tensor, t.vector, 0.0, 1e-5, "weights of " + t.name);
  }
}

}  // namespace attnscope::train::golden
