#pragma once
// Helpers shared by the native tests: reading golden JSON written by models/make_goldens.py
// and comparing nested arrays of numbers against engine output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnscope::testing {

using json = nlohmann::json;

inline std::string golden_path(const std::string& name) { return std::string(ATTNSCOPE_GOLDEN_DIR) + "/" + name; }

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

// Compares a nested JSON array with `n` engine values (row-major), shape included.
inline void expect_close(const json& expected, const float* actual, std::size_t n, const std::vector<int>& shape,
                         const std::string& what) {
  std::vector<float> want;
  std::vector<int> want_shape;
  flatten(expected, want, want_shape);
  ASSERT_EQ(want_shape, shape) << what << ": shape differs";
  ASSERT_EQ(want.size(), n) << what;
  double worst = 0.0;
  std::size_t worst_at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = std::abs(static_cast<double>(want[i]) - actual[i]);
    if (!(d <= worst)) {  // also catches NaN
      worst = d;
      worst_at = i;
    }
  }
  max_abs_diff_seen() = std::max(max_abs_diff_seen(), worst);
  EXPECT_LE(worst, kTolerance) << what << ": max abs diff " << worst << " at flat index " << worst_at
                               << " (expected " << want[worst_at] << ", got " << actual[worst_at] << ")";
}

}  // namespace attnscope::testing
