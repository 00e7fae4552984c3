#pragma once
#include "mediagen/http/routes_fwd.hpp"

namespace mediagen::catalog {

class CatalogueCache;

// GET /ai/models and GET /ai/models/{key}: any active key, no permission (spec 4.7).
void register_routes(http::Router& router, db::BlockingPool& pool, CatalogueCache& cache);

}  // namespace mediagen::catalog
