#pragma once
// Messages on "<prefix>keys:invalidate" that tell every running instance to drop cached keys
// at once: "key <sha256 hex>" after a key is disabled, "user <id>" after a user is (un)blocked.
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "mediagen/core/crypto.hpp"
#include "mediagen/core/ids.hpp"

namespace mediagen::app {

inline std::string invalidation_channel(const std::string& prefix) { return prefix + "keys:invalidate"; }

using Invalidation = std::variant<crypto::Sha256Digest, UserId>;

std::string format_invalidation(const Invalidation& what);
// Fan-out messages are untrusted: strict format, nullopt otherwise.
std::optional<Invalidation> parse_invalidation(std::string_view payload);

}  // namespace mediagen::app
