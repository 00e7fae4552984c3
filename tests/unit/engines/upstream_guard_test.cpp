// The per-upstream cap and circuit breaker (src/engines/upstream/upstream_guard.hpp), on a test clock.
#include <gtest/gtest.h>

#include "engines/upstream/upstream_guard.hpp"
#include "engines/upstream/upstream_http.hpp"

namespace mediagen::engines::upstream_detail {
namespace {

using namespace std::chrono_literals;

struct TestClock {
  Guard::Clock::time_point now{};
};

TEST(UpstreamGuard, OpensAfterFailuresInARowAndAProbeClosesIt) {
  TestClock clock;
  Guard g(4, 2, 30s, [&] { return clock.now; }, 10ms);
  ASSERT_EQ(g.enter(), Admission::admitted);
  g.finish(true);
  ASSERT_EQ(g.enter(), Admission::admitted);
  g.finish(false);  // a success in between: the count starts again
  ASSERT_EQ(g.enter(), Admission::admitted);
  g.finish(true);
  ASSERT_EQ(g.enter(), Admission::admitted);
  g.finish(true);
  EXPECT_TRUE(g.open());
  EXPECT_EQ(g.enter(), Admission::circuit_open);
  clock.now += 31s;
  ASSERT_EQ(g.enter(), Admission::admitted);      // the probe
  EXPECT_EQ(g.enter(), Admission::circuit_open);  // one at a time
  g.finish(false);
  EXPECT_FALSE(g.open());
  EXPECT_EQ(g.enter(), Admission::admitted);
  g.finish(false);
}

TEST(UpstreamGuard, AFailedProbeOpensItAgain) {
  TestClock clock;
  Guard g(1, 1, 10s, [&] { return clock.now; }, 10ms);
  ASSERT_EQ(g.enter(), Admission::admitted);
  g.finish(true);
  clock.now += 11s;
  ASSERT_EQ(g.enter(), Admission::admitted);
  g.finish(true);
  EXPECT_EQ(g.enter(), Admission::circuit_open);
}

TEST(UpstreamGuard, TheCapRefusesWhenNoSlotFreesInTime) {
  TestClock clock;
  Guard g(1, 5, 10s, [&] { return clock.now; }, 10ms);
  ASSERT_EQ(g.enter(), Admission::admitted);
  EXPECT_EQ(g.enter(), Admission::busy);
  g.finish(false);
  EXPECT_EQ(g.enter(), Admission::admitted);
  g.finish(false);
}

TEST(UpstreamHttp, RetryAfterInSecondsOnly) {
  EXPECT_EQ(parse_retry_after(" 7\r\n"), 7);
  EXPECT_EQ(parse_retry_after("0"), 0);
  EXPECT_FALSE(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"));
  EXPECT_FALSE(parse_retry_after(""));
}

}  // namespace
}  // namespace mediagen::engines::upstream_detail
