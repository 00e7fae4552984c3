#pragma once
// Token windows of a key (spec 8.1, 8.2): generation volume per minute, hour, day and calendar
// month, counted in Redis so that every instance shares them. Windows are fixed and aligned to
// the UTC calendar, so a refusal can say when its window ends. One script checks every window and
// adds the tokens to all of them or to none: a refused request counts nothing, and concurrent
// callers can never overshoot a limit together. Redis failures throw RedisError.
#include <cstdint>
#include <optional>
#include <string_view>

#include "mediagen/core/api_error.hpp"
#include "mediagen/core/clock.hpp"
#include "mediagen/core/ids.hpp"

namespace mediagen::cache {

class Redis;

// Enumerators equal the wire value of "window" in the 429 body.
enum class TokenWindow { per_minute, per_hour, per_day, per_month };
std::string_view to_string(TokenWindow window);

// The end of the window that holds `at`: the next whole minute, hour or day, or the first day
// of the next month, 00:00 UTC.
TimePoint window_end(TokenWindow window, TimePoint at);

// Empty: no limit in that window.
struct TokenWindows {
  std::optional<std::int64_t> per_minute;
  std::optional<std::int64_t> per_hour;
  std::optional<std::int64_t> per_day;
  std::optional<std::int64_t> per_month;
  bool any() const { return per_minute || per_hour || per_day || per_month; }
};

struct TokenRefusal {
  TokenWindow window = TokenWindow::per_minute;  // the first full one, shortest first
  std::int64_t limit = 0;
  std::int64_t used = 0;  // in the window before this request
  std::int64_t requested = 0;
  TimePoint reset_at;             // the window's end
  std::int64_t retry_after = 0;   // whole seconds until reset_at, at least 1
};

struct TokenDecision {
  std::optional<TokenRefusal> refusal;  // empty: the tokens were added to every window
  bool allowed() const { return !refusal; }
};

// Adds `tokens` to every window of the key unless one of them would go over its limit, in which
// case nothing is added and the first such window (per_minute, per_hour, per_day, per_month) is
// named. Zero tokens, or a key without windows, always pass without a round trip.
[[nodiscard]] TokenDecision check_and_add_tokens(Redis& redis, std::string_view prefix, ApiKeyId key,
                                                 const TokenWindows& windows, std::int64_t tokens,
                                                 TimePoint now);

// Gives back tokens that check_and_add_tokens added at `charged_at` (the work they paid for was
// then refused, e.g. 402). Each window goes down by at most what it holds, never below zero; a
// window that has ended since is left alone.
void refund_tokens(Redis& redis, std::string_view prefix, ApiKeyId key, const TokenWindows& windows,
                   std::int64_t tokens, TimePoint charged_at);

// The 429 token_quota_exceeded answer for a refused window, with its Retry-After header.
ApiError token_quota_exceeded(const TokenRefusal& refusal);

}  // namespace mediagen::cache
