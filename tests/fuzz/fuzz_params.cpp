// Request parameters (input: line 1 an X-Timezone value, line 2 an X-Locale value, line 3 a
// query string, line 4 an ISO 8601 time as the admin commands read one). Properties:
//   - a time zone that parses is known by its canonical name, which parses to itself, and
//     formats as 25 characters that parse_iso8601 reads back to the same second;
//   - parse_iso8601 round-trips through the UTC format;
//   - parse_locale is Russian exactly for "ru" (any case) alone or before '-' or '_';
//   - every query value, as an integer parameter under the bounds the list routes use and under
//     extreme ones, is accepted exactly when it is an optionally negative run of decimal digits
//     within the bounds (checked against a 128-bit reference), with the matching 422 otherwise;
//   - the list filters (GET /orders, /templates/browse, /voices, the preview reads): enum
//     values that parse print back as themselves; a uuid is 36 characters.
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "mediagen/core/capacity_unit.hpp"
#include "mediagen/core/message.hpp"
#include "mediagen/core/time_zone.hpp"
#include "mediagen/core/uuid.hpp"
#include "mediagen/http/query.hpp"
#include "mediagen/orders/text.hpp"
#include "mediagen/orders/order.hpp"

namespace {

using namespace mediagen;
using mediagen::fuzz::Lines;
using http::IntegerBounds;

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

// The bounds of the list routes' paging parameters, and extremes.
const IntegerBounds kBounds[] = {
    {.fallback = 1, .min = 1, .max = std::nullopt},       // page (orders, templates, voices shape 1)
    {.fallback = 20, .min = 1, .max = 100},               // per_page (orders)
    {.fallback = 0, .min = 0, .max = std::nullopt},       // page (voices shape 2)
    {.fallback = 1, .min = 1, .max = 1'000'000},          // page (preview)
    {.fallback = 0, .min = kMin, .max = kMax},
    {.fallback = -5, .min = -10, .max = -1},
};

// What parse_integer must answer, computed independently: nullopt when not an integer.
std::optional<__int128> reference_integer(std::string_view text) {
  bool negative = false;
  if (!text.empty() && text.front() == '-') {
    negative = true;
    text.remove_prefix(1);
  }
  if (text.empty()) return std::nullopt;
  __int128 value = 0;
  const __int128 cap = static_cast<__int128>(1) << 100;  // beyond int64 either way; saturates
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    if (value < cap) value = value * 10 + (c - '0');
  }
  return negative ? -value : value;
}

std::string first_key(const ApiError& e) {
  return e.fields.empty() || e.fields[0].messages.empty() ? std::string() : e.fields[0].messages[0].key;
}

void check_integer(std::string_view text) {
  for (const auto& bounds : kBounds) {
    const auto r = http::parse_integer("n", text, bounds);
    if (text.empty()) {
      FUZZ_CHECK(r && *r == bounds.fallback);
      continue;
    }
    const auto expected = reference_integer(text);
    if (!expected) {
      FUZZ_CHECK(!r && r.error().status == 422 && first_key(r.error()) == "validation.integer");
      continue;
    }
    const bool in_range = *expected >= bounds.min && (!bounds.max || *expected <= *bounds.max) &&
                          *expected <= kMax;
    FUZZ_CHECK(r.has_value() == in_range);
    if (r) FUZZ_CHECK(*r == *expected);
    else FUZZ_CHECK(r.error().status == 422 && first_key(r.error()) != "validation.integer");
  }
}

void check_query(std::string_view raw) {
  const auto q = http::Query::parse(raw);
  for (const auto& item : q.items()) {
    FUZZ_CHECK(!item.name.empty());
    FUZZ_CHECK(q.get(item.name).has_value());
    check_integer(item.value);
  }
  const auto page = http::integer_param(q, "page", kBounds[0]);
  const auto per_page = http::integer_param(q, "per_page", kBounds[1]);
  const auto error = http::combined_error({&page, &per_page});
  FUZZ_CHECK(error.has_value() == (!page || !per_page));
  if (auto id = q.get("template_id"); id && is_uuid(*id)) FUZZ_CHECK(id->size() == 36);
  if (auto s = q.get("status")) {
    if (auto status = orders::order_status_from_string(*s)) FUZZ_CHECK(orders::to_string(*status) == *s);
  }
  if (auto m = q.get("generation_mode")) {
    if (auto mode = orders::generation_mode_from_string(*m)) FUZZ_CHECK(orders::to_string(*mode) == *m);
  }
  if (auto u = q.get("capacity_unit")) {
    if (auto unit = capacity_unit_from_string(*u)) FUZZ_CHECK(to_string(*unit) == *u);
  }
  for (auto type : q.all("task_type")) (void)type;
}

// Formatted in UTC and read back, when the year prints as itself (format writes 0000 outside
// 0000..9999).
void check_round_trip(TimePoint t) {
  const auto secs = std::chrono::floor<std::chrono::seconds>(t);
  const std::string text = TimeZone::utc().format(t);
  FUZZ_CHECK(text.size() == 25);
  if (text.starts_with("0000")) return;
  const auto back = parse_iso8601(text);
  FUZZ_CHECK(back && *back == secs);
}

void check_zone(std::string_view name) {
  const auto tz = TimeZone::parse(name);
  if (!tz) return;
  const auto again = TimeZone::parse(tz->name());
  FUZZ_CHECK(again && again->name() == tz->name());
  for (const TimePoint t : {TimePoint{}, TimePoint{std::chrono::seconds{1795380285}}}) {
    const std::string text = tz->format(t);
    FUZZ_CHECK(text.size() == 25);
    const auto back = parse_iso8601(text);
    FUZZ_CHECK(back && *back == t);
  }
}

void check_locale(std::string_view header) {
  const Locale locale = parse_locale(header);
  const bool ru = header.size() >= 2 && (header[0] == 'r' || header[0] == 'R') &&
                  (header[1] == 'u' || header[1] == 'U') &&
                  (header.size() == 2 || header[2] == '-' || header[2] == '_');
  FUZZ_CHECK((locale == Locale::ru) == ru);
  FUZZ_CHECK(locale_code(locale) == (ru ? "ru" : "en"));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Lines lines{mediagen::fuzz::as_text(data, size)};
  std::string_view line;
  if (lines.next(line)) check_zone(line);
  if (lines.next(line)) check_locale(line);
  if (lines.next(line)) check_query(line);
  if (lines.next(line)) {
    if (auto t = parse_iso8601(line)) check_round_trip(*t);
  }
  return 0;
}
