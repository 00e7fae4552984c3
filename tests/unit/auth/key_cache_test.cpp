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

// What a lookup that read the key just now puts.
void put(KeyCache& cache, const crypto::Sha256Digest& digest, std::shared_ptr<const Principal> principal) {
  cache.put(digest, std::move(principal), cache.begin_read());
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
  put(cache, a, p);
  auto found = cache.find(a);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->get(), p.get());
}

TEST_F(KeyCacheTest, MissesAKeyItNeverSaw) {
  put(cache, a, principal_for("mg_a", 1, 10));
  EXPECT_FALSE(cache.find(b).has_value());
}

TEST_F(KeyCacheTest, KeepsAnEntryUntilItsTtlEnds) {
  put(cache, a, principal_for("mg_a", 1, 10));
  clock.advance(3599s);
  EXPECT_TRUE(cache.find(a).has_value());
  clock.advance(1s);
  EXPECT_FALSE(cache.find(a).has_value());
}

TEST_F(KeyCacheTest, RestartsTheTtlWhenAnEntryIsPutAgain) {
  put(cache, a, principal_for("mg_a", 1, 10));
  clock.advance(3000s);
  put(cache, a, principal_for("mg_a", 1, 10));
  clock.advance(3000s);
  EXPECT_TRUE(cache.find(a).has_value());
}

TEST_F(KeyCacheTest, CachesAnUnknownKeyAsNull) {
  put(cache, b, nullptr);
  auto found = cache.find(b);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(*found, nullptr);
  clock.advance(3600s);
  EXPECT_FALSE(cache.find(b).has_value());
}

TEST_F(KeyCacheTest, RefusesAnEntryWhoseHashDoesNotMatchTheDigest) {
  put(cache, a, principal_for("mg_other", 1, 10));
  EXPECT_FALSE(cache.find(a).has_value());
}

TEST_F(KeyCacheTest, InvalidatesOneKey) {
  put(cache, a, principal_for("mg_a", 1, 10));
  put(cache, b, principal_for("mg_b", 2, 10));
  cache.invalidate_key(a);
  EXPECT_FALSE(cache.find(a).has_value());
  EXPECT_TRUE(cache.find(b).has_value());
}

TEST_F(KeyCacheTest, InvalidatesEveryKeyOfOneUser) {
  const auto c = crypto::sha256("mg_c");
  const auto unknown = crypto::sha256("mg_unknown");
  put(cache, a, principal_for("mg_a", 1, 10));
  put(cache, b, principal_for("mg_b", 2, 10));
  put(cache, c, principal_for("mg_c", 3, 11));
  put(cache, unknown, nullptr);
  cache.invalidate_user(UserId{10});
  EXPECT_FALSE(cache.find(a).has_value());
  EXPECT_FALSE(cache.find(b).has_value());
  EXPECT_TRUE(cache.find(c).has_value());
  EXPECT_TRUE(cache.find(unknown).has_value());
}

TEST_F(KeyCacheTest, InvalidatesEverything) {
  put(cache, a, principal_for("mg_a", 1, 10));
  put(cache, b, nullptr);
  cache.invalidate_all();
  EXPECT_FALSE(cache.find(a).has_value());
  EXPECT_FALSE(cache.find(b).has_value());
}

// The race: a lookup reads the key from PostgreSQL, the key is disabled and the invalidation
// arrives, then the lookup puts what it read. That answer must not be cached.
TEST_F(KeyCacheTest, AReadThatBeganBeforeAKeyInvalidationIsNotCached) {
  const auto read = cache.begin_read();
  cache.invalidate_key(a);
  cache.put(a, principal_for("mg_a", 1, 10), read);
  EXPECT_FALSE(cache.find(a).has_value());
}

TEST_F(KeyCacheTest, AReadThatBeganBeforeAUserInvalidationIsNotCached) {
  const auto read = cache.begin_read();
  cache.invalidate_user(UserId{10});
  cache.put(a, principal_for("mg_a", 1, 10), read);
  EXPECT_FALSE(cache.find(a).has_value());
}

