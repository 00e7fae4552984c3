// The policy cooldown's refusal and ladder (spec 8.1 policy_cooldown_active): whole seconds rounded
// up, so a client that waits exactly retry_after (or until retry_at) is let in.
#include "mediagen/orders/limits.hpp"

#include <gtest/gtest.h>

namespace mediagen::orders {
namespace {

using namespace std::chrono_literals;

const TimePoint kNow{std::chrono::sys_days{std::chrono::year{2026} / 1 / 15} + 12h};

std::int64_t retry_after(const ApiError& e) {
  for (const auto& [name, v] : e.extra) {
    if (name == "retry_after") return std::get<std::int64_t>(v);
  }
  return -1;
}

TimePoint retry_at(const ApiError& e) {
  for (const auto& [name, v] : e.extra) {
    if (name == "retry_at") return std::get<TimePoint>(v);
  }
  return {};
}

TEST(PolicyCooldown, NothingWhenNeverBlockedOrWhenThePauseIsOver) {
  EXPECT_FALSE(policy_cooldown_refusal(std::nullopt, kNow));
  EXPECT_FALSE(policy_cooldown_refusal(kNow, kNow));
  EXPECT_FALSE(policy_cooldown_refusal(kNow - 1us, kNow));
}

TEST(PolicyCooldown, A429WithWholeSecondsRoundedUp) {
  const auto e = policy_cooldown_refusal(kNow + 300s, kNow);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->status, 429);
  EXPECT_EQ(e->reason, Reason::policy_cooldown_active);
  EXPECT_EQ(retry_after(*e), 300);
  EXPECT_EQ(retry_at(*e), kNow + 300s);
  EXPECT_EQ(e->headers, (std::vector<std::pair<std::string, std::string>>{{"Retry-After", "300"}}));

  const auto part = policy_cooldown_refusal(kNow + 2500ms, kNow);
  ASSERT_TRUE(part);
  EXPECT_EQ(retry_after(*part), 3);
  EXPECT_EQ(retry_at(*part), kNow + 3s);
  EXPECT_EQ(retry_after(*policy_cooldown_refusal(kNow + 1us, kNow)), 1);
}

TEST(PolicyCooldown, TheLadderStaysOnItsLastRung) {
  const PolicyCooldown c;  // 300, 600, 900
  EXPECT_EQ(c.duration(0), 300s);
  EXPECT_EQ(c.duration(1), 600s);
  EXPECT_EQ(c.duration(2), 900s);
  EXPECT_EQ(c.duration(3), 900s);
  EXPECT_EQ(c.duration(1000), 900s);
}

}  // namespace
}  // namespace mediagen::orders
