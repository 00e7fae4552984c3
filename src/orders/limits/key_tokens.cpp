#include "mediagen/orders/limits.hpp"

#include <chrono>

#include "key_pool_store.hpp"

namespace mediagen::orders {

KeyTokens::KeyTokens(const Caller& caller) : caller_(caller) {
  const auto& t = caller.principal.limits.tokens;
  windows_ = {.per_minute = t.per_minute, .per_hour = t.per_hour, .per_day = t.per_day, .per_month = t.per_month};
}

std::optional<ApiError> KeyTokens::take(db::Db& db, db::Tx& tx, std::int64_t tokens) const {
  if (tokens <= 0) return std::nullopt;
  const TimePoint now = std::chrono::system_clock::now();
  if (auto refusal = take_window_tokens(db, tx, caller_.principal.key_id, windows_, tokens, now)) {
    return token_quota_exceeded(*refusal);
  }
  if (!caller_.principal.limits.tokens.quota) return std::nullopt;
  if (auto full = take_from_key_pool(db, tx, caller_.principal.key_id, tokens)) {
    return ApiError::token_pool_exhausted(full->limit, full->used, tokens);
  }
  return std::nullopt;
}

}  // namespace mediagen::orders
