#pragma once
namespace mediagen::http {
class Router;
}
namespace mediagen::db {
class BlockingPool;
}

namespace mediagen::account {

// GET /user (profile.read).
void register_routes(http::Router& router, db::BlockingPool& pool);

}  // namespace mediagen::account
