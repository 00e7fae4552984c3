#pragma once
#include "mediagen/http/routes_fwd.hpp"

namespace mediagen::account {

class ProfileCache;

// GET /user (profile.read): from `profiles`, or read from the I/O thread and kept there.
void register_routes(http::Router& router, db::AsyncPg& reads, ProfileCache& profiles);
// GET /usage, /usage/{service} and /subscriptions (billing.read).
void register_usage_routes(http::Router& router, db::BlockingPool& pool);

}  // namespace mediagen::account
