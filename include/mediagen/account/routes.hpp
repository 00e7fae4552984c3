#pragma once
#include "mediagen/http/routes_fwd.hpp"

namespace mediagen::account {

// GET /user (profile.read).
void register_routes(http::Router& router, db::BlockingPool& pool);
// GET /usage, /usage/{service} and /subscriptions (billing.read).
void register_usage_routes(http::Router& router, db::BlockingPool& pool);

}  // namespace mediagen::account
