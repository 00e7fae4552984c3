#include <gtest/gtest.h>

#include "mediagen/core/crypto.hpp"
#include "realtime/fanout_signature.hpp"

namespace mediagen::realtime {
namespace {

const std::string kMessage =
    R"(abc {"event":"ready","channel":"private-chunks.preview.5","data":"{\"status\":\"ready\"}"})";

TEST(FanoutSignature, TheKeyIsDerivedFromTheSecretWithItsOwnLabel) {
  EXPECT_EQ(fanout_key("s3cret"), crypto::hmac_sha256_hex("s3cret", "mediagen realtime fan-out v1"));
  EXPECT_NE(fanout_key("s3cret"), fanout_key("s3cret2"));
  // Not the key the channel signatures derive from the same secret.
  EXPECT_NE(fanout_key("s3cret"), crypto::hmac_sha256_hex("s3cret", "mediagen realtime channels"));
}

TEST(FanoutSignature, ASignedMessageVerifiesToItself) {
  const FanoutSigner signer(fanout_key("s3cret"));
  const std::string payload = signer.sign(kMessage);
  EXPECT_EQ(payload, crypto::hmac_sha256_hex(fanout_key("s3cret"), kMessage) + " " + kMessage);
  const auto verified = signer.verify(payload);
  ASSERT_TRUE(verified);
  EXPECT_EQ(*verified, kMessage);
}

TEST(FanoutSignature, RefusesUnsignedMessages) {
  const FanoutSigner signer(fanout_key("s3cret"));
  EXPECT_FALSE(signer.verify(kMessage));
  EXPECT_FALSE(signer.verify(""));
  EXPECT_FALSE(signer.verify(std::string(64, 'a')));
  EXPECT_FALSE(signer.verify(std::string(64, 'a') + " "));
}

TEST(FanoutSignature, RefusesAnotherKeysSignature) {
  const FanoutSigner ours(fanout_key("s3cret"));
  const FanoutSigner theirs(fanout_key("other"));
  EXPECT_FALSE(ours.verify(theirs.sign(kMessage)));
  // Signed with the secret itself instead of the derived key.
  EXPECT_FALSE(ours.verify(FanoutSigner("s3cret").sign(kMessage)));
}

TEST(FanoutSignature, RefusesAnyChangeToSignatureOrMessage) {
  const FanoutSigner signer(fanout_key("s3cret"));
  const std::string payload = signer.sign(kMessage);
  for (std::size_t i = 0; i < payload.size(); ++i) {
    if (i == 64) continue;  // the separator: changing it is a refused shape, tested below
    std::string changed = payload;
    changed[i] = changed[i] == '0' ? '1' : '0';
    EXPECT_FALSE(signer.verify(changed)) << i;
  }
  EXPECT_FALSE(signer.verify(payload + " "));
  EXPECT_FALSE(signer.verify(payload.substr(0, payload.size() - 1)));
  EXPECT_FALSE(signer.verify(payload.substr(0, 64) + "\t" + payload.substr(65)));
  EXPECT_FALSE(signer.verify(" " + payload));
}

TEST(FanoutSignature, TakesOnlyTheLowerCaseSpelling) {
  const FanoutSigner signer(fanout_key("s3cret"));
  std::string payload = signer.sign(kMessage);
  for (std::size_t i = 0; i < 64; ++i) payload[i] = static_cast<char>(std::toupper(payload[i]));
  EXPECT_FALSE(signer.verify(payload));
}

TEST(FanoutSignature, RefusesAPayloadOverTheCapUnread) {
  const FanoutSigner signer(fanout_key("s3cret"));
  const std::string fits(kMaxFanoutBytes - 65, 'x');
  EXPECT_TRUE(signer.verify(signer.sign(fits)));
  EXPECT_FALSE(signer.verify(signer.sign(fits + "x")));
}

}  // namespace
}  // namespace mediagen::realtime
