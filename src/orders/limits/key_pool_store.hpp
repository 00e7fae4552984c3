#pragma once
// The SQL of a key's token pool (api_keys.tokens_quota_*), taken inside the operation's
// transaction so a refused or rolled-back operation counts nothing.
#include <cstdint>
#include <optional>

#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::orders {

struct KeyPoolState {
  std::int64_t limit = 0;
  std::int64_t used = 0;
};

// Adds `tokens` to the key's pool when they fit; otherwise changes nothing and returns the
// pool's state for the refusal.
std::optional<KeyPoolState> take_from_key_pool(db::Db& db, db::Tx& tx, ApiKeyId key, std::int64_t tokens);

}  // namespace mediagen::orders
