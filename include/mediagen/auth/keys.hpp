#pragma once
// API keys: generation, lookup by hash, creation and disabling (the operator CLI's part).
// Keys are 256-bit random secrets shown once; only their SHA-256 is stored.
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/auth/principal.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::auth {

inline constexpr std::string_view kKeyPrefix = "mg_";

// "mg_" followed by 43 base64url characters (32 random bytes).
std::string generate_key();

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
