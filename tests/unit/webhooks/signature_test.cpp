#include <gtest/gtest.h>

#include "mediagen/webhooks/webhooks.hpp"

namespace mediagen::webhooks {
namespace {

// The example of the Standard Webhooks specification, as its reference library signs it.
TEST(WebhookSignature, MatchesTheSpecificationsExample) {
  EXPECT_EQ(sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330,
                 R"({"test": 2432232314})"),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
}

TEST(WebhookSignature, SecretsAreWhsecAndAtLeast24RandomBytes) {
  const std::string a = new_secret(), b = new_secret();
  EXPECT_NE(a, b);
  EXPECT_EQ(a.rfind("whsec_", 0), 0u);
  const auto key = secret_key(a);
  ASSERT_TRUE(key);
  EXPECT_GE(key->size(), 24u);
  EXPECT_FALSE(secret_key("not-a-secret"));
  EXPECT_FALSE(secret_key("whsec_"));
  EXPECT_FALSE(secret_key("whsec_***"));
}

TEST(WebhookSignature, TheBodyCarriesTypeTimestampAndDataAsGiven) {
  const TimePoint at{std::chrono::seconds(1614265330)};
  EXPECT_EQ(message_body("order.updated", at, R"({"order_id":"x","seq":3})"),
            R"({"type":"order.updated","timestamp":"2021-02-25T15:02:10+00:00","data":{"order_id":"x","seq":3}})");
}

}  // namespace
}  // namespace mediagen::webhooks
