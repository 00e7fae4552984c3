#include "mediagen/core/time_zone.hpp"

#include <cstdio>
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

std::optional<TimePoint> parse_iso8601(std::string_view text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  std::string copy(text.substr(0, 64));
  int consumed = 0;
  if (std::sscanf(copy.c_str(), "%4d-%2d-%2d%n", &y, &mo, &d, &consumed) != 3 || consumed != 10) {
    return std::nullopt;
  }
  std::string_view rest = std::string_view(copy).substr(10);
  long offset = 0;
  if (!rest.empty()) {
    if (rest.front() != 'T' && rest.front() != ' ') return std::nullopt;
    int c2 = 0;
    std::string tail(rest.substr(1));
    if (std::sscanf(tail.c_str(), "%2d:%2d:%2d%n", &h, &mi, &s, &c2) != 3 || c2 != 8) return std::nullopt;
    std::string_view zone = std::string_view(tail).substr(8);
    if (!zone.empty() && zone.front() == '.') {  // fractional seconds are dropped
      std::size_t i = 1;
      while (i < zone.size() && zone[i] >= '0' && zone[i] <= '9') ++i;
      zone = zone.substr(i);
    }
    if (zone == "Z" || zone.empty()) {
      offset = 0;
    } else if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':') {
      int oh = 0, om = 0;
      std::string z(zone);
      if (std::sscanf(z.c_str() + 1, "%2d:%2d", &oh, &om) != 2 || oh > 23 || om > 59) return std::nullopt;
      offset = (oh * 3600L + om * 60L) * (zone[0] == '-' ? -1 : 1);
    } else {
      return std::nullopt;
    }
  }
  date::year_month_day ymd{date::year{y}, date::month{static_cast<unsigned>(mo)},
                           date::day{static_cast<unsigned>(d)}};
  if (!ymd.ok() || h > 23 || mi > 59 || s > 60) return std::nullopt;
  auto tp = date::sys_days{ymd} + std::chrono::hours{h} + std::chrono::minutes{mi} +
            std::chrono::seconds{s} - std::chrono::seconds{offset};
  return TimePoint{std::chrono::duration_cast<TimePoint::duration>(tp.time_since_epoch())};
}

}  // namespace mediagen
