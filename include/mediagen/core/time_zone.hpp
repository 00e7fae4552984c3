#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/core/clock.hpp"

namespace date {
class time_zone;
}

namespace mediagen {

// An IANA time zone used to present times. Bare offsets ("+03:00", "UTC+3") are not zones.
class TimeZone {
 public:
  static TimeZone utc() { return TimeZone{nullptr}; }
  // nullopt when the value is not a known IANA zone name.
  static std::optional<TimeZone> parse(std::string_view name);

  // Canonical zone name, safe to echo in a header.
  std::string_view name() const;
  bool is_utc() const { return zone_ == nullptr; }

  // ISO 8601 with an explicit offset and whole seconds: 2026-11-22T23:44:45+03:00.
  std::string format(TimePoint t) const;

 private:
  explicit TimeZone(const date::time_zone* zone) : zone_(zone) {}
  const date::time_zone* zone_;  // null means UTC
};

// Parses ISO 8601 ("2026-01-02T03:04:05Z", "...+03:00", "2026-01-02"); nullopt when malformed
// or outside what a TimePoint holds (nanoseconds: about the years 1678 to 2262).
std::optional<TimePoint> parse_iso8601(std::string_view text);

}  // namespace mediagen
