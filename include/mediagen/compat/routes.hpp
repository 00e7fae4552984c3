#pragma once
// The OpenAI-compatible speech surface, outside the API prefix (OpenAI's SDKs take a base URL
// ending in /v1): POST /v1/audio/speech (orders.write), GET /v1/models and GET /v1/audio/voices
// (orders.read). Authenticated by "Authorization: Bearer <key>" on these routes only; every
// refusal in OpenAI's error shape.
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "mediagen/compat/order_waiters.hpp"
#include "mediagen/orders/order.hpp"

#include "mediagen/http/routes_fwd.hpp"

namespace mediagen::compat {

struct CompatOptions {
  storage::ObjectStore* store = nullptr;  // where the chunks' audio is read from; not owned
  OrderWaiters* waiters = nullptr;        // woken when an order's chunk settles; not owned
  // Called on the blocking pool after a speech order committed (wakes the workers).
  std::function<void(cache::Redis& redis)> on_queued;
  // Judges every chunk of a request's text before the order is made (content_blocked, nothing
  // charged).
  orders::ContentPolicy content_blocked;
  const Clock* clock = nullptr;
  // Called on the blocking pool after an order whose answer ended undelivered was ended (the
  // realtime events' source). Must not block; may be empty.
  std::function<void(std::vector<orders::OrderChange> changes)> on_changed;
  // True once the server drains: an answer waiting for a chunk stops and ends its order. Not owned.
  const std::atomic<bool>* draining = nullptr;
  // How often a waiting answer looks at its order when no wake-up came (another instance's
  // worker made the chunk), and the longest the whole answer may take.
  std::chrono::milliseconds poll_interval{250};
  std::chrono::seconds max_wait{1800};
};

void register_routes(http::Router& router, db::BlockingPool& pool, CompatOptions options);

}  // namespace mediagen::compat
