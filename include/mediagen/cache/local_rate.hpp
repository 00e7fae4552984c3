#pragma once
// Request-rate windows of this process alone, for when Redis cannot be asked. Request windows
// move no money, so a Redis outage must not fail the API; but it must not open them fully either:
// each instance admits its share of every window (limit / instances, at least 1), so the cluster
// together stays within the limit. After a Redis failure the shared counters are left alone for
// a short rest, so a stalled Redis costs one timeout, not one per request.
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "mediagen/cache/rate_window.hpp"
#include "mediagen/core/clock.hpp"

namespace mediagen::cache {

class LocalRateWindows {
 public:
  explicit LocalRateWindows(int instances, std::chrono::milliseconds rest = std::chrono::seconds(2));

  // The same rule as check_rate, on this process's counters and shares.
  RateDecision check(std::int64_t key_id, const RateWindows& windows, TimePoint now);

  // Redis failed at `now`: the shared counters rest until now + rest.
  void redis_failed(TimePoint now);
  bool redis_resting(TimePoint now) const;

  int instances() const { return instances_; }

 private:
  struct Count {
    std::int64_t used = 0;
    std::int64_t ends = 0;  // unix seconds
  };
  void sweep(std::int64_t now_s);

  const int instances_;
  const std::chrono::milliseconds rest_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Count> counts_;
  std::int64_t swept_at_ = 0;
  TimePoint resting_until_{};
};

}  // namespace mediagen::cache
