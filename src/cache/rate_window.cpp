#include "mediagen/cache/rate_window.hpp"

#include "mediagen/cache/redis.hpp"

namespace mediagen::cache {
namespace {

// KEYS: one counter per window. ARGV: now, then (limit, length) per window.
// Returns {allowed, limit, remaining, retry_after, reset_after} for the tightest window.
constexpr std::string_view kScript = R"lua(
local now = tonumber(ARGV[1])
local best_limit, best_remaining, best_reset = 0, nil, 0
for i = 1, #KEYS do
  local limit = tonumber(ARGV[2 * i])
  local length = tonumber(ARGV[2 * i + 1])
  local used = tonumber(redis.call('GET', KEYS[i]) or '0')
  local reset = length - (now % length)
  if used + 1 > limit then
    return {0, limit, 0, reset, reset}
  end
end
for i = 1, #KEYS do
  local limit = tonumber(ARGV[2 * i])
  local length = tonumber(ARGV[2 * i + 1])
  local used = redis.call('INCR', KEYS[i])
  if used == 1 then redis.call('EXPIRE', KEYS[i], length + 1) end
  local remaining = limit - used
  if best_remaining == nil or remaining < best_remaining then
    best_limit, best_remaining, best_reset = limit, remaining, length - (now % length)
  end
end
return {1, best_limit, best_remaining, 0, best_reset}
)lua";

}  // namespace

RateDecision check_rate(Redis& redis, const std::string& prefix, std::int64_t key_id,
                        const RateWindows& windows, TimePoint now) {
  const std::int64_t t = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  std::vector<std::string> keys;
  std::vector<std::string> args{std::to_string(t)};
  auto add = [&](const std::optional<std::int64_t>& limit, std::int64_t length, const char* tag) {
    if (!limit) return;
    keys.push_back(prefix + "rl:" + std::to_string(key_id) + ":" + tag + ":" + std::to_string(t / length));
    args.push_back(std::to_string(*limit));
    args.push_back(std::to_string(length));
  };
  add(windows.per_minute, 60, "m");
  add(windows.per_hour, 3600, "h");
  add(windows.per_day, 86400, "d");
  if (keys.empty()) return {};
  auto reply = redis.eval(kScript, keys, args);
  RateDecision d;
  if (reply.elements.size() == 5) {
    d.allowed = reply.elements[0].integer == 1;
    d.limit = reply.elements[1].integer;
    d.remaining = reply.elements[2].integer;
    d.retry_after = reply.elements[3].integer;
    d.reset_after = reply.elements[4].integer;
  }
  return d;
}

}  // namespace mediagen::cache
