// GET /usage, /usage/{service} and /subscriptions (billing.read): what a customer sees of their
// subscription (spec 2.9, 4.6). The reads are in billing/usage_store.cpp.
#include "mediagen/account/routes.hpp"
#include "mediagen/billing/usage.hpp"
#include "mediagen/core/json_writer.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/router.hpp"

namespace mediagen::account {
namespace {

// GET /subscriptions lists at most this many, newest first: one a grant, so years of them.
constexpr std::size_t kSubscriptionsShown = 100;

void optional_text(JsonWriter& w, std::string_view key, const std::optional<std::string>& v) {
  w.key(key);
  if (v) w.value(std::string_view(*v));
  else w.null();
}

void record_json(JsonWriter& w, const billing::UsageRecord& r, const http::RequestContext& ctx) {
  w.begin_object().field("limit_id", r.limit_id).field("service_id", r.service_id);
  optional_text(w, "service_code", r.service_code);
  optional_text(w, "service_name", r.service_name);
  w.field("entitlement_id", r.entitlement_id);
  optional_text(w, "entitlement_code", r.entitlement_code);
  optional_text(w, "entitlement_name", r.entitlement_name);
  w.field("type", to_string(r.type)).field("unit", r.unit).field("consumed", r.consumed).field("ceiling", r.ceiling);
  w.key("remaining");
  if (r.ceiling) w.value(std::max<std::int64_t>(*r.ceiling - r.consumed, 0));
  else w.null();
  w.key("reset_at");
  if (r.reset_at) w.value(std::string_view(ctx.time(*r.reset_at)));
  else w.null();
  w.end_object();
}

std::string records_json(const std::vector<billing::UsageRecord>& records, const http::RequestContext& ctx) {
  JsonWriter w(256 * (records.size() + 1));
  w.begin_array();
  for (const auto& r : records) record_json(w, r, ctx);
  w.end_array();
  return w.take();
}

std::string service_json(const billing::ServiceUsage& s, const http::RequestContext& ctx) {
  JsonWriter w(256 * (s.records.size() + 2));
  w.begin_object()
      .field("service_id", s.service_id)
      .field("service_code", std::string_view(s.service_code))
      .field("service_name", std::string_view(s.service_name))
      .field("entitled", s.entitled)
      .field("payg_enabled", s.payg_enabled);
  w.key("limits").raw(records_json(s.records, ctx));
  w.end_object();
  return w.take();
}

std::string subscriptions_json(const std::vector<billing::SubscriptionView>& subs, const http::RequestContext& ctx) {
  JsonWriter w(384 * (subs.size() + 1));
  w.begin_array();
  for (const auto& s : subs) {
    w.begin_object().field("id", s.id).field("status", to_string(s.status));
    w.key("plan").begin_object().field("code", std::string_view(s.plan_code));
    w.field("name", std::string_view(s.plan_name)).end_object();
    w.field("starts_at", std::string_view(ctx.time(s.starts_at)));
    w.field("expires_at", std::string_view(ctx.time(s.expires_at)));
    w.key("cancelled_at");
    if (s.cancelled_at) w.value(std::string_view(ctx.time(*s.cancelled_at)));
    else w.null();
    w.field("tokens_per_period", s.tokens_per_period).field("concurrency_slots", s.concurrency_slots);
    w.field("services", s.services).end_object();
  }
  w.end_array();
  return w.take();
}

template <class Body>
http::Route billing_read(const char* pattern, Body body, bool other_methods_unknown = false) {
  return {.method = http::Method::get,
          .pattern = pattern,
          .access = http::Access::scope,
          .scope = auth::Scope::billing_read,
          .other_methods_unknown = other_methods_unknown,
          .handler = std::move(body)};
}

}  // namespace

void register_usage_routes(http::Router& router, db::BlockingPool& pool) {
  router.add_api(billing_read("/usage", [&pool](http::RequestContext& ctx) -> boost::asio::awaitable<Result<http::Reply>> {
    auto load = [user = ctx.principal->user_id, locale = ctx.locale](db::Resources& r) {
      return billing::read_usage(r.db, user, locale);
    };
    const auto records = co_await pool.run(std::move(load));
    co_return http::Reply{.data_json = records_json(records, ctx)};
  }));
  router.add_api(
      billing_read("/usage/{service}", [&pool](http::RequestContext& ctx) -> boost::asio::awaitable<Result<http::Reply>> {
        auto load = [user = ctx.principal->user_id, locale = ctx.locale,
                     service = std::string(ctx.params.get("service").value_or(""))](db::Resources& r) {
          return billing::read_service_usage(r.db, user, service, locale);
        };
        const auto usage = co_await pool.run(std::move(load));
        if (!usage) co_return ApiError::not_found();
        co_return http::Reply{.data_json = service_json(*usage, ctx)};
      }));
  router.add_api(
      billing_read("/subscriptions", [&pool](http::RequestContext& ctx) -> boost::asio::awaitable<Result<http::Reply>> {
        auto load = [user = ctx.principal->user_id](db::Resources& r) {
          return billing::list_subscriptions(r.db, user, kSubscriptionsShown);
        };
        const auto subs = co_await pool.run(std::move(load));
        co_return http::Reply{.data_json = subscriptions_json(subs, ctx)};
      },
      /*other_methods_unknown=*/true));  // a key never buys a subscription (spec 1)
}

}  // namespace mediagen::account
