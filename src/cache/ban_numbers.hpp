#pragma once
// The numbers of the ban ladder's Redis records and events: whole seconds since the epoch, and
// decimal integers read back whole (a trailing byte or an overflow is no number).
#include <charconv>
#include <chrono>
#include <cstdint>
#include <string_view>

#include "mediagen/core/clock.hpp"

namespace mediagen::cache::detail {

inline std::int64_t unix_seconds(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

inline bool parse_i64(std::string_view text, std::int64_t& out) {
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && p == text.data() + text.size();
}

}  // namespace mediagen::cache::detail
