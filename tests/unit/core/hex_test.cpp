// Hexadecimal digits: what digests, ids and escapes are written in, and the records read back.
#include "mediagen/core/hex.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>

namespace mediagen {
namespace {

constexpr std::array<std::uint8_t, 4> kBytes{0x00, 0x0F, 0xA5, 0xFF};

TEST(Hex, WritesTwoLowercaseDigitsPerByteMostSignificantFirst) {
  EXPECT_EQ(to_hex(kBytes), "000fa5ff");
  EXPECT_EQ(to_hex(std::span<const std::uint8_t>{}), "");
}

TEST(Hex, WritesUppercaseDigitsWhenAsked) { EXPECT_EQ(to_hex(kBytes, HexCase::upper), "000FA5FF"); }

TEST(Hex, AppendsAfterWhatIsAlreadyThere) {
  std::string out = "\\u00";
  append_hex(out, std::span<const std::uint8_t>(kBytes).subspan(1, 1));
  EXPECT_EQ(out, "\\u000f");
}

TEST(Hex, ValuesEachDigitOfEitherCase) {
  EXPECT_EQ(hex_value('0'), 0);
  EXPECT_EQ(hex_value('9'), 9);
  EXPECT_EQ(hex_value('a'), 10);
  EXPECT_EQ(hex_value('F'), 15);
  for (const char c : {'g', 'G', '/', ':', '@', '`', ' ', '\0', '\xC3'}) EXPECT_EQ(hex_value(c), -1) << c;
}

TEST(Hex, ReadsBackWhatItWroteInEitherCase) {
  std::array<std::uint8_t, 4> out{};
  ASSERT_TRUE(from_hex("000fa5ff", out));
  EXPECT_EQ(out, kBytes);
  out = {};
  ASSERT_TRUE(from_hex("000FA5fF", out));
  EXPECT_EQ(out, kBytes);
}

TEST(Hex, RefusesAWrongLengthOrANonDigit) {
  std::array<std::uint8_t, 4> out{};
  EXPECT_FALSE(from_hex("000fa5f", out));
  EXPECT_FALSE(from_hex("000fa5fff", out));
  EXPECT_FALSE(from_hex("000fa5fg", out));
  EXPECT_FALSE(from_hex("000f a5f", out));
}

TEST(Hex, TellsLowercaseHexFromOtherSpellings) {
  EXPECT_TRUE(is_lower_hex("0123456789abcdef"));
  EXPECT_TRUE(is_lower_hex(""));
  EXPECT_FALSE(is_lower_hex("ABCDEF"));
  EXPECT_FALSE(is_lower_hex("0x12"));
}

}  // namespace
}  // namespace mediagen
