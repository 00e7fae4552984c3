#pragma once
// Token windows of a key (spec 8.1, 8.2): generation volume per minute, hour, day and calendar
// month. They are counted in PostgreSQL, in the transaction of the operation that bills the
// tokens (key_window_store): exact across instances, undone by a rollback, and untouched by a
// Redis outage. Windows are fixed and aligned to the UTC calendar, so a refusal can say when its
// window ends.
#include <cstdint>
#include <optional>
#include <string_view>

#include "mediagen/core/api_error.hpp"
#include "mediagen/core/clock.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::orders {

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

// The 429 token_quota_exceeded answer for a refused window, with its Retry-After header.
ApiError token_quota_exceeded(const TokenRefusal& refusal);

// In the operation's transaction (key_window_store.cpp): adds `tokens` to every limited window of
// the key at `now` unless one would go over its limit; then nothing is added and the first such
// window (shortest first) is named. Zero tokens, or a key without windows, pass without a
// statement. The windows' rows stay locked until the transaction ends, so concurrent operations
// of one key are counted one after the other and can never overshoot a limit together.
std::optional<TokenRefusal> take_window_tokens(db::Db& db, db::Tx& tx, ApiKeyId key, const TokenWindows& windows,
                                               std::int64_t tokens, TimePoint now);

}  // namespace mediagen::orders
