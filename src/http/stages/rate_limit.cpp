#include "mediagen/cache/redis.hpp"
#include "mediagen/core/log.hpp"
#include "stages.hpp"

namespace mediagen::http::stages {

awaitable<Result<void>> rate_limit(RequestContext& ctx, db::BlockingPool& pool, cache::LocalRateWindows& local,
                                   const std::string& prefix, TimePoint now) {
  const auto& windows = ctx.principal->limits.requests;
  if (!windows.any()) co_return Result<void>{};  // no windows, no limit, no round trip (spec 8.2.1)
  const std::int64_t key_id = ctx.principal->key_id.value;
  std::optional<cache::RateDecision> shared;
  if (!local.redis_resting(now)) {
    auto count = [&prefix, key_id, windows, now](db::Resources& r) {
      return cache::check_rate(r.redis, prefix, key_id, windows, now);
    };
    try {
      shared = co_await pool.run(std::move(count));
    } catch (const std::exception& e) {
      log::warn("rate limiter unavailable: this instance counts its share of the windows",
                {{"error", e.what()}, {"instances", local.instances()}});
      local.redis_failed(now);
    }
  }
  const cache::RateDecision d = shared ? *shared : local.check(key_id, windows, now);
  ctx.response_headers.emplace_back("X-RateLimit-Limit", std::to_string(d.limit));
  ctx.response_headers.emplace_back("X-RateLimit-Remaining", std::to_string(std::max<std::int64_t>(0, d.remaining)));
  ctx.response_headers.emplace_back("X-RateLimit-Reset", std::to_string(d.reset_after));
  if (!d.allowed) co_return ApiError::rate_limited(std::max<std::int64_t>(1, d.retry_after));
  co_return Result<void>{};
}

}  // namespace mediagen::http::stages
