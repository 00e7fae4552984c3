#pragma once
// Request-rate windows of a key (per minute, hour, day), counted in Redis so that every
// instance shares them. One round trip per request: one script checks and counts all windows.
#include <cstdint>
#include <optional>
#include <string>

#include "mediagen/core/clock.hpp"

namespace mediagen::cache {

class Redis;

struct RateWindows {
  std::optional<std::int64_t> per_minute;
  std::optional<std::int64_t> per_hour;
  std::optional<std::int64_t> per_day;
  bool any() const { return per_minute || per_hour || per_day; }
};

struct RateDecision {
  bool allowed = true;
  std::int64_t limit = 0;      // of the tightest window
  std::int64_t remaining = 0;  // in the tightest window, after this request
  std::int64_t retry_after = 0;  // seconds, when refused
  std::int64_t reset_after = 0;  // seconds until the tightest window resets
};

// A refused request is not counted, so exactly `limit` requests pass in a window.
RateDecision check_rate(Redis& redis, const std::string& prefix, std::int64_t key_id,
                        const RateWindows& windows, TimePoint now);

}  // namespace mediagen::cache
