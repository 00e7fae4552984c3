// The SQL of a key's token pool (see key_pool_store.hpp).
#include "key_pool_store.hpp"

#include "mediagen/db/pg.hpp"

namespace mediagen::orders {
namespace {

const db::Statement kKeyPool{
    "orders_key_pool",
    "UPDATE api_keys SET tokens_quota_used = tokens_quota_used + $2"
    " WHERE id = $1 AND (tokens_quota_limit IS NULL OR tokens_quota_used + $2 <= tokens_quota_limit)"
    " RETURNING tokens_quota_used"};
const db::Statement kKeyPoolState{
    "orders_key_pool_state", "SELECT COALESCE(tokens_quota_limit, 0), tokens_quota_used FROM api_keys WHERE id = $1"};

}  // namespace

std::optional<KeyPoolState> take_from_key_pool(db::Db& db, db::Tx& tx, ApiKeyId key, std::int64_t tokens) {
  if (!db.exec(tx, kKeyPool, key.value, tokens).empty()) return std::nullopt;
  const auto s = db.exec(tx, kKeyPoolState, key.value);
  return KeyPoolState{s[0][0].as<std::int64_t>(), s[0][1].as<std::int64_t>()};
}

}  // namespace mediagen::orders
