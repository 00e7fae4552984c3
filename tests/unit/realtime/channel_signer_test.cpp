#include "mediagen/realtime/channel_signer.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace mediagen::realtime {
namespace {

const std::string kOrderChannel = "private-order.task.0f8fad5b-d9cb-469f-a165-70867728950e";

// Computed outside this code base:
//   printf '%s' '1234.1234:private-foobar' | openssl dgst -sha256 -hmac 7ad3773142a6692b25b8
// (also the example of Pusher's own authorization documentation).
TEST(ChannelSigner, MatchesAnIndependentlyComputedSignature) {
  const ChannelSigner signer("278d425bdf160c739803", "7ad3773142a6692b25b8");
  EXPECT_EQ(signer.sign("1234.1234", "private-foobar"),
            "278d425bdf160c739803:58df8b0c36d6982b82c3ecf6b4662e34fe8c25bba48f5369f135bf843651c3a4");
}

// printf '%s' '123.456:private-order.task.0f8fad5b-d9cb-469f-a165-70867728950e' | openssl dgst -sha256 -hmac s3cr3t
TEST(ChannelSigner, SignsSocketIdColonChannel) {
  const ChannelSigner signer("app-key", "s3cr3t");
  EXPECT_EQ(signer.sign("123.456", kOrderChannel),
            "app-key:234feaa93de63f945a266a44beda73e7e97dcd84d71811435ef0334f0343e07e");
  EXPECT_EQ(signer.app_key(), "app-key");
}

TEST(ChannelSigner, AcceptsItsOwnSignature) {
  const ChannelSigner signer("app-key", "s3cr3t");
  const std::string auth = signer.sign("123.456", kOrderChannel);
  EXPECT_TRUE(signer.verify("123.456", kOrderChannel, auth));
  EXPECT_TRUE(ChannelSigner("app-key", "s3cr3t").verify("123.456", kOrderChannel, auth)) << "another instance";
}

TEST(ChannelSigner, RefusesEveryFlippedHexCharacter) {
  const ChannelSigner signer("app-key", "s3cr3t");
  const std::string auth = signer.sign("123.456", kOrderChannel);
  const std::size_t hex_start = auth.find(':') + 1;
  ASSERT_EQ(auth.size() - hex_start, 64u);
  for (std::size_t i = hex_start; i < auth.size(); ++i) {
    std::string flipped = auth;
    flipped[i] = flipped[i] == '0' ? '1' : '0';
    EXPECT_FALSE(signer.verify("123.456", kOrderChannel, flipped)) << "position " << i;
  }
}

TEST(ChannelSigner, RefusesUppercaseHex) {
  const ChannelSigner signer("app-key", "s3cr3t");
  std::string auth = signer.sign("123.456", kOrderChannel);
  for (std::size_t i = auth.find(':') + 1; i < auth.size(); ++i) {
    if (auth[i] >= 'a' && auth[i] <= 'f') auth[i] = static_cast<char>(auth[i] - 'a' + 'A');
  }
  EXPECT_FALSE(signer.verify("123.456", kOrderChannel, auth));
}

TEST(ChannelSigner, RefusesAnotherSocketOrChannel) {
  const ChannelSigner signer("app-key", "s3cr3t");
  const std::string auth = signer.sign("123.456", kOrderChannel);
  EXPECT_FALSE(signer.verify("123.457", kOrderChannel, auth));
  EXPECT_FALSE(signer.verify("456.123", kOrderChannel, auth));
  EXPECT_FALSE(signer.verify("123.456", "private-order.task.7c9e6679-7425-40de-944b-e07fc1f90ae7", auth));
  EXPECT_FALSE(signer.verify("123.456", "private-chunks.preview.1", auth));
}

TEST(ChannelSigner, RefusesAnotherAppKeyOrSecret) {
  const ChannelSigner signer("app-key", "s3cr3t");
  const std::string auth = signer.sign("123.456", kOrderChannel);
  const std::string hex = auth.substr(auth.find(':') + 1);
  EXPECT_FALSE(signer.verify("123.456", kOrderChannel, "other-key:" + hex));
  EXPECT_FALSE(signer.verify("123.456", kOrderChannel, ":" + hex));
  EXPECT_FALSE(signer.verify("123.456", kOrderChannel, hex));
  EXPECT_FALSE(ChannelSigner("other-key", "s3cr3t").verify("123.456", kOrderChannel, auth));
  EXPECT_FALSE(ChannelSigner("app-key", "s3cr3t!").verify("123.456", kOrderChannel, auth));
  EXPECT_NE(ChannelSigner("app-key", "another").sign("123.456", kOrderChannel), auth);
}

TEST(ChannelSigner, RefusesATruncatedOrExtendedString) {
  const ChannelSigner signer("app-key", "s3cr3t");
  const std::string auth = signer.sign("123.456", kOrderChannel);
  EXPECT_FALSE(signer.verify("123.456", kOrderChannel, auth.substr(0, auth.size() - 1)));
  EXPECT_FALSE(signer.verify("123.456", kOrderChannel, auth.substr(0, auth.size() / 2)));
  EXPECT_FALSE(signer.verify("123.456", kOrderChannel, auth + "0"));
  EXPECT_FALSE(signer.verify("123.456", kOrderChannel, auth + " "));
  EXPECT_FALSE(signer.verify("123.456", kOrderChannel, ""));
}

TEST(ChannelSigner, RefusesAnEmptySecret) {
  EXPECT_THROW(ChannelSigner("app-key", ""), std::invalid_argument);
}

}  // namespace
}  // namespace mediagen::realtime
