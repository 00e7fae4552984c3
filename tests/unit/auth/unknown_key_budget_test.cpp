#include <gtest/gtest.h>

#include "mediagen/auth/unknown_key_budget.hpp"

namespace mediagen::auth {
namespace {

TimePoint at(std::int64_t unix_seconds) { return TimePoint{std::chrono::seconds{unix_seconds}}; }

crypto::Sha256Digest digest(std::string_view key) { return crypto::sha256(key); }

// 1800000000 is the start of a minute (divisible by 60).
constexpr std::int64_t kMinute = 1800000000;

TEST(UnknownKeyBudget, RefusesAnAddressPastItsFailuresUntilTheMinuteEnds) {
  UnknownKeyBudget budget(3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(budget.refusal("198.51.100.1", digest("k" + std::to_string(i)), at(kMinute + 10)), 0) << i;
    budget.not_found("198.51.100.1", at(kMinute + 10));
  }
  EXPECT_EQ(budget.refusal("198.51.100.1", digest("k9"), at(kMinute + 10)), 50);
  EXPECT_EQ(budget.refusal("198.51.100.1", digest("k9"), at(kMinute + 59)), 1);
  EXPECT_EQ(budget.refused(), 2u);
  // Another address is counted apart; the next minute starts afresh.
  EXPECT_EQ(budget.refusal("198.51.100.2", digest("k9"), at(kMinute + 10)), 0);
  EXPECT_EQ(budget.refusal("198.51.100.1", digest("k9"), at(kMinute + 60)), 0);
}

TEST(UnknownKeyBudget, AKeyThatResolvedBeforeIsStillLookedUp) {
  UnknownKeyBudget budget(1);
  budget.found(digest("known"));
  budget.not_found("198.51.100.1", at(kMinute));
  EXPECT_GT(budget.refusal("198.51.100.1", digest("random"), at(kMinute)), 0);
  EXPECT_EQ(budget.refusal("198.51.100.1", digest("known"), at(kMinute)), 0);
}

TEST(UnknownKeyBudget, ZeroMeansNoBudget) {
  UnknownKeyBudget budget(0);
  for (int i = 0; i < 100; ++i) budget.not_found("198.51.100.1", at(kMinute));
  EXPECT_EQ(budget.refusal("198.51.100.1", digest("random"), at(kMinute)), 0);
  EXPECT_EQ(budget.refused(), 0u);
}

}  // namespace
}  // namespace mediagen::auth
