// ASCII letter case: header tokens, ids, language tags and file extensions.
#include "mediagen/core/ascii.hpp"

#include <gtest/gtest.h>

namespace mediagen {
namespace {

TEST(Ascii, LowersOnlyTheAsciiCapitals) {
  EXPECT_EQ(ascii_lower("AbC-XYZ_09@[`{"), "abc-xyz_09@[`{");
  EXPECT_EQ(ascii_lower("\xC3\x89T\xC3\x89"), "\xC3\x89t\xC3\x89");  // ÉTÉ: the É stays
  EXPECT_EQ(ascii_lower(""), "");
  EXPECT_EQ(ascii_lower('Q'), 'q');
  EXPECT_EQ(ascii_lower('\xC9'), '\xC9');
}

TEST(Ascii, ComparesWithoutCaseOnlyTheAsciiLetters) {
  EXPECT_TRUE(iequals_ascii("Chunked", "chunked"));
  EXPECT_TRUE(iequals_ascii("100-CONTINUE", "100-continue"));
  EXPECT_TRUE(iequals_ascii("", ""));
  EXPECT_FALSE(iequals_ascii("chunked", "chunke"));
  EXPECT_FALSE(iequals_ascii("\xC3\xA9", "\xC3\x89"));  // é and É differ outside ASCII
  EXPECT_FALSE(iequals_ascii("@", "`"));                // 0x40 and 0x60 are not a letter pair
}

TEST(Ascii, TellsAPrefixWithoutCase) {
  EXPECT_TRUE(istarts_with_ascii("RU-ru", "ru"));
  EXPECT_TRUE(istarts_with_ascii("ru", "ru"));
  EXPECT_TRUE(istarts_with_ascii("anything", ""));
  EXPECT_FALSE(istarts_with_ascii("r", "ru"));
  EXPECT_FALSE(istarts_with_ascii("en-RU", "ru"));
}

}  // namespace
}  // namespace mediagen
