// The SQL of a key's token windows (see take_window_tokens in token_windows.hpp).
#include "mediagen/orders/limits.hpp"

#include <array>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "mediagen/db/pg.hpp"

namespace mediagen::orders {
namespace {

// Locks the key's rows of the windows asked for, moving a row whose window ended to the current
// one at zero, and returns what each holds.
const db::Statement kLockWindows{
    "orders_key_windows_lock",
    "INSERT INTO api_key_token_windows AS w (key_id, span, ends_at, used)"
    " SELECT $1, s, to_timestamp(e), 0 FROM unnest($2::text[], $3::bigint[]) AS t(s, e)"
    " ON CONFLICT (key_id, span) DO UPDATE"
    "  SET used = CASE WHEN w.ends_at = EXCLUDED.ends_at THEN w.used ELSE 0 END, ends_at = EXCLUDED.ends_at"
    " RETURNING span, used"};
const db::Statement kAddToWindows{
    "orders_key_windows_add",
    "UPDATE api_key_token_windows SET used = used + $3 WHERE key_id = $1 AND span = ANY($2::text[])"};

std::int64_t unix_seconds(TimePoint t) {
  return std::chrono::floor<std::chrono::seconds>(t).time_since_epoch().count();
}

struct Span {
  TokenWindow window;
  std::int64_t limit;
  TimePoint end;
};

std::vector<Span> limited(const TokenWindows& windows, TimePoint at) {
  const std::array<std::pair<TokenWindow, std::optional<std::int64_t>>, 4> all{{
      {TokenWindow::per_minute, windows.per_minute},
      {TokenWindow::per_hour, windows.per_hour},
      {TokenWindow::per_day, windows.per_day},
      {TokenWindow::per_month, windows.per_month},
  }};
  std::vector<Span> out;
  for (const auto& [window, limit] : all) {
    if (limit) out.push_back({window, *limit, window_end(window, at)});
  }
  return out;
}

}  // namespace

std::optional<TokenRefusal> take_window_tokens(db::Db& db, db::Tx& tx, ApiKeyId key, const TokenWindows& windows,
                                               std::int64_t tokens, TimePoint now) {
  if (tokens <= 0 || !windows.any()) return std::nullopt;
  const std::vector<Span> open = limited(windows, now);
  std::vector<std::string> names;
  std::vector<std::string> ends;
  for (const auto& s : open) {
    names.emplace_back(to_string(s.window));
    ends.push_back(std::to_string(unix_seconds(s.end)));
  }
  const std::string names_array = db::text_array(names);
  std::map<std::string, std::int64_t, std::less<>> used;
  for (const auto& row : db.exec(tx, kLockWindows, key.value, names_array, db::text_array(ends))) {
    used[row[0].as<std::string>()] = row[1].as<std::int64_t>();
  }
  for (const auto& s : open) {
    const std::int64_t in_window = used[std::string(to_string(s.window))];
    if (in_window + tokens > s.limit) {
      return TokenRefusal{.window = s.window,
                          .limit = s.limit,
                          .used = in_window,
                          .requested = tokens,
                          .reset_at = s.end,
                          // The end lies after the current whole second, so this is at least 1.
                          .retry_after = unix_seconds(s.end) - unix_seconds(now)};
    }
  }
  db.exec(tx, kAddToWindows, key.value, names_array, tokens);
  return std::nullopt;
}

}  // namespace mediagen::orders
