// core/quote.h: the one helper every message that quotes untrusted text, and the CLI's text
// output, go through.
#include <gtest/gtest.h>

#include "core/quote.h"

namespace attnscope {
namespace {

TEST(Quote, ControlCharactersAndBrokenUtf8AreEscaped) {
  EXPECT_EQ(printable(std::string("F32\0", 4)), "F32\\u0000");
  EXPECT_EQ(printable("\x1b[31mred\x07\x7f\n\t"), "\\u001B[31mred\\u0007\\u007F\\u000A\\u0009");
  EXPECT_EQ(printable("\xc2\x9b" "2J"), "\\u009B2J");              // C1 CSI, which some terminals obey
  EXPECT_EQ(printable("\xff\xc0\xaf" "a\xe2\x82"), "\\xFF\\xC0\\xAFa\\xE2\\x82");  // not UTF-8: byte by byte
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xED\\xA0\\x80");          // a UTF-16 surrogate is not UTF-8
  EXPECT_EQ(printable("Grüße 🙂 \\u0041 'x'"), "Grüße 🙂 \\u0041 'x'");  // printable text is kept as it is
}

TEST(Quote, LongTextIsCutAtACharacterBoundary) {
  EXPECT_EQ(quote("dtype"), "'dtype'");
  EXPECT_EQ(quote(std::string(kMaxQuotedBytes, 'a')), "'" + std::string(kMaxQuotedBytes, 'a') + "'");
  EXPECT_EQ(quote(std::string(kMaxQuotedBytes + 1, 'a')), "'" + std::string(kMaxQuotedBytes, 'a') + "...'");
  // 79 bytes, then a 2-byte character across the cut: it is left out whole.
  EXPECT_EQ(excerpt(std::string(kMaxQuotedBytes - 1, 'a') + "üüü"), std::string(kMaxQuotedBytes - 1, 'a') + "...");
  EXPECT_EQ(excerpt(std::string(1 << 20, '\0'), 8), "\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000...");
}

}  // namespace
}  // namespace attnscope
