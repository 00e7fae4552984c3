#include "mediagen/auth/key_json.hpp"
#include "mediagen/auth/keys.hpp"
#include "mediagen/auth/routes.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/router.hpp"

namespace mediagen::auth {

void register_routes(http::Router& router, db::BlockingPool& pool) {
  router.add_api({
      .method = http::Method::get,
      .pattern = "/key",
      .access = http::Access::any_key,
      .handler = [&pool](http::RequestContext& ctx) -> boost::asio::awaitable<Result<http::Reply>> {
        // Everything but the pool's usage is in the cached key: only a key with a pool reads it.
        const auto& key = *ctx.principal;
        if (ctx.tz.is_utc() && !key.description_utc.empty()) co_return http::Reply{.data_json = key.description_utc};
        std::int64_t used = 0;
        if (ctx.principal->limits.tokens.quota) {
          auto read_used = [id = ctx.principal->key_id](db::Resources& r) { return token_quota_used(r.db, id); };
          used = co_await pool.run(read_used);
        }
        co_return http::Reply{.data_json = key_json(*ctx.principal, ctx.tz, used)};
      },
  });
}

}  // namespace mediagen::auth
