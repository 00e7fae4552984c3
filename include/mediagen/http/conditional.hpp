#pragma once
// Conditional requests (RFC 9110 13.1.2).
#include <string_view>

namespace mediagen::http {

// If-None-Match: "*" or a comma-separated list of entity tags, compared weakly (a W/ prefix is
// ignored) with `current_etag` (quoted). A malformed list matches nothing, so the client gets the
// full answer.
bool if_none_match(std::string_view header, std::string_view current_etag);

}  // namespace mediagen::http
