#pragma once
#include <functional>

#include "mediagen/realtime/event.hpp"

#include "mediagen/http/routes_fwd.hpp"

namespace mediagen::voices {

// The catalogue routes of spec 4.5 (voices.read): /voices, /voices/library, /voices/public,
// /voices/tags, /voices/{voice}, /voices/provider_a/library, /voices/provider_b,
// /voices/provider_b/filters, /voices/provider_c, /voices/provider_d.
void register_routes(http::Router& router, db::BlockingPool& pool);

struct CloneRouteOptions {
  storage::ObjectStore& store;  // the samples, under clones/<id>/
  // A clone's status changed (committed): voice_clone.updated.
  std::function<void(realtime::Event)> publish;
  // A clone was queued (committed): the workers look now. Runs on a blocking-pool thread.
  std::function<void(cache::Redis&)> on_queued;
};

// The clone routes (clones.hpp; the shapes are in openapi/):
//   POST /voices/{provider_c|provider_d}/clones                  voices.write  multipart name, files[]
//   GET  /voices/{provider_c|provider_d}/clones                  voices.read   shape 1, page from 1
//   GET  /voices/{provider_c|provider_d}/clones/{clone}          voices.read
//   POST /voices/{provider_c|provider_d}/clones/{clone}/retry    voices.write  failed -> pending
//   POST /voices/{provider_c|provider_d}/clones/{clone}/archive  voices.write
//   GET  /voices/clones/quota                                    voices.read
void register_clone_routes(http::Router& router, db::BlockingPool& pool, CloneRouteOptions options);

}  // namespace mediagen::voices
