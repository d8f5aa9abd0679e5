// The golden comparer (test_support.h) must fail loudly: a comparer that lets a NaN through
// would let every golden test pass on a broken engine.
#include <gtest/gtest-spi.h>

#include <cmath>
#include <limits>

#include "test_support.h"

namespace attnscope::testing {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

::testing::AssertionResult compare(const json& expected, std::vector<float> actual, std::vector<int> shape) {
  return close_to(expected, actual.data(), actual.size(), shape, "test");
}

TEST(Comparer, PassesOnEqualData) {
  EXPECT_TRUE(compare(json::array({1, 2, 3}), {1, 2, 3}, {3}));
  EXPECT_TRUE(compare(json::parse("[[1, 2], [3, 4]]"), {1, 2, 3, 4}, {2, 2}));
  EXPECT_TRUE(compare(json::array({1, 2, 3}), {1, 2.00005f, 3}, {3})) << "within the tolerance";
}

TEST(Comparer, FailsOnNaNAnywhereInTheArray) {
  // The old comparer kept the first NaN as `worst` and then replaced it with a later finite
  // difference: {1, NaN, 3.00001} passed.
  EXPECT_FALSE(compare(json::array({1, 2, 3}), {1, kNaN, 3.00001f}, {3}));
  EXPECT_FALSE(compare(json::array({1, 2, 3}), {kNaN, 2, 3}, {3}));
  EXPECT_FALSE(compare(json::array({1, 2, 3}), {1, 2, kNaN}, {3}));
  EXPECT_FALSE(compare(json::array({1, 2, 3}), {kNaN, kNaN, kNaN}, {3}));
  // A NaN in the golden side fails too (nlohmann writes NaN as null, so build it directly).
  json nan_golden = json::array({1.0, 2.0});
  nan_golden[1] = std::nan("");
  EXPECT_FALSE(compare(nan_golden, {1, 2}, {2}));
  const auto message = std::string(compare(json::array({1, 2, 3}), {1, kNaN, 3}, {3}).message());
  EXPECT_NE(message.find("NaN at flat index 1"), std::string::npos) << message;
}

TEST(Comparer, FailsOnInfinityMismatch) {
  EXPECT_FALSE(compare(json::array({1, 2}), {1, kInf}, {2}));
  EXPECT_FALSE(compare(json::array({1, -kInf}), {1, kInf}, {2}));
  EXPECT_TRUE(compare(json::array({1, -kInf}), {1, -kInf}, {2})) << "the same infinity on both sides";
}

TEST(Comparer, FailsOnShapeMismatch) {
  EXPECT_FALSE(compare(json::parse("[[1, 2], [3, 4]]"), {1, 2, 3, 4}, {4}));
  EXPECT_FALSE(compare(json::parse("[[1, 2], [3, 4]]"), {1, 2, 3, 4}, {1, 4}));
  EXPECT_FALSE(compare(json::array({1, 2, 3}), {1, 2}, {2}));
  EXPECT_FALSE(compare(json::array({1, 2, 3}), {1, 2, 3}, {2})) << "a size that disagrees with the shape";
  const auto message = std::string(compare(json::parse("[[1, 2], [3, 4]]"), {1, 2, 3, 4}, {4}).message());
  EXPECT_NE(message.find("shape differs: expected [2, 2], got [4]"), std::string::npos) << message;
}

TEST(Comparer, FailsOnADifferenceOverTheTolerance) {
  EXPECT_FALSE(compare(json::array({1, 2, 3}), {1, 2.001f, 3}, {3}));
  EXPECT_FALSE(compare(json::array({1, 2, 3}), {1, 2, 4}, {3}));
  const auto message = std::string(compare(json::array({1, 2, 3}), {1, 2, 4}, {3}).message());
  EXPECT_NE(message.find("max abs diff 1 at flat index 2"), std::string::npos) << message;
  // expect_close reports through gtest: a non-fatal failure. (EXPECT_NONFATAL_FAILURE's
  // statement may not use local variables, hence static.)
  static const std::vector<float> bad = {1, kNaN, 3.00001f};
  EXPECT_NONFATAL_FAILURE(expect_close(json::array({1, 2, 3}), bad.data(), bad.size(), {3}, "wrapper"),
                          "NaN at flat index 1");
}

TEST(Comparer, MaxAbsDifferenceFailsOnNaN) {
  // The int8 model test compares logits through max_abs_difference: a NaN on either side must
  // fail it, even after a larger finite difference (std::max(d, NaN) would have kept d).
  const std::vector<float> want = {1, 2, 3}, bad = {1.5f, kNaN, 3}, good = {1.5f, 2, 3};
  double worst = 0.0;
  std::size_t at = 0;
  EXPECT_FALSE(max_abs_difference(want.data(), bad.data(), 3, "logits", worst, at));
  EXPECT_FALSE(max_abs_difference(bad.data(), good.data(), 3, "logits", worst, at));
  const std::vector<float> inf = {1, kInf, 3};
  EXPECT_FALSE(max_abs_difference(want.data(), inf.data(), 3, "logits", worst, at));
  ASSERT_TRUE(max_abs_difference(want.data(), good.data(), 3, "logits", worst, at));
  EXPECT_EQ(worst, 0.5);
  EXPECT_EQ(at, 0u);
}

}  // namespace
}  // namespace attnscope::testing
