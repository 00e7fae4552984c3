#pragma once
#include "mediagen/http/routes_fwd.hpp"

namespace mediagen::webhooks {

// The webhook routes (openapi "Webhooks"):
//   GET /webhooks/secret                       orders.read  {key: "whsec_..."}, made on first use
//   GET /orders/{order}/webhook-deliveries     orders.read  the order's messages and their attempts
void register_routes(http::Router& router, db::BlockingPool& pool);

}  // namespace mediagen::webhooks
