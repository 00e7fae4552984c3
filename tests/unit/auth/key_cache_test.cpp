#include "mediagen/auth/key_cache.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace mediagen::auth {
namespace {

using namespace std::chrono_literals;

// A clock the test moves by hand.
class FakeClock final : public Clock {
 public:
  TimePoint now() const override { return now_; }
  void advance(std::chrono::seconds by) { now_ += by; }

 private:
  TimePoint now_ = TimePoint{std::chrono::seconds{1'800'000'000}};
};

std::shared_ptr<const Principal> principal_for(const std::string& key, std::int64_t key_id, std::int64_t user_id) {
  auto p = std::make_shared<Principal>();
  p->key_id = ApiKeyId{key_id};
  p->user_id = UserId{user_id};
  p->key_hash = crypto::sha256(key);
  return p;
}

class KeyCacheTest : public ::testing::Test {
 protected:
  FakeClock clock;
  KeyCache cache{3600s, clock};
  const crypto::Sha256Digest a = crypto::sha256("mg_a");
  const crypto::Sha256Digest b = crypto::sha256("mg_b");
};

TEST_F(KeyCacheTest, ReturnsACachedPrincipal) {
  auto p = principal_for("mg_a", 1, 10);
  cache.put(a, p);
  auto found = cache.find(a);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->get(), p.get());
}

TEST_F(KeyCacheTest, MissesAKeyItNeverSaw) {
  cache.put(a, principal_for("mg_a", 1, 10));
  EXPECT_FALSE(cache.find(b).has_value());
}

TEST_F(KeyCacheTest, KeepsAnEntryUntilItsTtlEnds) {
  cache.put(a, principal_for("mg_a", 1, 10));
  clock.advance(3599s);
  EXPECT_TRUE(cache.find(a).has_value());
  clock.advance(1s);
  EXPECT_FALSE(cache.find(a).has_value());
}

TEST_F(KeyCacheTest, RestartsTheTtlWhenAnEntryIsPutAgain) {
  cache.put(a, principal_for("mg_a", 1, 10));
  clock.advance(3000s);
  cache.put(a, principal_for("mg_a", 1, 10));
  clock.advance(3000s);
  EXPECT_TRUE(cache.find(a).has_value());
}

TEST_F(KeyCacheTest, CachesAnUnknownKeyAsNull) {
  cache.put(b, nullptr);
  auto found = cache.find(b);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(*found, nullptr);
  clock.advance(3600s);
  EXPECT_FALSE(cache.find(b).has_value());
}

TEST_F(KeyCacheTest, RefusesAnEntryWhoseHashDoesNotMatchTheDigest) {
  cache.put(a, principal_for("mg_other", 1, 10));
  EXPECT_FALSE(cache.find(a).has_value());
}

TEST_F(KeyCacheTest, InvalidatesOneKey) {
  cache.put(a, principal_for("mg_a", 1, 10));
  cache.put(b, principal_for("mg_b", 2, 10));
  cache.invalidate_key(a);
  EXPECT_FALSE(cache.find(a).has_value());
  EXPECT_TRUE(cache.find(b).has_value());
}

TEST_F(KeyCacheTest, InvalidatesEveryKeyOfOneUser) {
  const auto c = crypto::sha256("mg_c");
  const auto unknown = crypto::sha256("mg_unknown");
  cache.put(a, principal_for("mg_a", 1, 10));
  cache.put(b, principal_for("mg_b", 2, 10));
  cache.put(c, principal_for("mg_c", 3, 11));
  cache.put(unknown, nullptr);
  cache.invalidate_user(UserId{10});
  EXPECT_FALSE(cache.find(a).has_value());
  EXPECT_FALSE(cache.find(b).has_value());
  EXPECT_TRUE(cache.find(c).has_value());
  EXPECT_TRUE(cache.find(unknown).has_value());
}

TEST_F(KeyCacheTest, InvalidatesEverything) {
  cache.put(a, principal_for("mg_a", 1, 10));
  cache.put(b, nullptr);
  cache.invalidate_all();
  EXPECT_FALSE(cache.find(a).has_value());
  EXPECT_FALSE(cache.find(b).has_value());
}

TEST(KeyCache, IsDisabledByAZeroTtl) {
  FakeClock clock;
  KeyCache cache(0s, clock);
  const auto a = crypto::sha256("mg_a");
  EXPECT_FALSE(cache.enabled());
  cache.put(a, principal_for("mg_a", 1, 10));
  EXPECT_FALSE(cache.find(a).has_value());
  cache.put(a, nullptr);
  EXPECT_FALSE(cache.find(a).has_value());
}

TEST(KeyCache, StaysWithinItsLimitsDroppingTheLeastRecentlyUsed) {
  FakeClock clock;
  KeyCache cache(3600s, clock, {.known = 4, .unknown = 4});
  std::vector<crypto::Sha256Digest> digests;
  for (int i = 0; i < 10; ++i) {
    const std::string key = "mg_" + std::to_string(i);
    digests.push_back(crypto::sha256(key));
    cache.put(digests.back(), principal_for(key, i, 1));
  }
  EXPECT_EQ(cache.size(), 4u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(cache.find(digests[i]).has_value(), i >= 6) << i;
}

TEST(KeyCache, AHitKeepsAKeyOverOlderOnes) {
  FakeClock clock;
  KeyCache cache(3600s, clock, {.known = 3, .unknown = 3});
  const auto a = crypto::sha256("mg_a"), b = crypto::sha256("mg_b"), c = crypto::sha256("mg_c");
  cache.put(a, principal_for("mg_a", 1, 1));
  cache.put(b, principal_for("mg_b", 2, 1));
  cache.put(c, principal_for("mg_c", 3, 1));
  ASSERT_TRUE(cache.find(a).has_value());  // a is now the most recently used
  cache.put(crypto::sha256("mg_d"), principal_for("mg_d", 4, 1));
  EXPECT_TRUE(cache.find(a).has_value());
  EXPECT_FALSE(cache.find(b).has_value()) << "the least recently used key goes first";
  EXPECT_TRUE(cache.find(c).has_value());
}

TEST(KeyCache, AFloodOfUnknownKeysNeverEvictsAKnownKey) {
  FakeClock clock;
  KeyCache cache(3600s, clock, {.known = 2, .unknown = 3});
  const auto real = crypto::sha256("mg_real");
  cache.put(real, principal_for("mg_real", 1, 1));
  std::vector<crypto::Sha256Digest> unknown;
  for (int i = 0; i < 1000; ++i) {
    unknown.push_back(crypto::sha256("mg_unknown_" + std::to_string(i)));
    cache.put(unknown.back(), nullptr);
  }
  EXPECT_EQ(cache.size(), 4u);
  auto found = cache.find(real);
  ASSERT_TRUE(found.has_value());
  EXPECT_NE(*found, nullptr);
  // The newest unknown keys are still answered from the cache, as null.
  auto last = cache.find(unknown.back());
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(*last, nullptr);
  EXPECT_FALSE(cache.find(unknown.front()).has_value());
}

TEST(KeyCache, AKeyMovesBetweenTheListsWhenItsAnswerChanges) {
  FakeClock clock;
  KeyCache cache(3600s, clock, {.known = 2, .unknown = 2});
  const auto a = crypto::sha256("mg_a");
  cache.put(a, nullptr);
  cache.put(a, principal_for("mg_a", 1, 1));
  EXPECT_EQ(cache.size(), 1u);
  auto found = cache.find(a);
  ASSERT_TRUE(found.has_value());
  EXPECT_NE(*found, nullptr);
}

TEST(KeyCache, IsSafeToUseFromSeveralThreads) {
  SystemClock clock;
  KeyCache cache(3600s, clock, {.known = 64, .unknown = 64});
  std::atomic<int> hits{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        const std::string key = "mg_" + std::to_string((i * 7 + t) % 100);
        const auto d = crypto::sha256(key);
        if (auto found = cache.find(d)) {
          if (*found) hits.fetch_add(1);
        } else {
          cache.put(d, principal_for(key, i, t));
        }
        if (i % 500 == 0) cache.invalidate_user(UserId{t});
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_GT(hits.load(), 0);
}

}  // namespace
}  // namespace mediagen::auth
