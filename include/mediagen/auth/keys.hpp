#pragma once
// API keys: generation, lookup by hash, creation and disabling (the operator CLI's part).
// Keys are 256-bit random secrets shown once; only their SHA-256 is stored.
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/access/principal.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::auth {

inline constexpr std::string_view kKeyPrefix = "mg_";

// "mg_" followed by 43 base64url characters (32 random bytes).
std::string generate_key();

// Whether text has the shape generate_key() gives. Anything else is refused before it is hashed
// or looked up, so random input costs neither a query nor a place in the key cache.
constexpr bool is_key_shaped(std::string_view text) noexcept {
  constexpr std::size_t kBody = 43;
  if (text.size() != kKeyPrefix.size() + kBody || text.substr(0, kKeyPrefix.size()) != kKeyPrefix) return false;
  for (char c : text.substr(kKeyPrefix.size())) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

struct NewKey {
  UserId user;
  ScopeSet scopes;
  std::string name;
  std::optional<TimePoint> expires_at;
  KeyLimits limits;
};

struct CreatedKey {
  Principal key;
  std::string plaintext;
};

std::optional<Principal> find_key_by_hash(db::Db& db, const crypto::Sha256Digest& digest);
// Throws std::invalid_argument when the user does not exist.
CreatedKey create_key(db::Db& db, const NewKey& request);
// nullopt when no such key.
std::optional<Principal> disable_key(db::Db& db, ApiKeyId id);
// Tokens taken from the key's pool so far (limits.tokens.quota).
std::int64_t token_quota_used(db::Db& db, ApiKeyId id);

}  // namespace mediagen::auth
