#include "mediagen/auth/keys.hpp"
#include "mediagen/core/ascii.hpp"
#include "stages.hpp"

namespace mediagen::http::stages {

namespace {

// The key as the route takes it: X-API-KEY alone on the spec's API (Authorization and Api-Key are
// ignored there, spec 5.2); "Authorization: Bearer <key>" alone on a Bearer route; xi-api-key
// alone on the ElevenLabs-compatible routes.
KeyHeader key_source(const RequestContext& ctx) {
  if (!ctx.route) return KeyHeader::x_api_key;
  if (ctx.route->key_header != KeyHeader::bearer_or_xi_api_key) return ctx.route->key_header;
  return ctx.request.header("xi-api-key") ? KeyHeader::xi_api_key : KeyHeader::bearer;
}

std::optional<std::string_view> key_text(const RequestContext& ctx) {
  const KeyHeader source = key_source(ctx);
  if (source == KeyHeader::x_api_key) return ctx.request.header("X-API-KEY");
  if (source == KeyHeader::xi_api_key) return ctx.request.header("xi-api-key");
  auto value = ctx.request.header("Authorization");
  constexpr std::string_view kScheme = "bearer ";
  if (!value || value->size() < kScheme.size() || !iequals_ascii(value->substr(0, kScheme.size()), kScheme)) {
    return std::nullopt;
  }
  std::string_view key = value->substr(kScheme.size());
  while (!key.empty() && key.front() == ' ') key.remove_prefix(1);
  while (!key.empty() && key.back() == ' ') key.remove_suffix(1);
  return key;
}

std::string_view key_header_name(const RequestContext& ctx) {
  switch (key_source(ctx)) {
    case KeyHeader::x_api_key: return "X-API-KEY";
    case KeyHeader::xi_api_key: return "xi-api-key";
    default: return "Authorization";
  }
}

// A value that cannot be one of our keys is invalid at once: no hash, no cache entry, no query.
Result<std::string_view> presented_key(const RequestContext& ctx, InfraCounters& counters) {
  auto key = key_text(ctx);
  if (!key || key->empty()) return ApiError::api_key_missing();
  // Two keys in one request: which one would be meant is anyone's guess.
  if (!auth::is_key_shaped(*key) || ctx.request.header_count(key_header_name(ctx)) > 1) {
    counters.keys_malformed.fetch_add(1, std::memory_order_relaxed);
    return ApiError::api_key_invalid();
  }
  return *key;
}

Result<void> admit(RequestContext& ctx, std::shared_ptr<const auth::Principal> principal, TimePoint now) {
  if (!principal || principal->key_disabled || principal->user_blocked) return ApiError::api_key_invalid();
  if (principal->expires_at && *principal->expires_at <= now) return ApiError::api_key_expired();
  ctx.principal = std::move(principal);
  return {};
}

}  // namespace

std::optional<Result<void>> authenticate_cached(RequestContext& ctx, const auth::KeyCache& keys,
                                                InfraCounters& counters, TimePoint now) {
  auto key = presented_key(ctx, counters);
  if (!key) return Result<void>(key.error());
  auto cached = keys.find(crypto::sha256(*key));
  if (!cached) return std::nullopt;
  counters.key_cache_hits.fetch_add(1, std::memory_order_relaxed);
  return admit(ctx, std::move(*cached), now);
}

awaitable<Result<void>> authenticate_slow(RequestContext& ctx, auth::KeyCache& keys, auth::UnknownKeyBudget& budget,
                                          db::BlockingPool& pool, InfraCounters& counters, TimePoint now) {
  // Reached only after authenticate_cached, which refused every key of the wrong shape.
  auto key = key_text(ctx);
  if (!key) co_return ApiError::api_key_missing();
  const auto digest = crypto::sha256(*key);
  // An address that keeps presenting keys nobody issued waits, before PostgreSQL is asked.
  if (const auto wait = budget.refusal(ctx.client_ip, digest, now); wait > 0) {
    co_return ApiError::too_many_unknown_keys(wait);
  }
  counters.key_cache_misses.fetch_add(1, std::memory_order_relaxed);
  // Taken before the read: an invalidation that lands while it runs keeps its answer out.
  const auto ticket = keys.begin_read();
  auto lookup = [digest](db::Resources& r) { return auth::find_key_by_hash(r.db, digest); };
  auto found = co_await pool.run(std::move(lookup));
  std::shared_ptr<const auth::Principal> principal;
  if (found) {
    principal = std::make_shared<const auth::Principal>(std::move(*found));
    budget.found(digest);
  } else {
    budget.not_found(ctx.client_ip, now);
  }
  keys.put(digest, principal, ticket);
  co_return admit(ctx, std::move(principal), now);
}

Result<void> authorize(const RequestContext& ctx) {
  if (ctx.route->access != Access::scope) return {};
  if (ctx.principal->scopes.allows(ctx.route->scope)) return {};
  return ApiError::permission_denied(auth::to_string(ctx.route->scope));
}

}  // namespace mediagen::http::stages
