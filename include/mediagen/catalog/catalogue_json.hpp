#pragma once
// The catalogue's HTTP shapes (spec 2.8, 4.7) and the request headers that choose them. Pure
// functions of a loaded Catalogue: what the handlers and the unit tests call.
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/catalog/catalogue.hpp"
#include "mediagen/core/time_zone.hpp"

namespace mediagen::catalog {

// The currency of the `*_display` values (the list's `display_currency`).
struct Display {
  std::string code;
  std::optional<std::string> symbol;
  int precision = 2;
  bool available = true;  // false: no rate, every `*_display` is null
  double rate = 1.0;      // display units per platform unit
};

// X-Display-Currency: three ASCII letters, any case, blanks around ignored -> the uppercase code.
// Anything else is treated as if the header were absent (as an invalid X-Timezone yields UTC):
// nullopt.
std::optional<std::string> parse_display_currency(std::string_view header);

// Absent: the platform currency itself. A code without a rate: available false.
Display choose_display(const Catalogue& catalogue, const std::optional<std::string>& requested);

// The strong ETag of a representation: the catalogue version and the display currency, and the
// caller's time zone unless UTC (the asset's times are written in it), quoted.
std::string etag(std::string_view version, const Display& display, const TimeZone& tz = TimeZone::utc());

// If-None-Match (RFC 9110 13.1.2): "*" or a comma-separated list of entity tags, compared weakly
// (W/ ignored). A malformed list matches nothing from the first bad tag on, so it gets a 200.
bool if_none_match(std::string_view header, std::string_view current_etag);

// `data` of GET /ai/models and of GET /ai/models/{key} (one entry, no display_currency).
std::string list_json(const Catalogue& catalogue, const Display& display, const TimeZone& tz);
std::string entry_json(const Catalogue& catalogue, const Model& model, const Display& display, const TimeZone& tz);

// `minor` of the platform currency in the display currency, rounded to its precision.
double display_amount(std::int64_t minor, int asset_precision, const Display& display);

}  // namespace mediagen::catalog
