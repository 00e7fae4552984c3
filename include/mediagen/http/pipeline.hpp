#pragma once
// The public request pipeline (ARCHITECTURE.md): each stage can answer early.
//   0 barrier      locale, time zone, metrics; exceptions -> 500/503 (logged, never shown)
//   1 ip_ban       in-process ban list, before anything else -> 429 ip_banned
//   2 route_match  404 endpoint_not_found (+ a miss on the ban ladder) | 405 with Allow
//   3 body_size    declared body over the route's cap -> 413 before the body is read
//   4 authenticate X-API-KEY only; key cache, PostgreSQL on a miss -> 401; an address past its
//                  budget of unknown keys -> 429 too_many_unknown_keys before the lookup
//     exists_for   a route that exists only for some accounts -> the 404 of an unknown path
//                  (not counted toward the ban ladder)
//   5 authorize    the route's permission -> 403, before any logic
//   6 rate_limit   the key's request windows, one Redis round trip -> 429
//   7 body         read the body, parse JSON -> 413 / 422; an upload: per-key cap -> 429, budget
//                  -> 503, pace -> 408
//   8 handler      then the envelope
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/auth/key_cache.hpp"
#include "mediagen/auth/unknown_key_budget.hpp"
#include "mediagen/cache/ban_ladder.hpp"
#include "mediagen/cache/local_rate.hpp"
#include "mediagen/core/clock.hpp"
#include "mediagen/core/counters.hpp"
#include "mediagen/http/exchange.hpp"
#include "mediagen/http/metrics.hpp"
#include "mediagen/http/router.hpp"
#include "mediagen/http/uploads.hpp"

namespace mediagen::db {
class BlockingPool;
}

namespace mediagen::http {

struct PipelineOptions {
  std::vector<std::string> trusted_proxies;
  std::string docs_url;
  std::string developers_url;
  std::string redis_prefix;
  UploadOptions uploads;
};

struct PipelineDeps {
  const Router& router;
  Metrics& metrics;
  const Clock& clock;
  cache::BanList& bans;
  const cache::BanLadder& ladder;
  auth::KeyCache& keys;
  auth::UnknownKeyBudget& unknown_keys;  // failed lookups per client address
  db::BlockingPool& pool;
  InfraCounters& counters;
  cache::LocalRateWindows& local_rates;  // request windows while Redis cannot be asked
};

class Pipeline final : public ExchangeHandler {
 public:
  Pipeline(PipelineDeps deps, PipelineOptions options)
      : deps_(deps), options_(std::move(options)), uploads_(options_.uploads, deps_.clock) {}

  boost::asio::awaitable<Response> handle(Exchange& exchange) override;
  Response refuse(int status) override;
  const Uploads& uploads() const noexcept { return uploads_; }

 private:
  boost::asio::awaitable<Response> run(Exchange& exchange, struct RequestContext& ctx);
  PipelineDeps deps_;
  PipelineOptions options_;
  Uploads uploads_;
};

// The client's address: the peer; or, when the peer is a trusted proxy, the rightmost
// X-Forwarded-For entry that is not a trusted proxy (the leftmost when all are). An entry passed
// on the way that does not look like an address makes it the peer. Shared by the pipeline and
// the WebSocket endpoint.
std::string resolve_client_ip(std::string_view peer, std::optional<std::string_view> forwarded_for,
                              const std::vector<std::string>& trusted_proxies);

}  // namespace mediagen::http
