#include "mediagen/auth/keys.hpp"
#include "stages.hpp"

namespace mediagen::http::stages {

awaitable<Result<void>> authenticate(RequestContext& ctx, auth::KeyCache& keys, db::BlockingPool& pool,
                                     InfraCounters& counters, TimePoint now) {
  // Only X-API-KEY counts: Authorization and Api-Key are ignored (spec 5.2).
  auto key = ctx.request.header("X-API-KEY");
  if (!key || key->empty()) co_return ApiError::api_key_missing();
  // Real keys are 46 characters; anything far longer is not worth hashing.
  if (key->size() > 256) co_return ApiError::api_key_invalid();
  const auto digest = crypto::sha256(*key);

  std::shared_ptr<const auth::Principal> principal;
  if (auto cached = keys.find(digest)) {
    counters.key_cache_hits.fetch_add(1, std::memory_order_relaxed);
    principal = std::move(*cached);
  } else {
    counters.key_cache_misses.fetch_add(1, std::memory_order_relaxed);
    auto found = co_await pool.run([digest](db::Resources& r) { return auth::find_key_by_hash(r.db, digest); });
    if (found) principal = std::make_shared<const auth::Principal>(std::move(*found));
    keys.put(digest, principal);
  }
  if (!principal || principal->key_disabled || principal->user_blocked) co_return ApiError::api_key_invalid();
  if (principal->expires_at && *principal->expires_at <= now) co_return ApiError::api_key_expired();
  ctx.principal = std::move(principal);
  co_return Result<void>{};
}

Result<void> authorize(const RequestContext& ctx) {
  if (ctx.route->access != Access::scope) return {};
  if (ctx.principal->scopes.allows(ctx.route->scope)) return {};
  return ApiError::permission_denied(auth::to_string(ctx.route->scope));
}

}  // namespace mediagen::http::stages
