#pragma once
// Messages on "<prefix>keys:invalidate" that tell every running instance to drop what it cached
// at once: "key <sha256 hex>" after a key is disabled, "user <id>" (its keys) after a user is
// (un)blocked, "profile <id>" (its GET /user profile) after a commit changed the profile.
// They travel signed (core/signed_message.hpp) with a key derived from MEDIAGEN_SECRET, which
// the servers and the operator CLI that publish them share: an unsigned one is dropped.
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "mediagen/core/config.hpp"
#include "mediagen/core/crypto.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/core/signed_message.hpp"

namespace mediagen::app {

inline std::string invalidation_channel(const std::string& prefix) { return prefix + "keys:invalidate"; }

// The profile of a user, as opposed to UserId (the user's keys).
struct ProfileOf {
  UserId user;
  bool operator==(const ProfileOf&) const = default;
};

using Invalidation = std::variant<crypto::Sha256Digest, UserId, ProfileOf>;

// The label of the invalidations' key, distinct from every other key derived from the secret.
inline constexpr std::string_view kInvalidationKeyLabel = "mediagen key invalidation v1";
// A signed invalidation is at most 64 + 1 + 68 bytes; a longer payload is not read.
inline constexpr std::size_t kMaxInvalidationBytes = 64 + 1 + 68;

// The signer of invalidations under the shared secret (settings.hpp, fanout_secret).
MessageSigner invalidation_signer(std::string_view secret);

// The message, before signing.
std::string format_invalidation(const Invalidation& what);
// Redis is shared, so a message is untrusted: strict format (a key's 64 hex digits, or a user id
// in [1, 2^63 - 1] in at most 20 digits with no leading zero), nullopt otherwise.
std::optional<Invalidation> parse_invalidation(std::string_view message);

// The operator CLI's publication of one message (publish_invalidation.cpp). A server that misses
// it still drops the entry within its cache's TTL, so a failure is a warning on stderr.
void publish_invalidation(const Config& config, const Invalidation& what);

}  // namespace mediagen::app
