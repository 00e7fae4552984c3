// The ban event: what record_miss publishes and records, and what every instance reads back
// from Redis (shared infrastructure, so untrusted). No Redis here: the readers are fuzzed alone.
#include <algorithm>
#include <charconv>

#include "ban_numbers.hpp"
#include "mediagen/cache/ban_ladder.hpp"

namespace mediagen::cache {
namespace {

bool in_range(std::int64_t v, std::int64_t lo, std::int64_t hi) { return v >= lo && v <= hi; }

bool plausible_ip(std::string_view ip) {
  if (ip.empty() || ip.size() > 45) return false;
  for (char c : ip) {
    bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == '.' || c == ':';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::string BanLadder::signed_event(std::string_view ip, const Ban& ban) const {
  return signer_.sign(std::string(ip) + " " + std::to_string(detail::unix_seconds(ban.until)) + " " + std::to_string(ban.step));
}

std::optional<std::pair<std::string, Ban>> BanLadder::read_event(std::string_view payload) const {
  auto message = signer_.verify(payload);
  if (!message) {
    unsigned_.fetch_add(1, std::memory_order_relaxed);
    return std::nullopt;
  }
  return parse_event(*message);
}

std::optional<std::pair<std::string, Ban>> BanLadder::parse_event(std::string_view message) {
  // Redis is shared infrastructure: strict format, bounded size, every number in range.
  if (message.size() > 128) return std::nullopt;
  auto sp1 = message.find(' ');
  if (sp1 == std::string_view::npos) return std::nullopt;
  auto sp2 = message.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) return std::nullopt;
  std::string_view ip = message.substr(0, sp1);
  std::int64_t until = 0, step = 0;
  if (!plausible_ip(ip) || !detail::parse_i64(message.substr(sp1 + 1, sp2 - sp1 - 1), until) ||
      !detail::parse_i64(message.substr(sp2 + 1), step) || !in_range(step, 1, kMaxBanStep) ||
      !in_range(until, 0, max_ban_unix_seconds())) {
    return std::nullopt;
  }
  // In range, so the conversion to a TimePoint cannot overflow.
  return std::make_pair(std::string(ip), Ban{TimePoint{std::chrono::seconds{until}}, step});
}

std::int64_t max_ban_unix_seconds() {
  // The end of year 9999 (what the calendar of a rendered banned_until reaches), unless a
  // TimePoint ends sooner (nanoseconds since 1970: April 2262).
  constexpr std::int64_t kYear9999 = 253402300799;
  const auto held = std::chrono::duration_cast<std::chrono::seconds>(TimePoint::max().time_since_epoch()).count();
  return std::min<std::int64_t>(kYear9999, held - 1);
}

}  // namespace mediagen::cache
