#pragma once
// GET/HEAD routes of the public documentation (docs/site.hpp), outside the API prefix and open:
// no key, no rate window. Every answer carries a strong ETag and Cache-Control: no-cache, and
// answers If-None-Match with 304; bodies are streamed from the embedded bytes.
#include <memory>

#include "mediagen/docs/site.hpp"

namespace mediagen::http {
class Router;
}

namespace mediagen::docs {

void register_routes(http::Router& router, std::shared_ptr<const Site> site);

}  // namespace mediagen::docs
