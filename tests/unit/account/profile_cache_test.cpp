#include "mediagen/account/profile_cache.hpp"

#include <gtest/gtest.h>

#include <memory>

namespace mediagen::account {
namespace {

using namespace std::chrono_literals;

// A clock the test moves by hand.
class FakeClock final : public Clock {
 public:
  TimePoint now() const override { return now_; }
  void advance(std::chrono::milliseconds by) { now_ += by; }

 private:
  TimePoint now_ = TimePoint{std::chrono::seconds{1'800'000'000}};
};

std::shared_ptr<const Profile> profile(std::int64_t id, std::int64_t balance = 100) {
  auto p = std::make_shared<Profile>();
  p->id = UserId{id};
  p->email = "u" + std::to_string(id) + "@example.com";
  p->balance = MinorUnits{balance};
  return p;
}

class ProfileCacheTest : public ::testing::Test {
 protected:
  FakeClock clock;
  ProfileCache cache{5s, clock};

  void put(std::shared_ptr<const Profile> p) { cache.put(std::move(p), cache.begin_read()); }
};

TEST_F(ProfileCacheTest, KeepsAProfileUntilItsTtl) {
  EXPECT_EQ(cache.find(UserId{1}), nullptr);
  put(profile(1, 250));
  ASSERT_NE(cache.find(UserId{1}), nullptr);
  EXPECT_EQ(cache.find(UserId{1})->balance, MinorUnits{250});
  EXPECT_EQ(cache.find(UserId{2}), nullptr);
  clock.advance(4999ms);
  EXPECT_NE(cache.find(UserId{1}), nullptr);
  clock.advance(1ms);
  EXPECT_EQ(cache.find(UserId{1}), nullptr);
  EXPECT_EQ(cache.size(), 0u);
}

TEST_F(ProfileCacheTest, AnInvalidationDropsOnlyThatUser) {
  put(profile(1));
  put(profile(2));
  cache.invalidate(UserId{1});
  EXPECT_EQ(cache.find(UserId{1}), nullptr);
  EXPECT_NE(cache.find(UserId{2}), nullptr);
  cache.invalidate_all();
  EXPECT_EQ(cache.find(UserId{2}), nullptr);
}

// A read that began before an invalidation may have seen the state before the change: it is not
// kept, or it would show the old balance for the whole TTL.
TEST_F(ProfileCacheTest, AReadOlderThanAnInvalidationIsNotKept) {
  const auto ticket = cache.begin_read();
  cache.invalidate(UserId{7});
  cache.put(profile(1), ticket);
  EXPECT_EQ(cache.find(UserId{1}), nullptr);
  cache.put(profile(1), cache.begin_read());
  EXPECT_NE(cache.find(UserId{1}), nullptr);
}

TEST_F(ProfileCacheTest, APlanEndsItsEntryWhenItExpires) {
  auto p = std::make_shared<Profile>(*profile(3));
  p->plan = LivePlan{.subscription_id = 9, .code = "pro", .name = "Pro", .expires_at = clock.now() + 2s};
  put(p);
  clock.advance(1999ms);
  EXPECT_NE(cache.find(UserId{3}), nullptr);
  clock.advance(1ms);
  EXPECT_EQ(cache.find(UserId{3}), nullptr);
  // A plan that has already ended when the read comes back is not kept at all.
  p->plan->expires_at = clock.now();
  put(p);
  EXPECT_EQ(cache.find(UserId{3}), nullptr);
}

TEST_F(ProfileCacheTest, AFullCacheDropsExpiredEntriesFirstAndElseKeepsNothingNew) {
  ProfileCache small{5s, clock, 2};
  small.put(profile(1), small.begin_read());
  clock.advance(3s);
  small.put(profile(2), small.begin_read());
  small.put(profile(3), small.begin_read());  // full of live entries: not kept
  EXPECT_EQ(small.find(UserId{3}), nullptr);
  EXPECT_NE(small.find(UserId{1}), nullptr);
  small.put(profile(1, 5), small.begin_read());  // one already kept is replaced
  EXPECT_EQ(small.find(UserId{1})->balance, MinorUnits{5});
  clock.advance(2s);  // 1 (put again at 3 s) lives to 8 s; 2 lives to 8 s
  clock.advance(3s);
  small.put(profile(3), small.begin_read());  // both expired: pruned, 3 kept
  EXPECT_NE(small.find(UserId{3}), nullptr);
  EXPECT_EQ(small.size(), 1u);
}

TEST(ProfileCache, ATtlOfZeroKeepsNothing) {
  FakeClock clock;
  ProfileCache off{0s, clock};
  EXPECT_FALSE(off.enabled());
  off.put(profile(1), off.begin_read());
  EXPECT_EQ(off.find(UserId{1}), nullptr);
}

}  // namespace
}  // namespace mediagen::account
