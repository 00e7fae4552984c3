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

awaitable<ApiError> unknown_path(RequestContext& ctx, db::BlockingPool& pool, cache::BanList& bans,
                                 const cache::BanLadder& ladder, TimePoint now, const NotFoundInfo& info) {
  const auto& opts = ladder.options();
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
  std::int64_t left = miss.ban ? 0 : std::max<std::int64_t>(0, opts.threshold - miss.misses);
  std::string_view raw_path = ctx.request.target().substr(0, ctx.request.target().find('?'));
  co_return ApiError::endpoint_not_found(ctx.request.method_text(), raw_path, info.docs_url, info.developers_url,
                                         left, opts.threshold, std::max<std::int64_t>(1, opts.window_seconds / 60));
}

Result<void> check_body_size(const RequestContext& ctx, const Exchange& exchange) {
  if (!exchange.has_body()) return {};
  auto declared = exchange.content_length();
  if (declared && *declared > ctx.route->body_limit) return ApiError::payload_too_large();
  return {};
}

}  // namespace mediagen::http::stages
