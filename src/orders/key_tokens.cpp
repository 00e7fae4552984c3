#include "key_tokens.hpp"

#include <chrono>

#include "mediagen/core/log.hpp"
#include "refused.hpp"

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

KeyTokens::KeyTokens(cache::Redis& redis, const Caller& caller) : redis_(redis), caller_(caller) {
  const auto& t = caller.principal.limits.tokens;
  windows_ = {.per_minute = t.per_minute, .per_hour = t.per_hour, .per_day = t.per_day, .per_month = t.per_month};
}

KeyTokens::~KeyTokens() {
  if (counted_ <= 0 || kept_) return;
  try {
    cache::refund_tokens(redis_, caller_.redis_prefix, caller_.principal.key_id, windows_, counted_, at_);
  } catch (const std::exception& e) {
    // A window slightly over-counted until it ends is better than failing the answer.
    log::warn("could not give back counted tokens", {{"error", e.what()}});
  }
}

void KeyTokens::take(db::Db& db, pqxx::work& tx, std::int64_t tokens) {
  if (tokens <= 0) return;
  if (!windows_checked_) {
    at_ = std::chrono::system_clock::now();
    const auto d = cache::check_and_add_tokens(redis_, caller_.redis_prefix, caller_.principal.key_id, windows_, tokens, at_);
    if (!d.allowed()) throw Refused{cache::token_quota_exceeded(*d.refusal)};
    windows_checked_ = true;
    if (windows_.any()) counted_ = tokens;
  }
  const auto key = caller_.principal.key_id.value;
  if (caller_.principal.limits.tokens.quota && db.exec(tx, kKeyPool, key, tokens).empty()) {
    const auto s = db.exec(tx, kKeyPoolState, key);
    throw Refused{ApiError::token_pool_exhausted(s[0][0].as<std::int64_t>(), s[0][1].as<std::int64_t>(), tokens)};
  }
}

}  // namespace mediagen::orders
