#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <vector>

#include "mediagen/cache/ban_ladder.hpp"
#include "mediagen/cache/redis.hpp"
#include "mediagen/cache/subscriber.hpp"
#include "support.hpp"

namespace mediagen::test {
namespace {

using namespace std::chrono_literals;

class BanLadderTest : public ServicesTest {
 protected:
  void SetUp() override {
    ServicesTest::SetUp();
    if (HasFatalFailure()) return;
    redis.emplace(cache::RedisOptions{.url = redis_url}, &counters);
    ladder.emplace(cache::BanLadderOptions{.ladder_seconds = {10, 20, 30},
                                           .threshold = 3,
                                           .window_seconds = 60,
                                           .step_memory_seconds = 86400,
                                           .prefix = prefix});
  }
  void TearDown() override {
    redis.reset();
    ServicesTest::TearDown();
  }

  // Records misses until one starts a ban; fails when more than the threshold are needed.
  cache::Ban miss_until_banned(const std::string& ip, TimePoint now) {
    for (int i = 1; i <= 3; ++i) {
      auto outcome = ladder->record_miss(*redis, ip, now);
      EXPECT_EQ(outcome.misses, i);
      if (outcome.ban) {
        EXPECT_EQ(i, 3) << "banned before the threshold";
        return *outcome.ban;
      }
    }
    ADD_FAILURE() << "three misses did not start a ban";
    return {};
  }

