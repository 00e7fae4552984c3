#pragma once
#include "mediagen/http/routes_fwd.hpp"

namespace mediagen::auth {

// GET /key: the calling key itself, answered from the key cache (no permission needed).
void register_routes(http::Router& router, db::BlockingPool& pool);

}  // namespace mediagen::auth
