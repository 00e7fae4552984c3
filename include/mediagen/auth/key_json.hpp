#pragma once
#include <nlohmann/json_fwd.hpp>

#include "mediagen/auth/principal.hpp"
#include "mediagen/core/time_zone.hpp"

namespace mediagen::auth {

// The public description of a key (never its secret): GET /key and `admin key create`.
nlohmann::ordered_json key_json(const Principal& key, const TimeZone& tz);

}  // namespace mediagen::auth
