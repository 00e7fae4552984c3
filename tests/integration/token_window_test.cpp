#include <gtest/gtest.h>

#include <atomic>
#include <latch>
#include <thread>
#include <vector>

#include "mediagen/cache/redis.hpp"
#include "mediagen/cache/token_window.hpp"
#include "mediagen/core/time_zone.hpp"
#include "support.hpp"

namespace mediagen::test {
namespace {

using namespace std::chrono_literals;
using cache::TokenWindow;
using cache::TokenWindows;

class TokenWindowTest : public ServicesTest {
 protected:
  void SetUp() override {
    ServicesTest::SetUp();
    if (HasFatalFailure()) {
      return;
    }
    redis.emplace(cache::RedisOptions{.url = redis_url}, &counters);
  }
  void TearDown() override {
    redis.reset();
    ServicesTest::TearDown();
  }

  cache::TokenDecision add(ApiKeyId key, const TokenWindows& windows, std::int64_t tokens, TimePoint now) {
    return cache::check_and_add_tokens(*redis, prefix, key, windows, tokens, now);
  }

  std::vector<std::string> counters_of(ApiKeyId key) {
    const auto reply = redis->command({"KEYS", prefix + "tok:" + std::to_string(key.value) + ":*"});
    std::vector<std::string> out;
    for (const auto& k : reply.elements) {
      out.push_back(k.str);
    }
    return out;
  }

