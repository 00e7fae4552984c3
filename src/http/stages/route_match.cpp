#include "mediagen/cache/redis.hpp"
#include "mediagen/core/log.hpp"
#include "stages.hpp"

namespace mediagen::http::stages {

bool match_route(RequestContext& ctx, const Router& router, std::optional<ApiError>& refusal) {
  auto result = router.match(ctx.request.method(), ctx.path);
  if (auto* m = std::get_if<RouteMatch>(&result)) {
    ctx.route = m->route;
    ctx.params = std::move(m->params);
    return true;
  }
  if (auto* na = std::get_if<MethodNotAllowed>(&result)) refusal = ApiError::method_not_allowed(std::move(na->allow));
  return false;
}

namespace {

// The 404 of an unknown path, with the misses the client has left before a ban.
ApiError not_found(const RequestContext& ctx, const cache::BanLadder& ladder, const NotFoundInfo& info,
                   std::int64_t misses) {
  const auto& opts = ladder.options();
  const std::int64_t left = std::max<std::int64_t>(0, opts.threshold - misses);
  std::string_view raw_path = ctx.request.target().substr(0, ctx.request.target().find('?'));
  return ApiError::endpoint_not_found(ctx.request.method_text(), raw_path, info.docs_url, info.developers_url, left,
                                      opts.threshold, std::max<std::int64_t>(1, opts.window_seconds / 60));
}

}  // namespace

awaitable<ApiError> unknown_path(RequestContext& ctx, db::BlockingPool& pool, cache::BanList& bans,
                                 const cache::BanLadder& ladder, TimePoint now, const NotFoundInfo& info) {
  cache::MissOutcome miss;
  // Named before the co_await: GCC 12 mishandles lambda temporaries inside co_await expressions.
  auto record = [&ladder, ip = ctx.client_ip, now](db::Resources& r) { return ladder.record_miss(r.redis, ip, now); };
  try {
    miss = co_await pool.run(std::move(record));
  } catch (const std::exception& e) {
    // Without Redis the miss goes uncounted; the client still gets its 404.
    log::warn("ban ladder unavailable", {{"error", e.what()}});
  }
  if (miss.ban) {
    bans.prune(now);
    bans.put(ctx.client_ip, *miss.ban);
  }
  co_return not_found(ctx, ladder, info, miss.ban ? ladder.options().threshold : miss.misses);
}

awaitable<ApiError> hidden_path(RequestContext& ctx, db::BlockingPool& pool, const cache::BanLadder& ladder,
                                const NotFoundInfo& info) {
  std::int64_t misses = 0;
  auto peek = [&ladder, ip = ctx.client_ip](db::Resources& r) { return ladder.misses(r.redis, ip); };
  try {
    misses = co_await pool.run(std::move(peek));
  } catch (const std::exception& e) {
    log::warn("ban ladder unavailable", {{"error", e.what()}});
  }
  co_return not_found(ctx, ladder, info, misses);
}

Result<void> check_body_size(const RequestContext& ctx, const Exchange& exchange) {
  if (!exchange.has_body()) return {};
  auto declared = exchange.content_length();
  if (declared && *declared > ctx.route->body_limit) return ApiError::payload_too_large();
  return {};
}

}  // namespace mediagen::http::stages
