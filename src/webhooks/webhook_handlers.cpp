// HTTP of the webhook routes (routes.hpp): read on the blocking pool, render.
#include "mediagen/core/ids.hpp"
#include "mediagen/core/json_writer.hpp"
#include "mediagen/core/uuid_id.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/router.hpp"
#include "mediagen/webhooks/routes.hpp"
#include "mediagen/webhooks/webhooks.hpp"

namespace mediagen::webhooks {
namespace {

namespace asio = boost::asio;
using Answer = asio::awaitable<Result<http::Reply>>;

// An order's log is its own events: a few per status change, so a bound this high is only a
// guard against an order retried without end.
constexpr std::size_t kMaxLogMessages = 1000;

void write_log(JsonWriter& out, const MessageLog& m, const http::RequestContext& ctx) {
  out.begin_object();
  out.field("id", std::string_view(m.id));
  out.field("type", std::string_view(m.type));
  out.field("status", to_string(m.status));
  out.key("attempts").begin_array();
  for (const auto& a : m.attempts) {
    out.begin_object();
    out.field("at", std::string_view(ctx.time(a.at)));
    out.key("status_code");
    if (a.status_code) out.value(std::int64_t{*a.status_code});
    else out.null();
    out.key("error");
    if (a.error) out.value(std::string_view(*a.error));
    else out.null();
    out.field("duration_ms", a.duration_ms);
    out.end_object();
  }
  out.end_array();
  out.key("next_attempt_at");
  if (m.next_attempt_at) out.value(std::string_view(ctx.time(*m.next_attempt_at)));
  else out.null();
  out.field("created_at", std::string_view(ctx.time(m.created_at)));
  out.end_object();
}

Answer secret_route(db::BlockingPool& pool, http::RequestContext& ctx) {
  auto read = [user = ctx.principal->user_id](db::Resources& r) { return account_secret(r.db, user); };
  const std::string secret = co_await pool.run(std::move(read));
  JsonWriter out(64);
  out.begin_object();
  out.field("key", std::string_view(secret));
  out.end_object();
  co_return http::Reply{.data_json = out.take()};
}

Answer deliveries_route(db::BlockingPool& pool, http::RequestContext& ctx) {
  auto id = http::path_id<OrderId>(ctx, "order");
  if (!id) co_return id.error();
  auto read = [user = ctx.principal->user_id, order = id->str()](db::Resources& r) {
    return order_deliveries(r.db, user, order, kMaxLogMessages);
  };
  const auto logs = co_await pool.run(std::move(read));
  if (!logs) co_return ApiError::not_found();
  JsonWriter out(256 + logs->size() * 256);
  out.begin_array();
  for (const auto& m : *logs) write_log(out, m, ctx);
  out.end_array();
  co_return http::Reply{.data_json = out.take()};
}

}  // namespace

void register_routes(http::Router& router, db::BlockingPool& pool) {
  router.add_api(http::scoped_get("/webhooks/secret", auth::Scope::orders_read,
                                  [&pool](http::RequestContext& ctx) { return secret_route(pool, ctx); }));
  router.add_api(http::scoped_get("/orders/{order}/webhook-deliveries", auth::Scope::orders_read,
                                  [&pool](http::RequestContext& ctx) { return deliveries_route(pool, ctx); }));
}

}  // namespace mediagen::webhooks