  std::optional<cache::Redis> redis;
  // The start of a UTC day in mid-month: every window is fresh at t0.
  const TimePoint t0 = *parse_iso8601("2026-05-14T00:00:00Z");
};

TEST_F(TokenWindowTest, LetsExactlyTheLimitPassThenRefusesNamingTheWindow) {
  const TokenWindows windows{.per_minute = 100};
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(add(ApiKeyId{1}, windows, 25, t0 + 5s).allowed()) << "request " << i;
  }
  const auto refused = add(ApiKeyId{1}, windows, 1, t0 + 5s);
  ASSERT_FALSE(refused.allowed());
  EXPECT_EQ(refused.refusal->window, TokenWindow::per_minute);
  EXPECT_EQ(refused.refusal->limit, 100);
  EXPECT_EQ(refused.refusal->used, 100);
  EXPECT_EQ(refused.refusal->requested, 1);
  EXPECT_EQ(refused.refusal->reset_at, t0 + 60s) << "the window ends at the next whole minute";
  EXPECT_EQ(refused.refusal->retry_after, 55);
}

TEST_F(TokenWindowTest, RefusesARequestLargerThanTheWholeWindow) {
  const auto refused = add(ApiKeyId{2}, TokenWindows{.per_day = 50}, 51, t0);
  ASSERT_FALSE(refused.allowed());
  EXPECT_EQ(refused.refusal->window, TokenWindow::per_day);
  EXPECT_EQ(refused.refusal->used, 0);
  EXPECT_EQ(refused.refusal->requested, 51);
  EXPECT_TRUE(add(ApiKeyId{2}, TokenWindows{.per_day = 50}, 50, t0).allowed());
}

TEST_F(TokenWindowTest, ARefusedRequestAddsNothing) {
  const TokenWindows windows{.per_minute = 100, .per_hour = 1000};
  ASSERT_TRUE(add(ApiKeyId{3}, windows, 90, t0).allowed());
  for (int i = 0; i < 5; ++i) {
    const auto refused = add(ApiKeyId{3}, windows, 20, t0 + 1s);
    ASSERT_FALSE(refused.allowed());
    EXPECT_EQ(refused.refusal->used, 90) << "an earlier refusal was counted";
  }
  EXPECT_TRUE(add(ApiKeyId{3}, windows, 10, t0 + 2s).allowed()) << "the last 10 tokens of the minute must fit";
  EXPECT_FALSE(add(ApiKeyId{3}, windows, 1, t0 + 3s).allowed());
  // The hour window saw only what passed, so the next minute still has all of its room.
  EXPECT_TRUE(add(ApiKeyId{3}, windows, 100, t0 + 60s).allowed());
}

TEST_F(TokenWindowTest, TheTighterOfSeveralWindowsRefusesAndIsNamed) {
  const TokenWindows windows{.per_minute = 1000, .per_hour = 100, .per_day = 10000, .per_month = 100000};
  ASSERT_TRUE(add(ApiKeyId{4}, windows, 60, t0).allowed());
  const auto refused = add(ApiKeyId{4}, windows, 50, t0 + 120s);
  ASSERT_FALSE(refused.allowed()) << "the hour window is short of room though a new minute began";
  EXPECT_EQ(refused.refusal->window, TokenWindow::per_hour);
  EXPECT_EQ(refused.refusal->limit, 100);
  EXPECT_EQ(refused.refusal->used, 60);
  EXPECT_EQ(refused.refusal->reset_at, t0 + 3600s);
  EXPECT_EQ(refused.refusal->retry_after, 3600 - 120);
  EXPECT_TRUE(add(ApiKeyId{4}, windows, 40, t0 + 120s).allowed());
}

TEST_F(TokenWindowTest, NamesTheShortestWindowWhenSeveralAreFull) {
  const TokenWindows windows{.per_minute = 10, .per_hour = 10, .per_day = 10, .per_month = 10};
  ASSERT_TRUE(add(ApiKeyId{5}, windows, 10, t0).allowed());
  const auto refused = add(ApiKeyId{5}, windows, 1, t0);
  ASSERT_FALSE(refused.allowed());
  EXPECT_EQ(refused.refusal->window, TokenWindow::per_minute);
  const auto later = add(ApiKeyId{5}, windows, 1, t0 + 90s);
  ASSERT_FALSE(later.allowed());
  EXPECT_EQ(later.refusal->window, TokenWindow::per_hour) << "the minute window has reset, the hour has not";
}

TEST_F(TokenWindowTest, AMonthWindowResetsOnTheFirstOfTheNextMonthAtMidnightUtc) {
  const TokenWindows windows{.per_month = 10};
  const TimePoint mid_may = *parse_iso8601("2026-05-17T10:20:30Z");
  ASSERT_TRUE(add(ApiKeyId{6}, windows, 10, mid_may).allowed());
  const auto refused = add(ApiKeyId{6}, windows, 1, mid_may);
  ASSERT_FALSE(refused.allowed());
  EXPECT_EQ(refused.refusal->window, TokenWindow::per_month);
  const TimePoint june = *parse_iso8601("2026-06-01T00:00:00Z");
  EXPECT_EQ(refused.refusal->reset_at, june);
  EXPECT_EQ(refused.refusal->retry_after, std::chrono::duration_cast<std::chrono::seconds>(june - mid_may).count());
  EXPECT_FALSE(add(ApiKeyId{6}, windows, 1, june - 1s).allowed()) << "the last second of May is still May";
  EXPECT_TRUE(add(ApiKeyId{6}, windows, 10, june).allowed());
}

TEST_F(TokenWindowTest, WindowsThatEndTogetherStillCountOnTheirOwn) {
  // The last second of May ends the minute, the hour, the day and the month at once.
  const TimePoint last_second = *parse_iso8601("2026-05-31T23:59:59Z");
  const TokenWindows windows{.per_minute = 100, .per_hour = 100, .per_day = 100, .per_month = 100};
  ASSERT_TRUE(add(ApiKeyId{17}, windows, 60, last_second).allowed());
  const auto refused = add(ApiKeyId{17}, windows, 60, last_second);
  ASSERT_FALSE(refused.allowed());
  EXPECT_EQ(refused.refusal->window, TokenWindow::per_minute);
  EXPECT_EQ(refused.refusal->used, 60) << "the tokens were counted more than once in one window";
  EXPECT_TRUE(add(ApiKeyId{17}, windows, 40, last_second).allowed());
}

TEST_F(TokenWindowTest, RetryAfterIsAtLeastOneSecondAtTheEndOfAWindow) {
  const TokenWindows windows{.per_minute = 1};
  ASSERT_TRUE(add(ApiKeyId{7}, windows, 1, t0 + 59s).allowed());
  const auto refused = add(ApiKeyId{7}, windows, 1, t0 + 59s + 999ms);
  ASSERT_FALSE(refused.allowed());
  EXPECT_EQ(refused.refusal->retry_after, 1);
}

TEST_F(TokenWindowTest, ZeroTokensAlwaysPassAndAddNothing) {
  const TokenWindows windows{.per_minute = 5};
  EXPECT_TRUE(add(ApiKeyId{8}, windows, 0, t0).allowed());
  EXPECT_TRUE(counters_of(ApiKeyId{8}).empty());
  ASSERT_TRUE(add(ApiKeyId{8}, windows, 5, t0).allowed());
  EXPECT_TRUE(add(ApiKeyId{8}, windows, 0, t0).allowed()) << "a full window still lets zero tokens through";
  EXPECT_FALSE(add(ApiKeyId{8}, windows, 1, t0).allowed());
}

TEST_F(TokenWindowTest, AKeyWithoutWindowsIsNotLimited) {
  EXPECT_TRUE(add(ApiKeyId{9}, TokenWindows{}, 1'000'000'000, t0).allowed());
  EXPECT_TRUE(counters_of(ApiKeyId{9}).empty());
}

TEST_F(TokenWindowTest, KeysCountSeparately) {
  const TokenWindows windows{.per_minute = 10};
  ASSERT_TRUE(add(ApiKeyId{10}, windows, 10, t0).allowed());
  EXPECT_FALSE(add(ApiKeyId{10}, windows, 1, t0).allowed());
  EXPECT_TRUE(add(ApiKeyId{11}, windows, 10, t0).allowed());
}

TEST_F(TokenWindowTest, ARefundGivesTheTokensBackInEveryWindow) {
  const TokenWindows windows{.per_minute = 100, .per_day = 150};
  ASSERT_TRUE(add(ApiKeyId{12}, windows, 100, t0).allowed());
  ASSERT_FALSE(add(ApiKeyId{12}, windows, 1, t0).allowed());
  cache::refund_tokens(*redis, prefix, ApiKeyId{12}, windows, 40, t0);
  EXPECT_TRUE(add(ApiKeyId{12}, windows, 40, t0 + 1s).allowed());
  EXPECT_FALSE(add(ApiKeyId{12}, windows, 1, t0 + 1s).allowed());
  // The day window got the 40 back too: 100 counted there now, so 50 more fit after the minute.
  EXPECT_TRUE(add(ApiKeyId{12}, windows, 50, t0 + 60s).allowed());
  const auto refused = add(ApiKeyId{12}, windows, 1, t0 + 60s);
  ASSERT_FALSE(refused.allowed());
  EXPECT_EQ(refused.refusal->window, TokenWindow::per_day);
  EXPECT_EQ(refused.refusal->used, 150);
}

TEST_F(TokenWindowTest, ARefundNeverGoesBelowZero) {
  const TokenWindows windows{.per_minute = 100};
  ASSERT_TRUE(add(ApiKeyId{13}, windows, 30, t0).allowed());
  cache::refund_tokens(*redis, prefix, ApiKeyId{13}, windows, 500, t0);
  EXPECT_TRUE(add(ApiKeyId{13}, windows, 100, t0).allowed());
  EXPECT_FALSE(add(ApiKeyId{13}, windows, 1, t0).allowed()) << "an over-refund must not raise the limit";
}

TEST_F(TokenWindowTest, ARefundForAnEndedWindowLeavesTheCurrentOneAlone) {
  const TokenWindows windows{.per_minute = 100};
  ASSERT_TRUE(add(ApiKeyId{14}, windows, 100, t0).allowed());
  ASSERT_TRUE(add(ApiKeyId{14}, windows, 100, t0 + 60s).allowed());
  cache::refund_tokens(*redis, prefix, ApiKeyId{14}, windows, 100, t0);
  EXPECT_FALSE(add(ApiKeyId{14}, windows, 1, t0 + 61s).allowed());
}

TEST_F(TokenWindowTest, CountersExpireSoonAfterTheirWindowEnds) {
  ASSERT_TRUE(add(ApiKeyId{15}, TokenWindows{.per_minute = 100, .per_day = 1000}, 1, t0 + 10s).allowed());
  const auto keys = counters_of(ApiKeyId{15});
  ASSERT_EQ(keys.size(), 2u);
  for (const auto& key : keys) {
    const std::int64_t ttl = redis->command({"TTL", key}).integer;
    EXPECT_GT(ttl, 0) << key << " never expires";
    EXPECT_LE(ttl, 86400 - 10 + 300) << key << " outlives its window by far";
  }
}

TEST_F(TokenWindowTest, ConcurrentCallersNeverOvershootTheLimit) {
  constexpr int kCallers = 50;
  const TokenWindows windows{.per_minute = 1000};
  std::atomic<int> passed{0};
  std::atomic<int> failed_calls{0};
  std::latch start(kCallers);
  std::vector<std::thread> callers;
  for (int i = 0; i < kCallers; ++i) {
    callers.emplace_back([&] {
      cache::Redis own(cache::RedisOptions{.url = redis_url});
      bool connected = true;
      try {
        own.command({"PING"});  // connect before the start, so the calls really overlap
      } catch (const std::exception&) {
        connected = false;
      }
      start.arrive_and_wait();
      try {
        if (connected && cache::check_and_add_tokens(own, prefix, ApiKeyId{16}, windows, 30, t0 + 1s).allowed()) {
          passed.fetch_add(1);
        }
      } catch (const std::exception&) {
        connected = false;
      }
      if (!connected) {
        failed_calls.fetch_add(1);
      }
    });
  }
  for (auto& t : callers) {
    t.join();
  }
  ASSERT_EQ(failed_calls.load(), 0);
  EXPECT_EQ(passed.load(), 33);
  const auto keys = counters_of(ApiKeyId{16});
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(redis->command({"GET", keys[0]}).str, "990");
}

}  // namespace
}  // namespace mediagen::test
