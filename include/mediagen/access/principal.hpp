#pragma once
// Who is calling: the API key as resolved from its hash, with its owner and limits.
#include <cstdint>
#include <optional>
#include <string>

#include "mediagen/access/scopes.hpp"
#include "mediagen/cache/rate_window.hpp"
#include "mediagen/core/clock.hpp"
#include "mediagen/core/crypto.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/core/message.hpp"

namespace mediagen::auth {

struct TokenLimits {
  std::optional<std::int64_t> per_minute, per_hour, per_day, per_month;
  std::optional<std::int64_t> quota;  // a pool that never resets
};

struct KeyLimits {
  cache::RateWindows requests;
  TokenLimits tokens;
  std::optional<std::int64_t> ai_monthly_limit_minor;
};

struct Principal {
  ApiKeyId key_id;
  UserId user_id;
  crypto::Sha256Digest key_hash{};
  std::string key_name;
  std::string key_prefix;  // first characters of the key, safe to show
  ScopeSet scopes;
  KeyLimits limits;
  std::optional<TimePoint> expires_at;
  TimePoint created_at;
  bool key_disabled = false;
  bool user_blocked = false;
  Locale user_locale = Locale::en;
  // GET /key's data in UTC, rendered once when the key is loaded (keys without a token pool).
  std::string description_utc;
};

}  // namespace mediagen::auth
