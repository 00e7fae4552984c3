#pragma once
#include "mediagen/http/routes_fwd.hpp"

namespace mediagen::templates {

// GET/POST /templates, GET /templates/browse, GET /templates/config-options,
// GET/PUT/PATCH/DELETE /templates/{template} (templates.read / templates.write).
void register_routes(http::Router& router, db::BlockingPool& pool);

}  // namespace mediagen::templates
