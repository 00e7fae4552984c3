#include "key_tokens.hpp"

#include <chrono>

#include "mediagen/core/log.hpp"
#include "key_pool_store.hpp"

namespace mediagen::orders {
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

std::optional<ApiError> KeyTokens::take(db::Db& db, db::Tx& tx, std::int64_t tokens) {
  if (tokens <= 0) return std::nullopt;
  if (!windows_checked_) {
    at_ = std::chrono::system_clock::now();
    const auto d = cache::check_and_add_tokens(redis_, caller_.redis_prefix, caller_.principal.key_id, windows_, tokens, at_);
    if (!d.allowed()) return cache::token_quota_exceeded(*d.refusal);
    windows_checked_ = true;
    if (windows_.any()) counted_ = tokens;
  }
  if (!caller_.principal.limits.tokens.quota) return std::nullopt;
  if (auto full = take_from_key_pool(db, tx, caller_.principal.key_id, tokens)) {
    return ApiError::token_pool_exhausted(full->limit, full->used, tokens);
  }
  return std::nullopt;
}

}  // namespace mediagen::orders
