#pragma once
// Helpers shared by the native tests: reading golden JSON written by models/goldens/make_goldens.py
// and comparing nested arrays of numbers against engine output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnscope::testing {

using json = nlohmann::json;

// What `f` throws as an E, as its message; `none` when it throws nothing (another exception
// escapes, and the test fails on it).
template <class E, class F>
std::string thrown_message(F&& f, const std::string& none = "(nothing thrown)") {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return none;
}

inline std::string golden_path(const std::string& name) { return std::string(ATTNSCOPE_GOLDEN_DIR) + "/" + name; }

// The toy model as it was when the goldens and expected translations were made. Tests that
// assert a value read this frozen copy (tests/models/), never models/toy-en-de.safetensors,
// which `models/train/train.py toy` rewrites.
inline std::string frozen_toy_path() {
  return std::string(ATTNSCOPE_GOLDEN_DIR) + "/../models/toy-en-de.frozen.safetensors";
}

// The names, without ".json", of the JSON goldens in golden folder `folder`, sorted: the
// parameters of a test that runs every golden there.
inline std::vector<std::string> golden_json_names(const std::string& folder) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(golden_path(folder)))
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// The ids a decoder-only model of the engine's own reads for a prompt whose golden lists the
// prompt's tokens alone: <bos> (`bos`) first, as gpt.py's forward reads it and as a file without
// prepend_bos says.
inline std::vector<int> after_bos(int bos, const json& prompt_ids) {
  std::vector<int> ids = {bos};
  for (const json& id : prompt_ids) ids.push_back(id.get<int>());
  return ids;
}

inline json load_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  return json::parse(in);
}

inline void flatten(const json& j, std::vector<float>& out, std::vector<int>& shape, std::size_t depth = 0) {
  if (j.is_number()) {
    out.push_back(j.get<float>());
    return;
  }
  if (shape.size() <= depth) shape.push_back(static_cast<int>(j.size()));
  for (const json& e : j) flatten(e, out, shape, depth + 1);
}

// Largest |expected - actual| seen by any comparison in this process, for the closing report.
inline double& max_abs_diff_seen() {
  static double value = 0.0;
  return value;
}

constexpr double kTolerance = 1e-4;

// The one owner of the per-value rules every comparison here follows: the largest finite
// |want - actual| over n values (into `worst`, at `worst_at`), failing on a NaN on either side
// and on an infinity the other side does not have with the same sign. std::max(worst, NaN)
// keeps `worst`, so a hand-written max loop lets a NaN through; use this instead.
inline ::testing::AssertionResult max_abs_difference(const float* want, const float* actual, std::size_t n,
                                                     const std::string& what, double& worst, std::size_t& worst_at) {
  worst = 0.0;
  worst_at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double w = want[i], a = actual[i];
    if (std::isnan(w) || std::isnan(a))
      return ::testing::AssertionFailure() << what << ": NaN at flat index " << i << " (expected " << w << ", got "
                                           << a << ")";
    if (std::isinf(w) || std::isinf(a)) {
      if (w != a)
        return ::testing::AssertionFailure() << what << ": infinity mismatch at flat index " << i << " (expected "
                                             << w << ", got " << a << ")";
      continue;  // the same infinity on both sides
    }
    const double d = std::abs(w - a);
    if (d > worst) {
      worst = d;
      worst_at = i;
    }
  }
  return ::testing::AssertionSuccess();
}

// Compares a nested JSON array with `n` engine values (row-major), shape included. Fails on a
// shape or size mismatch, on a NaN on either side (anywhere in the array, whatever else it
// holds), on an infinity the other side does not have with the same sign, and on any finite
// difference over `tolerance`. Returns an AssertionResult so that the comparer itself is
// testable (tests/native/test_support_test.cpp).
inline ::testing::AssertionResult close_to(const json& expected, const float* actual, std::size_t n,
                                           const std::vector<int>& shape, const std::string& what,
                                           double tolerance = kTolerance, double* max_abs_diff = nullptr) {
  std::vector<float> want;
  std::vector<int> want_shape;
  flatten(expected, want, want_shape);
  auto dims = [](const std::vector<int>& s) {
    std::string out = "[";
    for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
    return out + "]";
  };
  if (want_shape != shape)
    return ::testing::AssertionFailure() << what << ": shape differs: expected " << dims(want_shape) << ", got "
                                         << dims(shape);
  if (want.size() != n)
    return ::testing::AssertionFailure() << what << ": expected " << want.size() << " values, got " << n;
  double worst = 0.0;
  std::size_t worst_at = 0;
  const auto values = max_abs_difference(want.data(), actual, n, what, worst, worst_at);
  if (!values) return values;
  if (max_abs_diff) *max_abs_diff = worst;
  if (worst > tolerance)
    return ::testing::AssertionFailure() << what << ": max abs diff " << worst << " at flat index " << worst_at
                                         << " (expected " << want[worst_at] << ", got " << actual[worst_at]
                                         << "), tolerance " << tolerance;
  return ::testing::AssertionSuccess();
}

inline void expect_close(const json& expected, const float* actual, std::size_t n, const std::vector<int>& shape,
                         const std::string& what) {
  double worst = 0.0;
  EXPECT_TRUE(close_to(expected, actual, n, shape, what, kTolerance, &worst));
  max_abs_diff_seen() = std::max(max_abs_diff_seen(), worst);
}

}  // namespace attnscope::testing
