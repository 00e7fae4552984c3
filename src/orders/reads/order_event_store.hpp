#pragma once
// The SQL of the order channel's events (order_events.cpp): the per-order seq bump with the
// state read under the order row's lock, the snapshot for a new subscriber, and the publisher
// connection's session settings. Ids are checked by the callers.
#include <cstdint>
#include <optional>
#include <string>

#include "mediagen/db/db.hpp"
#include "mediagen/orders/order.hpp"

namespace mediagen::orders {

template <class T>
struct WithSeq {
  T value;
  std::int64_t seq = 0;
  bool webhook_pending = false;  // the order has webhook messages whose data is still to come
};

// The order's seq + 1 and the order as it is at that moment; nullopt when there is no such order.
std::optional<WithSeq<Order>> bump_order_seq(db::Db& db, const std::string& order_id);
// The order's seq + 1 (only when the item belongs to it) and the item read after the bump.
std::optional<WithSeq<Item>> bump_item_seq(db::Db& db, const std::string& order_id, const std::string& item_id);
// The order and its current seq, without a bump.
std::optional<WithSeq<Order>> read_order_seq(db::Db& db, const std::string& order_id);

// synchronous_commit off and a lock timeout, on the publisher's own connection.
void prepare_event_session(db::Db& db);

}  // namespace mediagen::orders
