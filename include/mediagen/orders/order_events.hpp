#pragma once
// The realtime events of an order channel (private-order.task.{orderId}):
//   order.updated       {order_id, status, task_type, updated_at, seq} plus `result` and
//                       `failure_reason` (their values in GET /orders/{order} data) once the
//                       status is terminal
//   order.item.updated  {order_id, item_id, chunk_index, item_type, status, attempt_number, seq}
// `seq` counts the events of one order (both names share it) in orders.event_seq: +1 per event,
// the same on every instance. Times are ISO 8601 in UTC with the offset, as REST renders them
// by default.
//
// A change note only says WHAT changed; the event carries the state read when its seq is
// assigned, under the order row's lock. So the event with the higher seq never shows an older
// state than one with a lower seq, whatever order the notes of concurrent threads or instances
// arrive in.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/core/counters.hpp"
#include "mediagen/db/connection.hpp"
#include "mediagen/db/db.hpp"
#include "mediagen/orders/order_change.hpp"
#include "mediagen/realtime/event.hpp"

namespace mediagen::orders {

// Turns committed changes into realtime events on a thread of its own with its own PostgreSQL
// connection. That connection commits with synchronous_commit off: a bump waits for no WAL
// flush; only a crash of the database server itself can lose the last bumps (under a second),
// after which seqs already sent are issued again.
// Per change: the bump of orders.event_seq and the read of the payload, then
// broadcaster.publish(...).
//
// Failures are never the caller's: a change for an order or item that does not exist (or a
// malformed id) is dropped; a PostgreSQL failure is logged, drops that change and the next
// change reconnects (not before a second has passed, so a database that is down costs one
// attempt a second, not one per change). Notes beyond kMaxQueued waiting are dropped and logged.
class OrderEventPublisher {
 public:
  static constexpr std::size_t kMaxQueued = 100'000;

  // `broadcaster` and `counters` must outlive the publisher.
  OrderEventPublisher(std::string database_url, realtime::Broadcaster& broadcaster, InfraCounters& counters,
                      db::ConnectLimits limits = {});
  ~OrderEventPublisher();  // stop()
  OrderEventPublisher(const OrderEventPublisher&) = delete;
  OrderEventPublisher& operator=(const OrderEventPublisher&) = delete;

  // Changes noted before start() wait for it. start() after stop() does nothing.
  void start();
  // Publishes what is queued, then joins the thread; later notes are dropped.
  void stop();

  // Non-blocking (a queue push); callable from any thread.
  void changed(OrderChange change);
  void changed(std::vector<OrderChange> changes);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The order's current state as an order.updated event carrying its current seq (no bump), for a
// new subscriber of its channel; nullopt when the order does not exist or the id is malformed.
// Blocking SQL: call it on the blocking pool.
std::optional<realtime::Event> order_snapshot(db::Db& db, std::string_view order_id);

}  // namespace mediagen::orders
