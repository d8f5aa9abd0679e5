// Hostile numbers in the decoding options. Every value that does not fit must be an
// InputError or a documented clamp; converting an out-of-range double to an integer is undefined
// behaviour in C++, which the ASan/UBSan build of this suite (build/asan) would report.
#include <gtest/gtest.h>

#include "core/error.h"
#include "decoding/options_json.h"
#include "decoding/session.h"
#include "test_support.h"

namespace attnscope {
namespace {

#define EXPECT_INPUT_ERROR(statement, fragment)                                        \
  do {                                                                                 \
    try {                                                                              \
      statement;                                                                       \
      ADD_FAILURE() << #statement << " did not throw";                                 \
    } catch (const InputError& e) {                                                    \
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();  \
    }                                                                                  \
  } while (0)

TEST(Reliability, HugeNumbersInDecodingOptionsAreErrors) {
  for (const char* x : {"1e300", "-1e300", "1e19", "-9.3e18", "2147483648", "1000000001"}) {
    const std::string v(x);
    EXPECT_INPUT_ERROR(decode_options_from_json(R"({"maxLength": )" + v + "}"), "'maxLength' must be an integer");
    EXPECT_INPUT_ERROR(decode_options_from_json(R"({"prefix": [)" + v + "]}"), "'prefix' must be an integer");
    EXPECT_INPUT_ERROR(interventions_from_json(R"({"maskHeads": [{"layer": )" + v + "}]}"), "'layer' must be an integer");
  }
  for (const char* x : {"-1", "1e300", "-1e300", "1e19", "0.5"})
    EXPECT_INPUT_ERROR(decode_options_from_json(std::string(R"({"seed": )") + x + "}"), "'seed' must be an integer");
  EXPECT_EQ(decode_options_from_json(R"({"maxLength": 1000000000, "seed": 9007199254740991})").max_length, 1000000000);
}

TEST(Reliability, RelativeLengthLimitIsClampedToOneAndToThePositions) {
  const auto model = Model::load_file(testing::golden_path("tiny_post_sin.safetensors"));
  DecodeOptions o;
  o.max_length_a = 1.0;
  for (double b : {-1e300, -1e9, -5.0}) {
    o.max_length_b = b;
    EXPECT_EQ(DecodeSession(model, "i eat", o).max_length(), 1) << b;
  }
  for (double b : {1e9, 1e300}) {
    o.max_length_b = b;
    EXPECT_EQ(DecodeSession(model, "i eat", o).max_length(), model->config.max_positions - 1) << b;
  }
  o.max_length_b = 0.0;
  o.max_length_a = 1e300;
  EXPECT_EQ(DecodeSession(model, "i eat", o).max_length(), model->config.max_positions - 1);
}

}  // namespace
}  // namespace attnscope
