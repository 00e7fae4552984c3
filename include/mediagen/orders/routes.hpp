#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/core/clock.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/orders/preview.hpp"
#include "mediagen/orders/reads.hpp"
#include "mediagen/webhooks/url_guard.hpp"

#include "mediagen/http/routes_fwd.hpp"

namespace mediagen::templates {
class ServiceCache;
}

namespace mediagen::orders {

class QuoteSigner;

struct OrderWriteOptions {
  // The content policy of the workers: an item retry or regenerate text it refuses is 422
  // content_blocked before any charge.
  std::function<bool(std::string_view text)> content_blocked;
  // Called on the blocking pool after an operation committed new work to the queue, to wake
  // the workers of every instance (a NOTIFY in the transaction instead would serialise every
  // committing transaction of the cluster).
  std::function<void(cache::Redis& redis)> on_queued;
  // Called on the blocking pool after cancel, item retry, bulk item retry and regenerate
  // committed, with the order and the items whose status they changed (the realtime events'
  // source); never after a refusal or an idempotent replay. Order creation and order retry
  // (a new order; the original is unchanged, spec 3.1) change no status anyone can watch yet.
  // Must not block; may be empty.
  std::function<void(std::vector<OrderChange> changes)> on_changed;
  // Where a voice_search order's upload is kept (under the order, removed with its files at
  // retention); not owned. Without it a voice search is refused as unavailable.
  storage::ObjectStore* uploads = nullptr;
  // The hosts a POST /orders `webhook` may use plain http and private addresses for
  // (MEDIAGEN_WEBHOOK_ALLOW_HOSTS); null: none. Not owned.
  const webhooks::AllowList* webhook_allow = nullptr;
  // The time the policy cooldown is judged by (POST /orders, order retry); null: the system
  // clock. Not owned.
  const Clock* clock = nullptr;
  // Signs top-up quotes when the explicit-confirmation mode is on (spec 7.1). Not owned.
  const QuoteSigner* quotes = nullptr;
  // The services kept in memory (templates/service_cache.hpp) for orders made from templates.
  // Not owned; null: read every time.
  templates::ServiceCache* services = nullptr;
};

// POST /orders, POST /orders/{order}/cancel, POST /orders/{order}/retry, and the item actions
// POST /orders/{order}/items/{item}/retry, POST /orders/{order}/items/retry-failed,
// POST /orders/{order}/items/{item}/regenerate (spec 4.1, 4.2), all with orders.write.
// POST /orders, order retry and item retry honour an Idempotency-Key header.
void register_order_write_routes(http::Router& router, db::BlockingPool& pool, OrderWriteOptions options);

}  // namespace mediagen::orders
