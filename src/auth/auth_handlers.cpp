#include <nlohmann/json.hpp>

#include "mediagen/auth/key_json.hpp"
#include "mediagen/auth/routes.hpp"
#include "mediagen/http/router.hpp"

namespace mediagen::auth {

void register_routes(http::Router& router) {
  router.add_api({
      .method = http::Method::get,
      .pattern = "/key",
      .access = http::Access::any_key,
      .handler = [](http::RequestContext& ctx) -> boost::asio::awaitable<Result<http::Reply>> {
        co_return http::Reply{.data_json = key_json(*ctx.principal, ctx.tz).dump()};
      },
  });
}

}  // namespace mediagen::auth
