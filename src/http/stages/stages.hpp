#pragma once
// The pipeline's stages, one file each; pipeline.cpp runs them in order.
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "mediagen/auth/key_cache.hpp"
#include "mediagen/auth/unknown_key_budget.hpp"
#include "mediagen/cache/ban_ladder.hpp"
#include "mediagen/cache/local_rate.hpp"
#include "mediagen/core/api_error.hpp"
#include "mediagen/core/counters.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/exchange.hpp"
#include "mediagen/http/route.hpp"
#include "mediagen/http/router.hpp"
#include "mediagen/http/uploads.hpp"
#include "json_body.hpp"

namespace mediagen::http::stages {

using boost::asio::awaitable;

// The client address: the peer, or from X-Forwarded-For when the peer is trusted (resolve_client_ip).
std::string client_ip(const Exchange& exchange, const std::vector<std::string>& trusted_proxies);

// Splits the target into a percent-decoded path and the raw query.
void split_target(std::string_view target, std::string& path, std::string_view& query);

std::optional<ApiError> check_ip_ban(const RequestContext& ctx, const cache::BanList& bans,
                                     const cache::BanLadder& ladder, TimePoint now);

struct NotFoundInfo {
  std::string docs_url;
  std::string developers_url;
};

// Matches the route: true when matched; otherwise `refusal` holds a 405, or nothing for an
// unknown path (then answer with unknown_path, which counts the miss).
bool match_route(RequestContext& ctx, const Router& router, std::optional<ApiError>& refusal);
awaitable<ApiError> unknown_path(RequestContext& ctx, db::BlockingPool& pool, cache::BanList& bans,
                                 const cache::BanLadder& ladder, TimePoint now, const NotFoundInfo& info);
// The same answer for a real path that does not exist for this account (Route::exists_for): the
// misses already counted for the client are read, not added to.
awaitable<ApiError> hidden_path(RequestContext& ctx, db::BlockingPool& pool, const cache::BanLadder& ladder,
                                const NotFoundInfo& info);

Result<void> check_body_size(const RequestContext& ctx, const Exchange& exchange);

// The key from the in-process cache, no I/O: nullopt on a cache miss (then authenticate_slow).
std::optional<Result<void>> authenticate_cached(RequestContext& ctx, const auth::KeyCache& keys,
                                                InfraCounters& counters, TimePoint now);
// Past the client address's budget of unknown keys, 429 too_many_unknown_keys before the lookup.
awaitable<Result<void>> authenticate_slow(RequestContext& ctx, auth::KeyCache& keys, auth::UnknownKeyBudget& budget,
                                          db::BlockingPool& pool, InfraCounters& counters, TimePoint now);

Result<void> authorize(const RequestContext& ctx);

// The key's request windows in Redis, shared by every instance; while Redis cannot be asked,
// this instance's share of them (cache::LocalRateWindows).
awaitable<Result<void>> rate_limit(RequestContext& ctx, db::BlockingPool& pool, cache::LocalRateWindows& local,
                                   const std::string& prefix, TimePoint now);

// Reads the body: JSON into `json` (JSON routes), or, on a multipart route with a
// multipart/form-data Content-Type, its parts into `form` as the bytes arrive. An upload first
// takes a slot of its key (429 too_many_uploads when the key has its share being read), then
// grows a lease on the budget with every piece (503 when a piece does not fit), and is cut with
// 408 upload_too_slow when it falls below the pace; slot and lease last until the request ends.
struct BodyTarget {
  std::optional<nlohmann::json> json;
  std::optional<MultipartForm> form;
  std::optional<UploadSlots::Slot> slot;
  std::optional<UploadBudget::Lease> lease;
};
awaitable<Result<void>> read_body(RequestContext& ctx, Exchange& exchange, BodyTarget& target, Uploads& uploads);

// Text from outside must be valid UTF-8 without control characters (C0 but TAB, LF, CR; DEL):
// PostgreSQL cannot store U+0000 and nothing meaningful carries the others. The decoded path:
// 400; a query parameter: 422 naming it ("query" when its name is bad); a string anywhere in a
// JSON body, value or key: 422 naming its dotted path (task_data.prompt, items.0.text). Paths and
// query parameters refuse TAB, LF and CR too.
std::optional<ApiError> check_path_text(const RequestContext& ctx);
std::optional<ApiError> check_query_text(const RequestContext& ctx);

}  // namespace mediagen::http::stages
