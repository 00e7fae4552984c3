#pragma once
#include <string>

#include "mediagen/access/principal.hpp"
#include "mediagen/core/time_zone.hpp"

namespace mediagen::auth {

// The public description of a key (never its secret), as a JSON object: GET /key and
// `admin key create`. `quota_used` fills limits.tokens.quota {limit, used, remaining} when the
// key has a token pool; without one the quota is null.
std::string key_json(const Principal& key, const TimeZone& tz, std::int64_t quota_used);

}  // namespace mediagen::auth
