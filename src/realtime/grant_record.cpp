#include "grant_record.hpp"

#include <charconv>
#include <chrono>
#include <cstdint>

#include "mediagen/core/hex.hpp"

namespace mediagen::realtime {

namespace {

bool read_int(std::string_view& text, std::int64_t& out) {
  auto end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, out);
  if (ec != std::errc{} || p == text.data()) return false;
  text.remove_prefix(static_cast<std::size_t>(p - text.data()));
  if (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  return true;
}

// An expiry is kept as a TimePoint, which counts nanoseconds: about 292 years either side of 1970.
// A record beyond that (Redis is shared, its content untrusted) is refused, not converted with
// an overflow.
constexpr std::int64_t kMaxExpiryMs =
    std::chrono::duration_cast<std::chrono::milliseconds>(TimePoint::duration::max()).count();

}  // namespace

std::string format_grant_record(const Grant& grant) {
  std::int64_t expires = 0;
  if (grant.expires_at) {
    expires = std::chrono::duration_cast<std::chrono::milliseconds>(grant.expires_at->time_since_epoch()).count();
  }
  return std::to_string(grant.key_id.value) + " " + std::to_string(grant.user.value) + " " +
         crypto::to_hex(grant.key_hash) + " " + std::to_string(expires);
}

std::optional<Grant> parse_grant_record(std::string_view socket_id, std::string_view channel, std::string_view text) {
  Grant g;
  g.socket_id = socket_id;
  g.channel = channel;
  std::int64_t key = 0, user = 0, expires = 0;
  if (!read_int(text, key) || !read_int(text, user)) return std::nullopt;
  if (text.size() < 64 + 1) return std::nullopt;
  // Lower-case digits only: the one spelling format_grant_record writes.
  const std::string_view digits = text.substr(0, 64);
  if (!is_lower_hex(digits) || !from_hex(digits, g.key_hash)) return std::nullopt;
  text.remove_prefix(64);
  if (text.front() != ' ') return std::nullopt;
  text.remove_prefix(1);
  if (!read_int(text, expires) || !text.empty()) return std::nullopt;
  if (expires > kMaxExpiryMs || expires < -kMaxExpiryMs) return std::nullopt;
  g.key_id = ApiKeyId{key};
  g.user = UserId{user};
  if (expires != 0) g.expires_at = TimePoint(std::chrono::milliseconds(expires));
  return g;
}

}  // namespace mediagen::realtime
