#pragma once
// Comparing a trained tensor with a training golden (models/make_train_goldens.py,
// models/make_rnn_train_goldens.py; schema in tests/golden/README.md "Training goldens").
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace attnscope::train::golden {

using json = nlohmann::json;

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

}  // namespace attnscope::train::golden
