#include "mediagen/cache/token_window.hpp"

#include <array>
#include <cassert>
#include <string>
#include <vector>

#include "mediagen/cache/redis.hpp"

namespace mediagen::cache {
namespace {

// Counters outlive their window a little, so a refund that arrives just after the end still
// finds them; after that Redis drops them.
constexpr std::int64_t kExpiryMarginSeconds = 60;

// KEYS: one counter per window, shortest first. ARGV: tokens, then (limit, ttl) per window.
// Returns {0, 0} when the tokens were added, or {i, used} for the first window i that is full.
constexpr std::string_view kCheckScript = R"lua(
local tokens = tonumber(ARGV[1])
for i = 1, #KEYS do
  local limit = tonumber(ARGV[2 * i])
  local used = tonumber(redis.call('GET', KEYS[i]) or '0')
  if used + tokens > limit then
    return {i, used}
  end
end
for i = 1, #KEYS do
  redis.call('INCRBY', KEYS[i], tokens)
  redis.call('EXPIRE', KEYS[i], tonumber(ARGV[2 * i + 1]))
end
return {0, 0}
)lua";

// KEYS: the counters the tokens were added to. ARGV: tokens. A missing counter (its window
// ended) is not recreated; none goes below zero.
constexpr std::string_view kRefundScript = R"lua(
local tokens = tonumber(ARGV[1])
for i = 1, #KEYS do
  local used = tonumber(redis.call('GET', KEYS[i]) or '0')
  local back = math.min(used, tokens)
  if back > 0 then redis.call('DECRBY', KEYS[i], back) end
end
return 0
)lua";

std::int64_t unix_seconds(TimePoint t) {
  return std::chrono::floor<std::chrono::seconds>(t).time_since_epoch().count();
}

struct Span {
  TokenWindow window;
  std::int64_t limit;
  std::string key;
  TimePoint end;
};

std::string_view tag(TokenWindow window) {
  switch (window) {
    case TokenWindow::per_minute: return "m";
    case TokenWindow::per_hour: return "h";
    case TokenWindow::per_day: return "d";
    case TokenWindow::per_month: return "mo";
  }
  return "";
}

// The key's limited windows at `at`, shortest first; each counter is named by its window's end,
// which identifies the window as well as its start does.
std::vector<Span> spans(std::string_view prefix, ApiKeyId key, const TokenWindows& windows, TimePoint at) {
  const std::array<std::pair<TokenWindow, std::optional<std::int64_t>>, 4> all{{
      {TokenWindow::per_minute, windows.per_minute},
      {TokenWindow::per_hour, windows.per_hour},
      {TokenWindow::per_day, windows.per_day},
      {TokenWindow::per_month, windows.per_month},
  }};
  std::vector<Span> out;
  for (const auto& [window, limit] : all) {
    if (!limit) {
      continue;
    }
    const TimePoint end = window_end(window, at);
    std::string name(prefix);
    name.append("tok:")
        .append(std::to_string(key.value))
        .append(":")
        .append(tag(window))
        .append(":")
        .append(std::to_string(unix_seconds(end)));
    out.push_back({window, *limit, std::move(name), end});
  }
  return out;
}

}  // namespace

std::string_view to_string(TokenWindow window) {
  switch (window) {
    case TokenWindow::per_minute: return "per_minute";
    case TokenWindow::per_hour: return "per_hour";
    case TokenWindow::per_day: return "per_day";
    case TokenWindow::per_month: return "per_month";
  }
  return "";
}

TimePoint window_end(TokenWindow window, TimePoint at) {
  using namespace std::chrono;
  switch (window) {
    case TokenWindow::per_minute: return floor<minutes>(at) + minutes{1};
    case TokenWindow::per_hour: return floor<hours>(at) + hours{1};
    case TokenWindow::per_day: return floor<days>(at) + days{1};
    case TokenWindow::per_month: {
      const year_month_day today{floor<days>(at)};
      const year_month next = year_month{today.year(), today.month()} + months{1};
      return sys_days{next / 1};
    }
  }
  return at;
}

TokenDecision check_and_add_tokens(Redis& redis, std::string_view prefix, ApiKeyId key,
                                   const TokenWindows& windows, std::int64_t tokens, TimePoint now) {
  assert(tokens >= 0);
  if (tokens <= 0 || !windows.any()) {
    return {};
  }
  const std::vector<Span> open = spans(prefix, key, windows, now);
  const std::int64_t t = unix_seconds(now);
  std::vector<std::string> keys;
  std::vector<std::string> args{std::to_string(tokens)};
  for (const auto& s : open) {
    keys.push_back(s.key);
    args.push_back(std::to_string(s.limit));
    args.push_back(std::to_string(unix_seconds(s.end) - t + kExpiryMarginSeconds));
  }
  const RedisReply reply = redis.eval(kCheckScript, keys, args);
  if (reply.elements.size() != 2) {
    throw RedisError("token window script returned an unexpected reply");
  }
  const std::int64_t failed = reply.elements[0].integer;
  if (failed == 0) {
    return {};
  }
  if (failed < 1 || failed > static_cast<std::int64_t>(open.size())) {
    throw RedisError("token window script named an unknown window");
  }
  const Span& s = open[static_cast<std::size_t>(failed - 1)];
  return {TokenRefusal{.window = s.window,
                       .limit = s.limit,
                       .used = reply.elements[1].integer,
                       .requested = tokens,
                       .reset_at = s.end,
                       // The end lies after the current whole second, so this is at least 1.
                       .retry_after = unix_seconds(s.end) - t}};
}

void refund_tokens(Redis& redis, std::string_view prefix, ApiKeyId key, const TokenWindows& windows,
                   std::int64_t tokens, TimePoint charged_at) {
  assert(tokens >= 0);
  if (tokens <= 0 || !windows.any()) {
    return;
  }
  std::vector<std::string> keys;
  for (auto& s : spans(prefix, key, windows, charged_at)) {
    keys.push_back(std::move(s.key));
  }
  redis.eval(kRefundScript, keys, {std::to_string(tokens)});
}

ApiError token_quota_exceeded(const TokenRefusal& refusal) {
  return ApiError::token_window_exceeded(std::string(to_string(refusal.window)), refusal.limit, refusal.used,
                                         refusal.requested, refusal.reset_at, refusal.retry_after);
}

}  // namespace mediagen::cache
