#pragma once
// Messages on "<prefix>keys:invalidate" that tell every running instance to drop cached keys
// at once: "key <sha256 hex>" after a key is disabled, "user <id>" after a user is (un)blocked.
// They travel signed (core/signed_message.hpp) with a key derived from MEDIAGEN_SECRET, which
// the operator CLI that publishes them shares with the servers: an unsigned one is dropped.
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "mediagen/core/crypto.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/core/signed_message.hpp"

namespace mediagen::app {

inline std::string invalidation_channel(const std::string& prefix) { return prefix + "keys:invalidate"; }

using Invalidation = std::variant<crypto::Sha256Digest, UserId>;

// The label of the invalidations' key, distinct from every other key derived from the secret.
inline constexpr std::string_view kInvalidationKeyLabel = "mediagen key invalidation v1";
// A signed invalidation is at most 64 + 1 + 68 bytes; a longer payload is not read.
inline constexpr std::size_t kMaxInvalidationBytes = 64 + 1 + 68;

// The signer of invalidations under the shared secret (settings.hpp, fanout_secret).
MessageSigner invalidation_signer(std::string_view secret);

// The message, before signing.
std::string format_invalidation(const Invalidation& what);
// Redis is shared, so a message is untrusted: strict format (a key's 64 hex digits, or a user id
// in [1, 2^63 - 1] in at most 20 digits), nullopt otherwise.
std::optional<Invalidation> parse_invalidation(std::string_view message);

}  // namespace mediagen::app
