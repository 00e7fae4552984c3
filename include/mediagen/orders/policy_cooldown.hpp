#pragma once
// The policy cooldown (spec 8.1 policy_cooldown_active): after kPolicyStreak consecutive orders
// blocked by the content policy, the user may not create orders (POST /orders, order retry) for
// ladder[step], and the step advances (300 s, 600 s, 900 s by default, staying at the last). An
// order completed with no policy-flagged chunk starts the count and the ladder again.
//
// The count moves in the transaction that settles the order (work_settle_store.cpp): an order's
// first policy_flagged chunk counts it once; its completion without one resets. Order creation
// reads blocked_until inside its own transaction, before the token pool and any money.
#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "mediagen/core/api_error.hpp"
#include "mediagen/core/clock.hpp"

namespace mediagen::orders {

// Consecutive policy-blocked orders that start a cooldown (spec 8.1: five).
inline constexpr int kPolicyStreak = 5;

struct PolicyCooldown {
  // MEDIAGEN_POLICY_COOLDOWN_SECONDS: the n-th cooldown lasts ladder[min(n - 1, last)]. Empty: the
  // cooldown is off (nothing is counted; a clean completion still clears an old streak).
  std::vector<Seconds> ladder{Seconds{300}, Seconds{600}, Seconds{900}};
  // Where the time comes from; null: the system clock. Not owned.
  const Clock* clock = nullptr;

  TimePoint now() const { return clock ? clock->now() : std::chrono::system_clock::now(); }
  // How long the cooldown given after `step` earlier ones lasts.
  Seconds duration(std::int64_t step) const;
};

// 429 policy_cooldown_active while `blocked_until` is after `now`: retry_after is the wait in
// whole seconds rounded up (at least 1), retry_at blocked_until rounded up to the second (so at
// either, creation is allowed again), Retry-After the same seconds. Nothing otherwise.
std::optional<ApiError> policy_cooldown_refusal(std::optional<TimePoint> blocked_until, TimePoint now);

}  // namespace mediagen::orders