TEST_F(KeyCacheTest, AReadThatBeganBeforeEverythingWasInvalidatedIsNotCached) {
  const auto read = cache.begin_read();
  cache.invalidate_all();
  cache.put(b, nullptr, read);
  EXPECT_FALSE(cache.find(b).has_value());
}

// The counter is global: an invalidation of another key also keeps a read in flight out (one
// more lookup later, never a stale entry).
TEST_F(KeyCacheTest, AReadThatBeganBeforeAnyInvalidationIsNotCached) {
  const auto read = cache.begin_read();
  cache.invalidate_key(b);
  cache.put(a, principal_for("mg_a", 1, 10), read);
  EXPECT_FALSE(cache.find(a).has_value());
}

TEST_F(KeyCacheTest, AReadThatBeganAfterTheInvalidationIsCached) {
  cache.invalidate_key(a);
  const auto read = cache.begin_read();
  auto p = principal_for("mg_a", 1, 10);
  cache.put(a, p, read);
  auto found = cache.find(a);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->get(), p.get());
}

TEST(KeyCache, IsDisabledByAZeroTtl) {
  FakeClock clock;
  KeyCache cache(0s, clock);
  const auto a = crypto::sha256("mg_a");
  EXPECT_FALSE(cache.enabled());
  put(cache, a, principal_for("mg_a", 1, 10));
  EXPECT_FALSE(cache.find(a).has_value());
  put(cache, a, nullptr);
  EXPECT_FALSE(cache.find(a).has_value());
}

TEST(KeyCache, StaysWithinItsLimitsDroppingTheLeastRecentlyUsed) {
  FakeClock clock;
  KeyCache cache(3600s, clock, {.known = 4, .unknown = 4});
  std::vector<crypto::Sha256Digest> digests;
  for (int i = 0; i < 10; ++i) {
    const std::string key = "mg_" + std::to_string(i);
    digests.push_back(crypto::sha256(key));
    put(cache, digests.back(), principal_for(key, i, 1));
  }
  EXPECT_EQ(cache.size(), 4u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(cache.find(digests[i]).has_value(), i >= 6) << i;
}

TEST(KeyCache, AHitKeepsAKeyOverOlderOnes) {
  FakeClock clock;
  KeyCache cache(3600s, clock, {.known = 3, .unknown = 3});
  const auto a = crypto::sha256("mg_a"), b = crypto::sha256("mg_b"), c = crypto::sha256("mg_c");
  put(cache, a, principal_for("mg_a", 1, 1));
  put(cache, b, principal_for("mg_b", 2, 1));
  put(cache, c, principal_for("mg_c", 3, 1));
  ASSERT_TRUE(cache.find(a).has_value());  // a is now the most recently used
  put(cache, crypto::sha256("mg_d"), principal_for("mg_d", 4, 1));
  EXPECT_TRUE(cache.find(a).has_value());
  EXPECT_FALSE(cache.find(b).has_value()) << "the least recently used key goes first";
  EXPECT_TRUE(cache.find(c).has_value());
}

TEST(KeyCache, AFloodOfUnknownKeysNeverEvictsAKnownKey) {
  FakeClock clock;
  KeyCache cache(3600s, clock, {.known = 2, .unknown = 3});
  const auto real = crypto::sha256("mg_real");
  put(cache, real, principal_for("mg_real", 1, 1));
  std::vector<crypto::Sha256Digest> unknown;
  for (int i = 0; i < 1000; ++i) {
    unknown.push_back(crypto::sha256("mg_unknown_" + std::to_string(i)));
    put(cache, unknown.back(), nullptr);
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
  put(cache, a, nullptr);
  put(cache, a, principal_for("mg_a", 1, 1));
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
          put(cache, d, principal_for(key, i, t));
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
