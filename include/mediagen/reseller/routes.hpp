#pragma once
#include <functional>
#include <memory>

#include "mediagen/realtime/event.hpp"

#include "mediagen/http/routes_fwd.hpp"

namespace mediagen {
class Clock;
}

namespace mediagen::reseller {

class CodeCipher;

struct RouteOptions {
  std::shared_ptr<const CodeCipher> cipher;
  const Clock& clock;
  // A code changed (committed): gift_code.updated.
  std::function<void(realtime::Event)> publish;
};

// The reseller routes (spec 4.8; shapes in openapi/). The reseller scopes pass only when named on
// the key (never by `*` or a preset); a user without a reseller profile gets 404 not_reseller.
//   GET  /reseller                        reseller.read   profile, balance, discount, cancel window
//   GET  /reseller/settings               reseller.read   discount and cancel window
//   GET  /reseller/stats?from=&to=        reseller.read   codes issued in the period and what they became
//   GET  /reseller/codes                  reseller.read   paginated, ?status=
//   GET  /reseller/codes/{uuid}           reseller.read
//   POST /reseller/codes                  reseller.write  {nominal, currency?, activatable_at?} -> 201
//   POST /reseller/codes/{uuid}/cancel    reseller.write
void register_routes(http::Router& router, db::BlockingPool& pool, RouteOptions options);

}  // namespace mediagen::reseller
