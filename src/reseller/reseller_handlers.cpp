// HTTP of the reseller routes (routes.hpp): read the request, run the service on the blocking
// pool, publish gift_code.updated after the commit, render. The full code appears only in these
// answers, never in a log line or an event.
#include <nlohmann/json.hpp>

#include "mediagen/core/json_text.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/idempotency.hpp"
#include "mediagen/http/router.hpp"
#include "mediagen/reseller/gift_codes.hpp"
#include "mediagen/reseller/routes.hpp"
#include "asset_json.hpp"
#include "reseller_form.hpp"

namespace mediagen::reseller {
namespace {

namespace asio = boost::asio;
using Answer = asio::awaitable<Result<http::Reply>>;
using ojson = nlohmann::ordered_json;

// {nominal, currency?, activatable_at?} with room for blanks; nothing longer is a real request.
constexpr std::size_t kIssueBodyLimit = 4 * 1024;
// The cancel takes no fields; a small body (e.g. "{}") is tolerated and ignored.
constexpr std::size_t kCancelBodyLimit = 1024;

struct Shared {
  db::BlockingPool& pool;
  RouteOptions options;
};

// The {uuid} of the path, parsed; a malformed one is gift_code_not_found, but only after the
// caller is known to be a reseller (the service decides, in that order).
std::optional<GiftCodeId> uuid_of(const http::RequestContext& ctx) {
  return GiftCodeId::parse(ctx.params.get("uuid").value_or(""));
}

std::string profile_json(const ResellerProfile& p, const http::RequestContext& ctx) {
  ojson j = ojson::object();
  j["user_id"] = p.user.value;
  j["enabled"] = p.enabled;
  j["discount_bps"] = p.discount_bps;
  j["cancel_window_minutes"] = p.cancel_window_minutes;
  j["balance"] = std::to_string(p.balance);
  j["balance_formatted"] = to_whole_units(MinorUnits{p.balance}, p.asset.precision);
  j["currency_asset"] = asset_json(p.asset);
  j["created_at"] = ctx.time(p.created_at);
  return to_json_text(j);
}

Answer profile_route(Shared& s, http::RequestContext& ctx, bool settings_only) {
  auto read = [user = ctx.principal->user_id](db::Resources& r) { return find_reseller(r.db, user); };
  auto profile = co_await s.pool.run(std::move(read));
  if (!profile) co_return profile.error();
  if (settings_only) {
    ojson j = {{"discount_bps", profile->discount_bps}, {"cancel_window_minutes", profile->cancel_window_minutes}};
    co_return http::Reply{.data_json = to_json_text(j)};
  }
  co_return http::Reply{.data_json = profile_json(*profile, ctx)};
}

Answer stats_route(Shared& s, http::RequestContext& ctx) {
  auto period = read_stats_query(http::Query::parse(ctx.query), s.options.clock.now());
  if (!period) co_return period.error();
  auto read = [user = ctx.principal->user_id, p = *period](db::Resources& r) {
    return reseller_stats(r.db, user, p.first, p.second);
  };
  auto stats = co_await s.pool.run(std::move(read));
  if (!stats) co_return stats.error();
  ojson assets = ojson::array();
  for (const auto& b : stats->assets) {
    const auto whole = [&](std::int64_t v) { return to_whole_units(MinorUnits{v}, b.asset.precision); };
    assets.push_back({{"currency_asset", asset_json(b.asset)},
                      {"issued", b.issued},
                      // Counts by what the codes are now, keyed by the status names.
                      {to_string(GiftCodeStatus::active), b.active},
                      {to_string(GiftCodeStatus::redeemed), b.redeemed},
                      {to_string(GiftCodeStatus::cancelled), b.cancelled},
                      {"nominal_issued", std::to_string(b.nominal_issued)}, {"nominal_issued_formatted", whole(b.nominal_issued)},
                      {"cost_issued", std::to_string(b.cost_issued)}, {"cost_issued_formatted", whole(b.cost_issued)},
                      {"nominal_redeemed", std::to_string(b.nominal_redeemed)},
                      {"nominal_redeemed_formatted", whole(b.nominal_redeemed)},
                      {"cost_cancelled", std::to_string(b.cost_cancelled)},
                      {"cost_cancelled_formatted", whole(b.cost_cancelled)}});
  }
  ojson j = {{"from", ctx.time(stats->from)}, {"to", ctx.time(stats->to)}, {"assets", std::move(assets)}};
  co_return http::Reply{.data_json = to_json_text(j)};
}

Answer list_route(Shared& s, http::RequestContext& ctx) {
  auto query = read_list_query(http::Query::parse(ctx.query));
  if (!query) co_return query.error();
  auto read = [&s, user = ctx.principal->user_id, q = *query](db::Resources& r) {
    return list_codes(r.db, *s.options.cipher, user, q.status, q.offset(), q.per_page);
  };
  auto page = co_await s.pool.run(std::move(read));
  if (!page) co_return page.error();
  std::string items = "[";
  for (const auto& c : page->items) {
    if (items.size() > 1) items += ",";
    items += gift_code_json(c, ctx.tz);
  }
  items += "]";
  const std::int64_t n = query->per_page;
  const std::int64_t last = std::max<std::int64_t>(1, (page->total + n - 1) / n);
  co_return http::Reply{.data_json = "{\"items\":" + items + ",\"current_page\":" + std::to_string(query->page) +
                                     ",\"last_page\":" + std::to_string(last) + ",\"per_page\":" + std::to_string(n) +
                                     ",\"total\":" + std::to_string(page->total) + "}"};
}

Answer show_route(Shared& s, http::RequestContext& ctx) {
  auto read = [&s, user = ctx.principal->user_id, id = uuid_of(ctx)](db::Resources& r) {
    return find_code(r.db, *s.options.cipher, user, id);
  };
  auto code = co_await s.pool.run(std::move(read));
  if (!code) co_return code.error();
  co_return http::Reply{.data_json = gift_code_json(*code, ctx.tz)};
}

Answer issue_route(Shared& s, http::RequestContext& ctx) {
  auto key = http::idempotency_key_of(ctx);
  if (!key) co_return key.error();
  auto request = read_issue_body(ctx.json);
  const auto user = ctx.principal->user_id;
  if (!request) {
    // Someone who is not a reseller learns that first, whatever the body held.
    auto who = co_await s.pool.run([user](db::Resources& r) { return find_reseller(r.db, user); });
    if (!who) co_return who.error();
    co_return request.error();
  }
  auto run = [&s, user, req = *request, key = *key, tz = ctx.tz](db::Resources& r) -> Result<IssuedCode> {
    const CodeCipher& cipher = *s.options.cipher;
    if (key) {
      if (auto replay = replayed_issue(r.db, cipher, user, *key)) return std::move(*replay);
      auto render = [&tz](const GiftCode& c) { return gift_code_json(c, tz); };
      return issue_code(r.db, cipher, s.options.clock, user, req, *key, render);
    }
    auto issued = issue_code(r.db, cipher, s.options.clock, user, req);
    if (!issued) return issued.error();
    return IssuedCode{.code = *issued, .data_json = gift_code_json(*issued, tz)};
  };
  auto issued = co_await s.pool.run(std::move(run));
  if (!issued) co_return issued.error();
  http::Reply reply{.status = 201, .message = {"gift_codes.issued"}, .data_json = std::move(issued->data_json)};
  if (issued->replayed) reply.headers.emplace_back("Idempotent-Replayed", "true");
  else if (s.options.publish) s.options.publish(gift_code_event(*issued->code));
  co_return reply;
}

Answer cancel_route(Shared& s, http::RequestContext& ctx) {
  auto run = [&s, user = ctx.principal->user_id, id = uuid_of(ctx)](db::Resources& r) {
    return cancel_code(r.db, *s.options.cipher, s.options.clock, user, id);
  };
  auto cancelled = co_await s.pool.run(std::move(run));
  if (!cancelled) co_return cancelled.error();
  if (s.options.publish) s.options.publish(gift_code_event(*cancelled));
  co_return http::Reply{.message = {"gift_codes.cancelled"}, .data_json = gift_code_json(*cancelled, ctx.tz)};
}

using Handler = Answer (*)(Shared&, http::RequestContext&);

}  // namespace

void register_routes(http::Router& router, db::BlockingPool& pool, RouteOptions options) {
  auto shared = std::make_shared<Shared>(Shared{pool, std::move(options)});
  auto add = [&](http::Method method, std::string pattern, auth::Scope scope, std::size_t limit, Handler handler) {
    router.add_api({.method = method,
                    .pattern = std::move(pattern),
                    .access = http::Access::scope,
                    .scope = scope,
                    .body_limit = limit,
                    .json_body = limit > 0,
                    .handler = [shared, handler](http::RequestContext& ctx) { return handler(*shared, ctx); }});
  };
  const auto read = auth::Scope::reseller_read;
  const auto write = auth::Scope::reseller_write;
  add(http::Method::get, "/reseller", read, 0,
      [](Shared& s, http::RequestContext& ctx) { return profile_route(s, ctx, false); });
  add(http::Method::get, "/reseller/settings", read, 0,
      [](Shared& s, http::RequestContext& ctx) { return profile_route(s, ctx, true); });
  add(http::Method::get, "/reseller/stats", read, 0, &stats_route);
  add(http::Method::get, "/reseller/codes", read, 0, &list_route);
  add(http::Method::get, "/reseller/codes/{uuid}", read, 0, &show_route);
  add(http::Method::post, "/reseller/codes", write, kIssueBodyLimit, &issue_route);
  add(http::Method::post, "/reseller/codes/{uuid}/cancel", write, kCancelBodyLimit, &cancel_route);
}

}  // namespace mediagen::reseller
