// Percent-encoding: the request path, the query string and the signed download links.
#include "mediagen/core/percent.hpp"

#include <gtest/gtest.h>

#include <string>

namespace mediagen {
namespace {

TEST(Percent, DecodesEscapesOfEitherCase) {
  EXPECT_EQ(percent_decode("a%20b%2f%2F%C3%A9", false), "a b//\xC3\xA9");
  EXPECT_EQ(percent_decode("%41", false), "A");
  EXPECT_EQ(percent_decode("", false), "");
}

TEST(Percent, DecodesNulAndEveryOtherByte) {
  EXPECT_EQ(percent_decode("%00%FF", false), std::string("\0\xFF", 2));
}

TEST(Percent, LeavesAPercentThatStartsNoEscapeAsWritten) {
  EXPECT_EQ(percent_decode("%zz", false), "%zz");
  EXPECT_EQ(percent_decode("%4", false), "%4");
  EXPECT_EQ(percent_decode("%4g", false), "%4g");
  EXPECT_EQ(percent_decode("100%", false), "100%");
  EXPECT_EQ(percent_decode("%", false), "%");
  EXPECT_EQ(percent_decode("%%41", false), "%A");
  EXPECT_EQ(percent_decode("/a%zz/b%4/c%", false), "/a%zz/b%4/c%");
}

TEST(Percent, DecodesOnceOnly) { EXPECT_EQ(percent_decode("%2541", false), "%41"); }

TEST(Percent, TurnsPlusIntoSpaceOnlyWhenAsked) {
  EXPECT_EQ(percent_decode("a+b%2B", true), "a b+");
  EXPECT_EQ(percent_decode("a+b%2B", false), "a+b+");
}

TEST(Percent, EncodesAllButTheUnreservedCharactersWithUppercaseDigits) {
  EXPECT_EQ(percent_encode("a-b_c.d~e/f g%h"), "a-b_c.d~e%2Ff%20g%25h");
  EXPECT_EQ(percent_encode(std::string("\0\xC3\xA9+", 4)), "%00%C3%A9%2B");
  EXPECT_EQ(percent_encode("AZaz09"), "AZaz09");
}

TEST(Percent, DecodesWhatItEncodes) {
  const std::string bytes("any \0 bytes %zz + \xFF", 19);
  EXPECT_EQ(percent_decode(percent_encode(bytes), false), bytes);
}

TEST(Percent, EscapesOnlyAPercentThatStartsNoEscape) {
  EXPECT_EQ(escape_stray_percent("%41%zz%4"), "%41%25zz%254");
  EXPECT_EQ(escape_stray_percent("%"), "%25");
  EXPECT_EQ(escape_stray_percent("plain"), "plain");
}

}  // namespace
}  // namespace mediagen
