#pragma once
#include "mediagen/http/routes_fwd.hpp"

namespace mediagen::account {

// GET /user (profile.read), read from the I/O thread.
void register_routes(http::Router& router, db::AsyncPg& reads);
// GET /usage, /usage/{service} and /subscriptions (billing.read).
void register_usage_routes(http::Router& router, db::BlockingPool& pool);

}  // namespace mediagen::account
