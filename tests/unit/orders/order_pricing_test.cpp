#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "mediagen/orders/order.hpp"
#include "mediagen/orders/request.hpp"

namespace mediagen::orders {
namespace {

TEST(MoneyForTokens, RoundsUpOncePerAmount) {
  EXPECT_EQ(money_for_tokens(0, 150), 0);
  EXPECT_EQ(money_for_tokens(1, 150), 1);
  EXPECT_EQ(money_for_tokens(1000, 150), 150);
  EXPECT_EQ(money_for_tokens(1001, 150), 151);
  EXPECT_EQ(money_for_tokens(100, 0), 0);
  EXPECT_EQ(money_for_tokens(-5, 150), 0);
  EXPECT_EQ(money_for_tokens(std::int64_t{1} << 40, 1000), std::int64_t{1} << 40) << "no overflow";
}

TEST(PriceOrder, SpendsQuotaFirstInChunkOrder) {
  const std::vector<std::int64_t> tokens{100, 100, 100};
  const auto p = price_order(tokens, 150, 40);
  EXPECT_EQ(p.tokens, 300);
  EXPECT_EQ(p.from_quota, 150);
  EXPECT_EQ(p.from_payg, 150);
  EXPECT_EQ(p.minor, money_for_tokens(150, 40));
  ASSERT_EQ(p.chunks.size(), 3u);
  EXPECT_EQ(p.chunks[0].quota_tokens, 100);
  EXPECT_EQ(p.chunks[1].quota_tokens, 50);
  EXPECT_EQ(p.chunks[2].quota_tokens, 0);
  EXPECT_EQ(p.chunks[0].payg_minor, 0);
}

TEST(PriceOrder, ChunkMoneySumsExactlyToTheOrderPrice) {
  // Awkward rates and sizes: the per-chunk parts must add up to the once-rounded total.
  for (std::int64_t rate : {1, 7, 40, 150, 999, 1001}) {
    for (std::int64_t quota : {0, 3, 777}) {
      const std::vector<std::int64_t> tokens{1, 13, 499, 2000, 7, 1};
      const auto p = price_order(tokens, quota, rate);
      std::int64_t sum = 0;
      for (const auto& c : p.chunks) {
        EXPECT_GE(c.payg_minor, 0);
        EXPECT_LE(c.quota_tokens, c.tokens);
        sum += c.payg_minor;
      }
      EXPECT_EQ(sum, p.minor) << "rate " << rate << " quota " << quota;
      EXPECT_EQ(p.minor, money_for_tokens(p.from_payg, rate));
      EXPECT_EQ(p.from_quota, std::min<std::int64_t>(quota, p.tokens));
    }
  }
}

TEST(PriceOrder, NoChunksCostNothing) {
  const auto p = price_order({}, 100, 40);
  EXPECT_EQ(p.tokens, 0);
  EXPECT_EQ(p.minor, 0);
  EXPECT_TRUE(p.chunks.empty());
}

TEST(IdempotencyKey, AcceptsVisibleAsciiUpTo255) {
  EXPECT_EQ(valid_idempotency_key("order-1"), "order-1");
  EXPECT_TRUE(valid_idempotency_key(std::string(255, 'k')));
  EXPECT_FALSE(valid_idempotency_key(std::string(256, 'k')));
  EXPECT_FALSE(valid_idempotency_key(""));
  EXPECT_FALSE(valid_idempotency_key("with space"));
  EXPECT_FALSE(valid_idempotency_key("tab\there"));
  EXPECT_FALSE(valid_idempotency_key("\xd0\xba"));
}

}  // namespace
}  // namespace mediagen::orders
