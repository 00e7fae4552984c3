#include "mediagen/account/profile_cache.hpp"
#include "mediagen/account/routes.hpp"
#include "mediagen/account/users.hpp"
#include "mediagen/core/json_writer.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/router.hpp"

namespace mediagen::account {

namespace {

std::string profile_json(const Profile& p, const http::RequestContext& ctx) {
  JsonWriter w(384);
  w.begin_object()
      .field("id", p.id.value)
      .field("email", std::string_view(p.email))
      .field("name", std::string_view(p.name))
      .field("locale", locale_code(p.locale))
      .field("created_at", std::string_view(ctx.time(p.created_at)))
      .field("updated_at", std::string_view(ctx.time(p.updated_at)));
  w.key("balance")
      .begin_object()
      .field("amount", std::string_view(std::to_string(p.balance.value)))
      .field("amount_formatted", to_whole_units(p.balance, p.asset.precision));
  w.key("currency_asset")
      .begin_object()
      .field("code", std::string_view(p.asset.code))
      .field("precision", std::int64_t{p.asset.precision})
      .end_object()
      .end_object();
  // The account's locale is the one messages follow when a request sends no X-Locale.
  w.key("plan");
  if (p.plan) {
    w.begin_object()
        .field("subscription_id", p.plan->subscription_id)
        .field("code", std::string_view(p.plan->code))
        .field("name", std::string_view(p.plan->name))
        .field("expires_at", std::string_view(ctx.time(p.plan->expires_at)))
        .end_object();
  } else {
    w.null();
  }
  w.end_object();
  return w.take();
}

}  // namespace

void register_routes(http::Router& router, db::AsyncPg& reads, ProfileCache& profiles) {
  router.add_api({
      .method = http::Method::get,
      .pattern = "/user",
      .access = http::Access::scope,
      .scope = auth::Scope::profile_read,
      .other_methods_unknown = true,  // a key never changes the profile (spec 1)
      .handler = [&reads, &profiles](http::RequestContext& ctx) -> boost::asio::awaitable<Result<http::Reply>> {
        const UserId user = ctx.principal->user_id;
        auto profile = profiles.find(user);
        if (!profile) {
          const auto ticket = profiles.begin_read();
          auto found = co_await find_profile(reads, user);
          // The key resolved a moment ago, so a missing user means it was deleted since.
          if (!found) co_return ApiError::api_key_invalid();
          profile = std::make_shared<const Profile>(std::move(*found));
          profiles.put(profile, ticket);
        }
        co_return http::Reply{.data_json = profile_json(*profile, ctx)};
      },
  });
}

}  // namespace mediagen::account
