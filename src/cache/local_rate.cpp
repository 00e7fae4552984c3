#include "mediagen/cache/local_rate.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

namespace mediagen::cache {

LocalRateWindows::LocalRateWindows(int instances, std::chrono::milliseconds rest)
    : instances_(std::max(1, instances)), rest_(rest) {}

void LocalRateWindows::redis_failed(TimePoint now) {
  std::lock_guard lock(mutex_);
  resting_until_ = now + rest_;
}

bool LocalRateWindows::redis_resting(TimePoint now) const {
  std::lock_guard lock(mutex_);
  return now < resting_until_;
}

void LocalRateWindows::sweep(std::int64_t now_s) {
  if (now_s - swept_at_ < 60) return;
  swept_at_ = now_s;
  std::erase_if(counts_, [now_s](const auto& entry) { return entry.second.ends <= now_s; });
}

RateDecision LocalRateWindows::check(std::int64_t key_id, const RateWindows& windows, TimePoint now) {
  const std::int64_t t = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  struct Span {
    std::int64_t share;
    std::int64_t length;
    std::string name;
  };
  std::vector<Span> spans;
  const std::array<std::tuple<std::optional<std::int64_t>, std::int64_t, const char*>, 3> all{{
      {windows.per_minute, 60, "m"}, {windows.per_hour, 3600, "h"}, {windows.per_day, 86400, "d"}}};
  for (const auto& [limit, length, tag] : all) {
    if (!limit) continue;
    const std::int64_t share = std::max<std::int64_t>(1, *limit / instances_);
    spans.push_back({share, length, std::to_string(key_id) + ":" + tag + ":" + std::to_string(t / length)});
  }
  if (spans.empty()) return {};
  std::lock_guard lock(mutex_);
  sweep(t);
  for (const auto& s : spans) {
    const auto it = counts_.find(s.name);
    const std::int64_t used = it == counts_.end() ? 0 : it->second.used;
    const std::int64_t reset = s.length - (t % s.length);
    if (used + 1 > s.share) return {.allowed = false, .limit = s.share, .remaining = 0, .retry_after = reset, .reset_after = reset};
  }
  RateDecision d{.allowed = true};
  std::optional<std::int64_t> best;
  for (const auto& s : spans) {
    Count& c = counts_[s.name];
    c.ends = (t / s.length + 1) * s.length;
    const std::int64_t remaining = s.share - ++c.used;
    if (!best || remaining < *best) {
      best = remaining;
      d.limit = s.share;
      d.remaining = remaining;
      d.reset_after = s.length - (t % s.length);
    }
  }
  return d;
}

}  // namespace mediagen::cache
