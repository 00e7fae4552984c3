#pragma once
// A grant as kept in Redis for the instance that holds the socket:
// "<key id> <user id> <sha256 hex of the key> <expiry in ms since the epoch, 0 for none>".
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/realtime/grant.hpp"

namespace mediagen::realtime {

std::string format_grant_record(const Grant& grant);
std::optional<Grant> parse_grant_record(std::string_view socket_id, std::string_view channel, std::string_view text);

}  // namespace mediagen::realtime
