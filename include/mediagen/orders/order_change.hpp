#pragma once
// One committed status change of an order or of one of its items: what every path that changes
// a status (the order operations, the work queue, the janitor) hands on after commit, for the
// realtime events (and the webhooks to come). It only says WHAT changed; consumers read the state.
#include <string>
#include <string_view>

namespace mediagen::orders {

struct OrderChange {
  enum class Subject { order, item };
  Subject subject = Subject::order;
  std::string id;        // the order's id, or the item's
  std::string order_id;  // the order's id (for an order change it may be left empty)
  // The new status's name (to_string of OrderStatus or ItemStatus: static storage); empty when
  // the change is only "look again" (a new record, a cancel's order row).
  std::string_view status;
};

}  // namespace mediagen::orders
