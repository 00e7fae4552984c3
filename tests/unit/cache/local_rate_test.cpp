#include "mediagen/cache/local_rate.hpp"

#include <gtest/gtest.h>

#include "mediagen/core/time_zone.hpp"

namespace mediagen::cache {
namespace {

using namespace std::chrono_literals;

const TimePoint t0 = *parse_iso8601("2026-05-14T10:00:00Z");

TEST(LocalRateWindows, AdmitsThisInstancesShareOfTheLimit) {
  LocalRateWindows local(3);
  const RateWindows windows{.per_minute = 10};
  int admitted = 0;
  for (int i = 0; i < 10; ++i) admitted += local.check(1, windows, t0 + 1s).allowed;
  EXPECT_EQ(admitted, 3) << "10 / 3 instances, rounded down so the cluster stays within the limit";
}

TEST(LocalRateWindows, AdmitsOneWhenTheShareRoundsToZero) {
  LocalRateWindows local(4);
  const RateWindows windows{.per_hour = 2};
  EXPECT_TRUE(local.check(1, windows, t0).allowed);
  EXPECT_FALSE(local.check(1, windows, t0).allowed);
}

TEST(LocalRateWindows, ARefusalIsNotCountedAndNamesTheReset) {
  LocalRateWindows local(1);
  const RateWindows windows{.per_minute = 2, .per_hour = 3};
  ASSERT_TRUE(local.check(7, windows, t0 + 10s).allowed);
  ASSERT_TRUE(local.check(7, windows, t0 + 11s).allowed);
  const RateDecision refused = local.check(7, windows, t0 + 12s);
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.limit, 2);
  EXPECT_EQ(refused.retry_after, 48);
  // The next minute: the hour saw 2 (the refusal did not count), so 1 more fits.
  EXPECT_TRUE(local.check(7, windows, t0 + 60s).allowed);
  const RateDecision hour = local.check(7, windows, t0 + 61s);
  EXPECT_FALSE(hour.allowed);
  EXPECT_EQ(hour.limit, 3);
}

TEST(LocalRateWindows, KeysCountSeparatelyAndReportTheTightestWindow) {
  LocalRateWindows local(1);
  const RateWindows windows{.per_minute = 5, .per_day = 100};
  const RateDecision first = local.check(1, windows, t0);
  EXPECT_TRUE(first.allowed);
  EXPECT_EQ(first.limit, 5);
  EXPECT_EQ(first.remaining, 4);
  EXPECT_EQ(first.reset_after, 60);
  EXPECT_EQ(local.check(2, windows, t0).remaining, 4);
}

TEST(LocalRateWindows, RestsRedisForAWhileAfterAFailure) {
  LocalRateWindows local(1, 2s);
  EXPECT_FALSE(local.redis_resting(t0));
  local.redis_failed(t0);
  EXPECT_TRUE(local.redis_resting(t0 + 1999ms));
  EXPECT_FALSE(local.redis_resting(t0 + 2s));
}

}  // namespace
}  // namespace mediagen::cache
