#pragma once
namespace mediagen::http {
class Router;
}
namespace mediagen::db {
class BlockingPool;
}

namespace mediagen::voices {

// The catalogue routes of spec 4.5 (voices.read): /voices, /voices/library, /voices/public,
// /voices/tags, /voices/{voice}, /voices/provider_a/library, /voices/provider_b,
// /voices/provider_b/filters, /voices/provider_c, /voices/provider_d.
void register_routes(http::Router& router, db::BlockingPool& pool);

}  // namespace mediagen::voices
