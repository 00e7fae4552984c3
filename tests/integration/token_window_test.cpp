// Token windows counted in PostgreSQL, each call in a transaction of its own that commits when
// the tokens were taken and rolls back when refused, as the order operations do.
#include <gtest/gtest.h>

#include <atomic>
#include <latch>
#include <optional>
#include <thread>
#include <vector>

#include "mediagen/core/time_zone.hpp"
#include "mediagen/db/pg.hpp"
#include "mediagen/orders/limits.hpp"
#include "support.hpp"

namespace mediagen::test {
namespace {

using namespace std::chrono_literals;
using orders::TokenWindow;
using orders::TokenWindows;

struct Decision {
  std::optional<orders::TokenRefusal> refusal;
  bool allowed() const { return !refusal; }
};

class TokenWindowTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) {
      return;
    }
    db.emplace(db_url, &counters);
  }
  void TearDown() override {
    db.reset();
    MigratedTest::TearDown();
  }

  static Decision add_on(db::Db& on, ApiKeyId key, const TokenWindows& windows, std::int64_t tokens, TimePoint now) {
    Decision d;
    db::run_transaction(on, [&](db::Tx& tx) {
      d.refusal = orders::take_window_tokens(on, tx, key, windows, tokens, now);
      return d.allowed();
    });
    return d;
  }

  Decision add(ApiKeyId key, const TokenWindows& windows, std::int64_t tokens, TimePoint now) {
    return add_on(*db, key, windows, tokens, now);
  }

  // The rows of a key's windows.
  std::int64_t rows_of(ApiKeyId key) {
    return db::read(*db, [&](db::Tx& tx) {
      return db->exec_raw(tx, "SELECT count(*) FROM api_key_token_windows WHERE key_id = " + std::to_string(key.value))[0][0]
          .as<std::int64_t>();
    });
  }

  std::optional<db::Db> db;
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
  EXPECT_EQ(rows_of(ApiKeyId{8}), 0) << "zero tokens must not touch the table";
  ASSERT_TRUE(add(ApiKeyId{8}, windows, 5, t0).allowed());
  EXPECT_TRUE(add(ApiKeyId{8}, windows, 0, t0).allowed()) << "a full window still lets zero tokens through";
  EXPECT_FALSE(add(ApiKeyId{8}, windows, 1, t0).allowed());
}

TEST_F(TokenWindowTest, AKeyWithoutWindowsIsNotLimited) {
  EXPECT_TRUE(add(ApiKeyId{9}, TokenWindows{}, 1'000'000'000, t0).allowed());
  EXPECT_EQ(rows_of(ApiKeyId{9}), 0);
}

TEST_F(TokenWindowTest, KeysCountSeparately) {
  const TokenWindows windows{.per_minute = 10};
  ASSERT_TRUE(add(ApiKeyId{10}, windows, 10, t0).allowed());
  EXPECT_FALSE(add(ApiKeyId{10}, windows, 1, t0).allowed());
  EXPECT_TRUE(add(ApiKeyId{11}, windows, 10, t0).allowed());
}

TEST_F(TokenWindowTest, AnEndedWindowStartsAgainFromZero) {
  const TokenWindows windows{.per_minute = 100};
  ASSERT_TRUE(add(ApiKeyId{18}, windows, 100, t0).allowed());
  ASSERT_FALSE(add(ApiKeyId{18}, windows, 1, t0 + 59s).allowed());
  ASSERT_TRUE(add(ApiKeyId{18}, windows, 100, t0 + 60s).allowed()) << "the next minute holds none of the last one";
  const auto refused = add(ApiKeyId{18}, windows, 1, t0 + 61s);
  ASSERT_FALSE(refused.allowed());
  EXPECT_EQ(refused.refusal->used, 100);
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
      db::Db own(db_url, nullptr);
      bool connected = true;
      try {
        own.ping();  // connect before the start, so the calls really overlap
      } catch (const std::exception&) {
        connected = false;
      }
      start.arrive_and_wait();
      try {
        if (connected && add_on(own, ApiKeyId{16}, windows, 30, t0 + 1s).allowed()) {
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
  const auto used = db::read(*db, [&](db::Tx& tx) {
    return db->exec_raw(tx, "SELECT used FROM api_key_token_windows WHERE key_id = 16")[0][0].as<std::int64_t>();
  });
  EXPECT_EQ(used, 990);
}

}  // namespace
}  // namespace mediagen::test