  std::optional<cache::Redis> redis;
  std::optional<cache::BanLadder> ladder;
  const TimePoint t0 = TimePoint{std::chrono::seconds{1'800'000'000}};
};

TEST_F(BanLadderTest, CountsMissesBelowTheThresholdWithoutABan) {
  auto first = ladder->record_miss(*redis, "198.51.100.1", t0);
  EXPECT_EQ(first.misses, 1);
  EXPECT_FALSE(first.ban.has_value());
  auto second = ladder->record_miss(*redis, "198.51.100.1", t0);
  EXPECT_EQ(second.misses, 2);
  EXPECT_FALSE(second.ban.has_value());
}

TEST_F(BanLadderTest, ReadsTheMissesOfAClientWithoutAddingOne) {
  EXPECT_EQ(ladder->misses(*redis, "198.51.100.9"), 0);
  ladder->record_miss(*redis, "198.51.100.9", t0);
  ladder->record_miss(*redis, "198.51.100.9", t0);
  EXPECT_EQ(ladder->misses(*redis, "198.51.100.9"), 2);
  EXPECT_EQ(ladder->misses(*redis, "198.51.100.9"), 2);
  EXPECT_EQ(ladder->misses(*redis, "198.51.100.10"), 0);
  // Reading never starts a ban: the next miss is the third, which does.
  EXPECT_TRUE(ladder->record_miss(*redis, "198.51.100.9", t0).ban.has_value());
}

TEST_F(BanLadderTest, ClimbsTheWholeLadderAndStaysOnItsLastRung) {
  const std::string ip = "198.51.100.2";
  TimePoint now = t0;
  // ban_step names the rung reached, so it stops at the ladder's length (3 here) as well.
  const std::vector<std::pair<std::int64_t, std::int64_t>> expected{{1, 10}, {2, 20}, {3, 30}, {3, 30}, {3, 30}};
  for (const auto& [step, seconds] : expected) {
    const cache::Ban ban = miss_until_banned(ip, now);
    EXPECT_EQ(ban.step, step);
    EXPECT_EQ(ban.until, now + std::chrono::seconds(seconds)) << "step " << step;
    now = ban.until + 1s;  // the ban ended; the miss count starts from zero again
  }
}

TEST_F(BanLadderTest, StartsCountingAgainAfterABan) {
  const std::string ip = "198.51.100.3";
  miss_until_banned(ip, t0);
  auto after = ladder->record_miss(*redis, ip, t0 + 11s);
  EXPECT_EQ(after.misses, 1);
  EXPECT_FALSE(after.ban.has_value());
}

TEST_F(BanLadderTest, CountsEachIpSeparately) {
  ladder->record_miss(*redis, "198.51.100.4", t0);
  ladder->record_miss(*redis, "198.51.100.4", t0);
  EXPECT_EQ(ladder->record_miss(*redis, "198.51.100.5", t0).misses, 1);
  EXPECT_EQ(ladder->record_miss(*redis, "2001:db8::5", t0).misses, 1);
  EXPECT_TRUE(ladder->record_miss(*redis, "198.51.100.4", t0).ban.has_value());
}

TEST_F(BanLadderTest, KeepsItsKeysUnderThePrefix) {
  miss_until_banned("198.51.100.6", t0);
  auto keys = redis->command({"KEYS", prefix + "*"});
  EXPECT_GE(keys.elements.size(), 2u);
  // The miss counter expires with the window, the step with its memory: nothing lives forever but the ban hash.
  for (const auto& k : keys.elements) {
    const auto ttl = redis->command({"TTL", k.str}).integer;
    if (k.str == prefix + "bans") continue;
    EXPECT_GT(ttl, 0) << k.str;
  }
}

TEST_F(BanLadderTest, LoadsTheActiveBans) {
  const cache::Ban a = miss_until_banned("198.51.100.7", t0);
  const cache::Ban b = miss_until_banned("2001:db8::7", t0 + 5s);
  auto active = ladder->load_active(*redis, t0 + 1s);
  ASSERT_EQ(active.size(), 2u);
  EXPECT_EQ(active.at("198.51.100.7").until, a.until);
  EXPECT_EQ(active.at("198.51.100.7").step, 1);
  EXPECT_EQ(active.at("2001:db8::7").until, b.until);
}

TEST_F(BanLadderTest, PrunesExpiredBansWhileLoading) {
  miss_until_banned("198.51.100.8", t0);         // until t0 + 10
  miss_until_banned("198.51.100.9", t0 + 20s);   // until t0 + 30
  auto active = ladder->load_active(*redis, t0 + 15s);
  ASSERT_EQ(active.size(), 1u);
  EXPECT_TRUE(active.contains("198.51.100.9"));
  EXPECT_EQ(redis->command({"HLEN", prefix + "bans"}).integer, 1) << "the expired ban stayed in Redis";
  EXPECT_TRUE(ladder->load_active(*redis, t0 + 30s).empty());
  EXPECT_EQ(redis->command({"HLEN", prefix + "bans"}).integer, 0);
}

TEST_F(BanLadderTest, SkipsGarbageInTheBanHashWhileLoading) {
  miss_until_banned("198.51.100.10", t0);
  redis->command({"HSET", prefix + "bans", "not an ip", "99999999999 1"});
  redis->command({"HSET", prefix + "bans", "198.51.100.11", "garbage"});
  auto active = ladder->load_active(*redis, t0);
  EXPECT_EQ(active.size(), 1u);
  EXPECT_TRUE(active.contains("198.51.100.10"));
}

TEST_F(BanLadderTest, BelievesOnlyBansSignedUnderTheSharedSecretWhileLoading) {
  miss_until_banned("198.51.100.13", t0);
  const cache::BanLadder forger(cache::BanLadderOptions{.prefix = prefix, .secret = "not the secret"});
  const cache::Ban long_ban{t0 + 3600s, 1};
  // Written straight into the hash by someone with Redis access: unsigned, signed under another
  // secret, and a rightly signed event filed under another address.
  redis->command({"HSET", prefix + "bans", "198.51.100.14", "1800003600 1"});
  redis->command({"HSET", prefix + "bans", "198.51.100.15", forger.signed_event("198.51.100.15", long_ban)});
  redis->command({"HSET", prefix + "bans", "198.51.100.16", ladder->signed_event("198.51.100.17", long_ban)});
  const auto before = ladder->unsigned_events();
  auto active = ladder->load_active(*redis, t0);
  ASSERT_EQ(active.size(), 1u);
  EXPECT_TRUE(active.contains("198.51.100.13"));
  EXPECT_EQ(ladder->unsigned_events() - before, 1u) << "the entry signed under another secret";
}

TEST_F(BanLadderTest, PublishesEachBanToOtherInstances) {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::string> events;
  bool connected = false;
  cache::Subscriber subscriber(
      {.url = redis_url}, {ladder->channel()},
      [&](std::string_view, std::string_view payload) {
        std::lock_guard lock(mutex);
        events.emplace_back(payload);
        cv.notify_all();
      },
      [&] {
        std::lock_guard lock(mutex);
        connected = true;
        cv.notify_all();
      });
  subscriber.start();
  {
    std::unique_lock lock(mutex);
    ASSERT_TRUE(cv.wait_for(lock, 5s, [&] { return connected; })) << "the subscriber did not connect";
  }
  // SUBSCRIBE was sent before on_connected; give Redis a moment to register it.
  std::this_thread::sleep_for(100ms);
  const cache::Ban ban = miss_until_banned("198.51.100.12", t0);
  std::unique_lock lock(mutex);
  ASSERT_TRUE(cv.wait_for(lock, 5s, [&] { return !events.empty(); })) << "no ban event arrived";
  auto parsed = ladder->read_event(events.front());
  ASSERT_TRUE(parsed.has_value()) << events.front();
  EXPECT_EQ(parsed->first, "198.51.100.12");
  EXPECT_EQ(parsed->second.until, ban.until);
  EXPECT_EQ(parsed->second.step, 1);
  lock.unlock();
  subscriber.stop();
}

}  // namespace
}  // namespace mediagen::test
