#include "mediagen/core/crypto.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace mediagen::crypto {
namespace {

std::span<const std::uint8_t> bytes(const std::vector<std::uint8_t>& v) { return v; }

TEST(Crypto, HashesAbcToTheKnownSha256) {
  EXPECT_EQ(to_hex(sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Crypto, HashesTheEmptyStringToTheKnownSha256) {
  EXPECT_EQ(to_hex(sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Crypto, HashesBinaryInputIncludingZeroBytes) {
  EXPECT_NE(sha256(std::string("a\0b", 3)), sha256("a"));
  EXPECT_EQ(sha256(std::string("a\0b", 3)), sha256(std::string("a\0b", 3)));
}

TEST(Crypto, WritesLowercaseHexTwoDigitsPerByte) {
  EXPECT_EQ(to_hex(bytes({0x00, 0x0f, 0xf0, 0xff, 0x5a})), "000ff0ff5a");
  EXPECT_EQ(to_hex(bytes({})), "");
}

TEST(Crypto, ComputesTheRfc4231HmacSha256Vector) {
  EXPECT_EQ(hmac_sha256_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(Crypto, ConstantTimeEqualAcceptsEqualInputs) {
  EXPECT_TRUE(constant_time_equal(std::string_view("secret"), std::string_view("secret")));
  EXPECT_TRUE(constant_time_equal(std::string_view(""), std::string_view("")));
  auto a = sha256("x");
  auto b = sha256("x");
  EXPECT_TRUE(constant_time_equal(std::span<const std::uint8_t>(a), std::span<const std::uint8_t>(b)));
}

TEST(Crypto, ConstantTimeEqualRefusesDifferentInputs) {
  EXPECT_FALSE(constant_time_equal(std::string_view("secret"), std::string_view("secreT")));
  EXPECT_FALSE(constant_time_equal(std::string_view("Secret"), std::string_view("secret")));
  auto a = sha256("x");
  auto b = sha256("y");
  EXPECT_FALSE(constant_time_equal(std::span<const std::uint8_t>(a), std::span<const std::uint8_t>(b)));
}

TEST(Crypto, ConstantTimeEqualRefusesDifferentLengths) {
  EXPECT_FALSE(constant_time_equal(std::string_view("secret"), std::string_view("secret1")));
  EXPECT_FALSE(constant_time_equal(std::string_view(""), std::string_view("a")));
  EXPECT_FALSE(constant_time_equal(std::string_view("abc"), std::string_view(std::string("abc\0", 4))));
  auto a = sha256("x");
  EXPECT_FALSE(constant_time_equal(std::span<const std::uint8_t>(a), std::span<const std::uint8_t>(a).first(31)));
}

TEST(Crypto, EncodesTheRfc4648VectorsAsUnpaddedBase64url) {
  EXPECT_EQ(base64url(""), "");
  EXPECT_EQ(base64url("f"), "Zg");
  EXPECT_EQ(base64url("fo"), "Zm8");
  EXPECT_EQ(base64url("foo"), "Zm9v");
  EXPECT_EQ(base64url("foob"), "Zm9vYg");
  EXPECT_EQ(base64url("fooba"), "Zm9vYmE");
  EXPECT_EQ(base64url("foobar"), "Zm9vYmFy");
}

TEST(Crypto, UsesTheUrlSafeAlphabet) {
  // Standard base64 would give "+/+/" and "//8=".
  EXPECT_EQ(base64url("\xfb\xff\xbf"), "-_-_");
  EXPECT_EQ(base64url("\xff\xff"), "__8");
  EXPECT_EQ(base64url(std::string("\0\0\0", 3)), "AAAA");
}

TEST(Crypto, EncodesThirtyTwoBytesInFortyThreeCharacters) {
  EXPECT_EQ(base64url(std::string(32, '\x01')).size(), 43u);
}

TEST(Crypto, ReturnsRandomBytesOfTheRequestedLength) {
  for (std::size_t n : {0u, 1u, 16u, 32u, 1000u}) EXPECT_EQ(random_bytes(n).size(), n);
}

TEST(Crypto, NeverRepeatsRandomBytes) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(seen.insert(random_bytes(32)).second);
}

TEST(Crypto, SpreadsRandomBytesOverAllValues) {
  const std::string r = random_bytes(64 * 1024);
  std::set<unsigned char> values(r.begin(), r.end());
  EXPECT_EQ(values.size(), 256u);
}

}  // namespace
}  // namespace mediagen::crypto
