#include <gtest/gtest.h>

#include "mediagen/cache/rate_window.hpp"
#include "mediagen/cache/redis.hpp"
#include "mediagen/db/connection.hpp"
#include "mediagen/db/transact.hpp"
#include "support.hpp"

namespace mediagen::test {
namespace {

using namespace std::chrono_literals;

class RedisTest : public ServicesTest {
 protected:
  void SetUp() override {
    ServicesTest::SetUp();
    if (HasFatalFailure()) return;
    redis.emplace(cache::RedisOptions{.url = redis_url}, &counters);
  }
  void TearDown() override {
    redis.reset();
    ServicesTest::TearDown();
  }

  std::optional<cache::Redis> redis;
  // The start of a minute, an hour and a day: every window is fresh at t0.
  const TimePoint t0 = TimePoint{std::chrono::seconds{1'800'000'000 - 1'800'000'000 % 86400}};
};

// ---- rate windows ----

TEST_F(RedisTest, LetsExactlyTheLimitPassInAWindow) {
  const cache::RateWindows windows{.per_minute = 5};
  int passed = 0;
  for (int i = 0; i < 10; ++i) {
    const auto d = cache::check_rate(*redis, prefix, 7, windows, t0 + std::chrono::seconds(i));
    if (d.allowed) {
      ++passed;
      EXPECT_EQ(d.limit, 5);
      EXPECT_EQ(d.remaining, 5 - passed);
    } else {
      EXPECT_EQ(d.limit, 5);
      EXPECT_EQ(d.remaining, 0);
      EXPECT_EQ(d.retry_after, 60 - i) << "retry_after must point at the next minute";
      EXPECT_GE(d.retry_after, 1);
    }
  }
  EXPECT_EQ(passed, 5);
}

TEST_F(RedisTest, DoesNotCountRefusedRequests) {
  const cache::RateWindows windows{.per_minute = 3};
  for (int i = 0; i < 8; ++i) cache::check_rate(*redis, prefix, 8, windows, t0);
  auto keys = redis->command({"KEYS", prefix + "rl:8:m:*"});
  ASSERT_EQ(keys.elements.size(), 1u);
  EXPECT_EQ(redis->command({"GET", keys.elements[0].str}).str, "3");
}

TEST_F(RedisTest, OpensANewWindowEachMinute) {
  const cache::RateWindows windows{.per_minute = 2};
  EXPECT_TRUE(cache::check_rate(*redis, prefix, 9, windows, t0).allowed);
  EXPECT_TRUE(cache::check_rate(*redis, prefix, 9, windows, t0 + 1s).allowed);
  EXPECT_FALSE(cache::check_rate(*redis, prefix, 9, windows, t0 + 59s).allowed);
  EXPECT_TRUE(cache::check_rate(*redis, prefix, 9, windows, t0 + 60s).allowed);
}

TEST_F(RedisTest, AppliesTheTightestOfSeveralWindows) {
  const cache::RateWindows windows{.per_minute = 10, .per_hour = 3, .per_day = 100};
  int passed = 0;
  for (int i = 0; i < 8; ++i) passed += cache::check_rate(*redis, prefix, 10, windows, t0).allowed ? 1 : 0;
  EXPECT_EQ(passed, 3);
  const auto refused = cache::check_rate(*redis, prefix, 10, windows, t0 + 120s);
  EXPECT_FALSE(refused.allowed) << "the hour window is spent even though a new minute began";
  EXPECT_EQ(refused.limit, 3);
  EXPECT_EQ(refused.retry_after, 3600 - 120);
}

TEST_F(RedisTest, ReportsTheTightestWindowOnSuccess) {
  const cache::RateWindows windows{.per_minute = 10, .per_hour = 3};
  const auto d = cache::check_rate(*redis, prefix, 11, windows, t0 + 30s);
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.limit, 3);
  EXPECT_EQ(d.remaining, 2);
  EXPECT_EQ(d.reset_after, 3600 - 30);
}

TEST_F(RedisTest, KeepsKeysOfDifferentApiKeysApart) {
  const cache::RateWindows windows{.per_minute = 1};
  EXPECT_TRUE(cache::check_rate(*redis, prefix, 12, windows, t0).allowed);
  EXPECT_TRUE(cache::check_rate(*redis, prefix, 13, windows, t0).allowed);
  EXPECT_FALSE(cache::check_rate(*redis, prefix, 12, windows, t0).allowed);
}

TEST_F(RedisTest, NeedsNoRoundTripWithoutWindows) {
  const auto before = counters.redis_commands.load();
  const auto d = cache::check_rate(*redis, prefix, 14, cache::RateWindows{}, t0);
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(counters.redis_commands.load(), before);
}

TEST_F(RedisTest, LetsTheWindowKeysExpire) {
  cache::check_rate(*redis, prefix, 15, cache::RateWindows{.per_minute = 5, .per_day = 50}, t0);
  auto keys = redis->command({"KEYS", prefix + "rl:15:*"});
  ASSERT_EQ(keys.elements.size(), 2u);
  for (const auto& k : keys.elements) {
    const auto ttl = redis->command({"TTL", k.str}).integer;
    EXPECT_GT(ttl, 0) << k.str;
    EXPECT_LE(ttl, 86401) << k.str;
  }
}

// ---- the connection ----

TEST_F(RedisTest, RunsCommandsAndScripts) {
  EXPECT_EQ(redis->command({"SET", prefix + "k", "v"}).str, "OK");
  EXPECT_EQ(redis->command({"GET", prefix + "k"}).str, "v");
  EXPECT_TRUE(redis->command({"GET", prefix + "missing"}).is_nil());
  const std::string value("a\0b\r\nc", 6);
  redis->command({"SET", prefix + "bin", value});
  EXPECT_EQ(redis->command({"GET", prefix + "bin"}).str, value);
  auto r = redis->eval("return {1, ARGV[1], KEYS[1]}", {prefix + "x"}, {"arg"});
  ASSERT_EQ(r.elements.size(), 3u);
  EXPECT_EQ(r.elements[0].integer, 1);
  EXPECT_EQ(r.elements[1].str, "arg");
  EXPECT_EQ(r.elements[2].str, prefix + "x");
}

TEST_F(RedisTest, LoadsAScriptAgainAfterAScriptFlush) {
  EXPECT_EQ(redis->eval("return 41 + 1", {}, {}).integer, 42);
  redis->command({"SCRIPT", "FLUSH"});
  EXPECT_EQ(redis->eval("return 41 + 1", {}, {}).integer, 42);
}

TEST_F(RedisTest, ThrowsAnErrorReplyAsRedisError) {
  EXPECT_THROW(redis->command({"NOT_A_COMMAND"}), cache::RedisError);
  EXPECT_EQ(redis->command({"PING"}).str, "PONG") << "an error reply must not break the connection";
  redis->command({"SET", prefix + "text", "not a number"});
  EXPECT_THROW(redis->eval("return redis.call('INCR', KEYS[1])", {prefix + "text"}, {}), cache::RedisError);
  EXPECT_EQ(redis->command({"PING"}).str, "PONG");
}

TEST_F(RedisTest, SurvivesTheServerClosingItsConnection) {
  ASSERT_EQ(redis->command({"PING"}).str, "PONG");
  const std::int64_t id = redis->command({"CLIENT", "ID"}).integer;
  // From another connection: CLIENT KILL TYPE normal, narrowed by ID to this one connection, so
  // that servers of other suites running alongside (ctest -j) keep theirs.
  cache::Redis killer({.url = redis_url});
  const auto killed = killer.command({"CLIENT", "KILL", "TYPE", "normal", "ID", std::to_string(id)});
  ASSERT_EQ(killed.integer, 1);

  // The first command may fail (the client learns of the close only then); the next one must work.
  int failures = 0;
  bool ok = false;
  for (int attempt = 0; attempt < 2 && !ok; ++attempt) {
    try {
      ok = redis->command({"PING"}).str == "PONG";
    } catch (const cache::RedisError&) {
      ++failures;
    }
  }
  EXPECT_TRUE(ok) << "the command after a failure did not reconnect";
  EXPECT_LE(failures, 1);
  EXPECT_NE(redis->command({"CLIENT", "ID"}).integer, id) << "expected a new connection";
  EXPECT_EQ(redis->eval("return 7", {}, {}).integer, 7);
}

TEST_F(RedisTest, FailsFastWhenNothingListens) {
  cache::Redis nowhere({.url = "redis://127.0.0.1:1/0", .connect_timeout = 200ms, .command_timeout = 200ms});
  const auto started = std::chrono::steady_clock::now();
  EXPECT_THROW(nowhere.command({"PING"}), cache::RedisError);
  EXPECT_THROW(nowhere.command({"PING"}), cache::RedisError);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2s);
}

