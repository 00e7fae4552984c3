#include <nlohmann/json.hpp>

#include "mediagen/account/routes.hpp"
#include "mediagen/account/users.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/router.hpp"

namespace mediagen::account {

namespace {

std::string profile_json(const Profile& p, const http::RequestContext& ctx) {
  nlohmann::ordered_json data{
      {"id", p.id.value},
      {"email", p.email},
      {"name", p.name},
      {"locale", locale_code(p.locale)},
      {"created_at", ctx.time(p.created_at)},
      {"updated_at", ctx.time(p.updated_at)},
      {"balance",
       {{"amount", std::to_string(p.balance.value)},
        {"amount_formatted", to_whole_units(p.balance, p.asset.precision)},
        {"currency_asset", {{"code", p.asset.code}, {"precision", p.asset.precision}}}}},
  };
  return data.dump();
}

}  // namespace

void register_routes(http::Router& router, db::BlockingPool& pool) {
  router.add_api({
      .method = http::Method::get,
      .pattern = "/user",
      .access = http::Access::scope,
      .scope = auth::Scope::profile_read,
      .handler = [&pool](http::RequestContext& ctx) -> boost::asio::awaitable<Result<http::Reply>> {
        const UserId id = ctx.principal->user_id;
        auto load = [id](db::Resources& r) { return find_profile(r.db, id); };
        auto profile = co_await pool.run(std::move(load));
        // The key resolved a moment ago, so a missing user means it was deleted since.
        if (!profile) co_return ApiError::api_key_invalid();
        co_return http::Reply{.data_json = profile_json(*profile, ctx)};
      },
  });
}

}  // namespace mediagen::account
