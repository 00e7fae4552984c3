#include "app/invalidation.hpp"

#include <gtest/gtest.h>

#include <string>

namespace mediagen::app {
namespace {

TEST(Invalidation, NamesItsChannelAfterThePrefix) {
  EXPECT_EQ(invalidation_channel("mediagen:"), "mediagen:keys:invalidate");
}

TEST(Invalidation, FormatsAKeyAsItsHexDigest) {
  const auto d = crypto::sha256("mg_x");
  EXPECT_EQ(format_invalidation(d), "key " + crypto::to_hex(d));
}

TEST(Invalidation, FormatsAUserById) { EXPECT_EQ(format_invalidation(UserId{42}), "user 42"); }

TEST(Invalidation, ParsesAKeyMessage) {
  const auto d = crypto::sha256("mg_x");
  auto what = parse_invalidation("key " + crypto::to_hex(d));
  ASSERT_TRUE(what.has_value());
  ASSERT_TRUE(std::holds_alternative<crypto::Sha256Digest>(*what));
  EXPECT_EQ(std::get<crypto::Sha256Digest>(*what), d);
}

TEST(Invalidation, ParsesAnUppercaseHexDigest) {
  const auto d = crypto::sha256("mg_x");
  std::string hex = crypto::to_hex(d);
  for (auto& c : hex) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  auto what = parse_invalidation("key " + hex);
  ASSERT_TRUE(what.has_value());
  EXPECT_EQ(std::get<crypto::Sha256Digest>(*what), d);
}

TEST(Invalidation, ParsesAUserMessage) {
  auto what = parse_invalidation("user 42");
  ASSERT_TRUE(what.has_value());
  ASSERT_TRUE(std::holds_alternative<UserId>(*what));
  EXPECT_EQ(std::get<UserId>(*what), UserId{42});
  auto big = parse_invalidation("user 9223372036854775807");
  ASSERT_TRUE(big.has_value());
  EXPECT_EQ(std::get<UserId>(*big).value, 9223372036854775807LL);
}

TEST(Invalidation, RoundTripsWhatItFormats) {
  const Invalidation key = crypto::sha256("mg_round");
  const Invalidation user = UserId{7};
  EXPECT_EQ(parse_invalidation(format_invalidation(key)), key);
  EXPECT_EQ(parse_invalidation(format_invalidation(user)), user);
}

TEST(Invalidation, RefusesMalformedKeyMessages) {
  const std::string hex = crypto::to_hex(crypto::sha256("mg_x"));
  for (const std::string& payload :
       {std::string("key"), std::string("key "), "key " + hex.substr(0, 63), "key " + hex + "0", "key  " + hex.substr(1),
        "KEY " + hex, "key:" + hex, "key " + std::string(64, 'g'), "key " + std::string(62, '0') + "-1",
        "key " + std::string(62, '0') + " 1", "key " + std::string(62, '0') + "+1", " key " + hex.substr(1)}) {
    EXPECT_FALSE(parse_invalidation(payload).has_value()) << "'" << payload << "'";
  }
}

TEST(Invalidation, RefusesMalformedUserMessages) {
  for (const char* payload : {"user", "user ", "user 0", "user -1", "user +1", "user 1a", "user 1 ", "user  1",
                              "User 1", "user 0x10", "user 1.5", "user 99999999999999999999",
                              "user 000000000000000000001", "user 01", ""}) {
    EXPECT_FALSE(parse_invalidation(payload).has_value()) << "'" << payload << "'";
  }
}

TEST(Invalidation, FormatsAndParsesAProfileMessage) {
  EXPECT_EQ(format_invalidation(ProfileOf{UserId{42}}), "profile 42");
  auto what = parse_invalidation("profile 42");
  ASSERT_TRUE(what.has_value());
  ASSERT_TRUE(std::holds_alternative<ProfileOf>(*what));
  EXPECT_EQ(std::get<ProfileOf>(*what).user, UserId{42});
  const Invalidation big = ProfileOf{UserId{9223372036854775807}};
  EXPECT_EQ(parse_invalidation(format_invalidation(big)), big);
  // A profile message is not a user message: it drops no key.
  EXPECT_FALSE(std::holds_alternative<UserId>(*what));
}

TEST(Invalidation, RefusesMalformedProfileMessages) {
  for (const char* payload : {"profile", "profile ", "profile 0", "profile -1", "profile +1", "profile 01", "profile 1 ",
                              "profile  1", "Profile 1", "profiles 1", "profile 99999999999999999999", "profile1"}) {
    EXPECT_FALSE(parse_invalidation(payload).has_value()) << "'" << payload << "'";
  }
}

TEST(Invalidation, RefusesAnOversizedMessage) {
  EXPECT_FALSE(parse_invalidation("user " + std::string(100000, '1')).has_value());
  EXPECT_FALSE(parse_invalidation(std::string(1 << 20, 'k')).has_value());
}

}  // namespace
}  // namespace mediagen::app
