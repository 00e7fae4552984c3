#include "mediagen/core/time_zone.hpp"

#include <date/date.h>
#include <date/tz.h>

namespace mediagen {
namespace {

bool plausible_zone_name(std::string_view name) {
  // IANA names are short ASCII paths of letters, digits, '_', '-', '+' and '/'.
  if (name.empty() || name.size() > 64 || name.front() == '/' || name.find("..") != name.npos) {
    return false;
  }
  for (char c : name) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '+' || c == '/';
    if (!ok) return false;
  }
  // A bare offset ("+03:00", "-3") is not a zone; names start with a letter.
  char first = name.front();
  return (first >= 'A' && first <= 'Z') || (first >= 'a' && first <= 'z');
}

std::string format_fields(date::sys_seconds local_as_sys, std::chrono::seconds offset) {
  auto day = date::floor<date::days>(local_as_sys);
  date::year_month_day ymd{day};
  date::hh_mm_ss hms{local_as_sys - day};
  long off = static_cast<long>(offset.count());
  const char sign = off < 0 ? '-' : '+';
  if (off < 0) off = -off;
  // Fixed layout "YYYY-MM-DDTHH:MM:SS+HH:MM", written digit by digit (this runs per field).
  std::string out(25, '0');
  auto put = [&](std::size_t at, long value, int width) {
    for (int i = width - 1; i >= 0; --i) {
      out[at + static_cast<std::size_t>(i)] = static_cast<char>('0' + value % 10);
      value /= 10;
    }
  };
  int year = static_cast<int>(ymd.year());
  if (year < 0 || year > 9999) year = 0;
  put(0, year, 4);
  out[4] = '-';
  put(5, static_cast<unsigned>(ymd.month()), 2);
  out[7] = '-';
  put(8, static_cast<unsigned>(ymd.day()), 2);
  out[10] = 'T';
  put(11, hms.hours().count(), 2);
  out[13] = ':';
  put(14, hms.minutes().count(), 2);
  out[16] = ':';
  put(17, hms.seconds().count(), 2);
  out[19] = sign;
  put(20, off / 3600, 2);
  out[22] = ':';
  put(23, (off % 3600) / 60, 2);
  return out;
}

}  // namespace

std::optional<TimeZone> TimeZone::parse(std::string_view name) {
  if (!plausible_zone_name(name)) return std::nullopt;
  if (name == "UTC") return utc();
  try {
    return TimeZone{date::locate_zone(name)};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string_view TimeZone::name() const { return zone_ ? zone_->name() : std::string_view("UTC"); }

std::string TimeZone::format(TimePoint t) const {
  auto secs = date::floor<std::chrono::seconds>(t);
  if (!zone_) return format_fields(secs, std::chrono::seconds{0});
  auto info = zone_->get_info(secs);
  return format_fields(secs + info.offset, info.offset);
}

namespace {

// Reads exactly `width` ASCII digits at `at`; no signs, no blanks.
bool digits(std::string_view text, std::size_t at, std::size_t width, int& out) {
  if (at + width > text.size()) return false;
  out = 0;
  for (std::size_t i = at; i < at + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    out = out * 10 + (text[i] - '0');
  }
  return true;
}

}  // namespace

std::optional<TimePoint> parse_iso8601(std::string_view text) {
  // YYYY-MM-DD, optionally followed by THH:MM:SS[.fraction](Z|+HH:MM|-HH:MM).
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (!digits(text, 0, 4, y) || text.size() < 10 || text[4] != '-' || !digits(text, 5, 2, mo) || text[7] != '-' ||
      !digits(text, 8, 2, d)) {
    return std::nullopt;
  }
  long offset = 0;
  if (text.size() > 10) {
    if ((text[10] != 'T' && text[10] != ' ') || !digits(text, 11, 2, h) || text.size() < 19 || text[13] != ':' ||
        !digits(text, 14, 2, mi) || text[16] != ':' || !digits(text, 17, 2, s)) {
      return std::nullopt;
    }
    std::string_view zone = text.substr(19);
    if (!zone.empty() && zone.front() == '.') {  // fractional seconds are dropped
      std::size_t i = 1;
      while (i < zone.size() && zone[i] >= '0' && zone[i] <= '9') ++i;
      if (i == 1) return std::nullopt;
      zone = zone.substr(i);
    }
    if (zone.empty() || zone == "Z") {
      offset = 0;
    } else {
      int oh = 0, om = 0;
      if (zone.size() != 6 || (zone[0] != '+' && zone[0] != '-') || !digits(zone, 1, 2, oh) || zone[3] != ':' ||
          !digits(zone, 4, 2, om) || oh > 23 || om > 59) {
        return std::nullopt;
      }
      offset = (oh * 3600L + om * 60L) * (zone[0] == '-' ? -1 : 1);
    }
  }
  date::year_month_day ymd{date::year{y}, date::month{static_cast<unsigned>(mo)},
                           date::day{static_cast<unsigned>(d)}};
  if (!ymd.ok() || h > 23 || mi > 59 || s > 59) return std::nullopt;
  auto tp = date::sys_days{ymd} + std::chrono::hours{h} + std::chrono::minutes{mi} +
            std::chrono::seconds{s} - std::chrono::seconds{offset};
  // TimePoint counts nanoseconds, so it holds about 1678..2262: a time outside is refused rather
  // than converted with an overflow.
  constexpr auto kLatest = std::chrono::floor<std::chrono::seconds>(TimePoint::max().time_since_epoch());
  constexpr auto kEarliest = std::chrono::ceil<std::chrono::seconds>(TimePoint::min().time_since_epoch());
  if (tp.time_since_epoch() > kLatest || tp.time_since_epoch() < kEarliest) return std::nullopt;
  return TimePoint{std::chrono::duration_cast<TimePoint::duration>(tp.time_since_epoch())};
}

}  // namespace mediagen