TEST_F(RedisTest, SelectsTheDatabaseOfTheUrl) {
  const auto a = cache::RedisAddress::parse(redis_url);
  cache::Redis other({.url = "redis://" + a.host + ":" + std::to_string(a.port) + "/" + std::to_string(a.db == 5 ? 6 : 5)});
  other.command({"SET", prefix + "db", "other"});
  EXPECT_TRUE(redis->command({"GET", prefix + "db"}).is_nil());
  other.command({"DEL", prefix + "db"});
}

}  // namespace
}  // namespace mediagen::test

namespace mediagen::test {
namespace {

// No Redis call while a transaction may hold a money lock: one made inside db::transact is
// refused like an unreachable Redis and counted; the same call outside runs.
TEST_F(RedisTest, RefusesACommandInsideADatabaseTransaction) {
  db::Db db(db_url, &counters);
  bool refused = false;
  db::transact(db, [&](db::Tx&) {
    try {
      redis->command({"SET", prefix + "inside", "v"});
    } catch (const cache::RedisError&) {
      refused = true;
    }
  });
  EXPECT_TRUE(refused);
  EXPECT_EQ(counters.redis_in_transaction.load(), 1u);
  EXPECT_THROW(db::transact(db, [&](db::Tx&) { redis->eval("return 1", {}, {}); }), cache::RedisError);
  EXPECT_EQ(counters.redis_in_transaction.load(), 2u);
  EXPECT_TRUE(redis->command({"GET", prefix + "inside"}).is_nil()) << "the refused SET must not have run";
  db::read(db, [&](db::Tx&) { EXPECT_EQ(redis->command({"PING"}).str, "PONG"); });
  EXPECT_EQ(counters.redis_in_transaction.load(), 2u);
}

}  // namespace
}  // namespace mediagen::test
