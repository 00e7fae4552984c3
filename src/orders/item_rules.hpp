#pragma once
// When an item may be retried for free or regenerated for money (spec 2.4, 3.2, 4.2). The item
// JSON's can_retry / can_regenerate and the retry and regenerate operations use these same
// functions, so a flag that says "yes" is never refused for a reason the flag knew about.
//
// A position is the set of records sharing a chunk_index. Its "last attempt" is the newest
// record of type chunk or retry; the result uses its newest completed record of any type.
// "Newest" orders by created_at, then attempt_number, then id (ties only within one
// transaction, which never creates two records of one position).
#include <optional>
#include <vector>

#include "mediagen/core/api_error.hpp"
#include "mediagen/orders/order.hpp"

namespace mediagen::orders {

// What the records of one position say.
struct Position {
  const Item* last_attempt = nullptr;      // newest chunk or retry record
  const Item* newest_completed = nullptr;  // newest completed record of any type
  bool live = false;                       // a pending or processing record exists
};

Position position_of(const std::vector<Item>& items_of_order, int chunk_index);

// Why a free retry of `item` is refused now, or nullopt when it is allowed. Checked in this
// order: generative_not_supported (sfx, music), invalid_order_status (order not
// partially_completed), stitch_in_progress, active_retry_exists (a live record at the
// position), invalid_status (not failed/policy_flagged, or not the position's last attempt),
// max_attempts_reached (attempt_number >= kMaxAttempts).
std::optional<Reason> retry_refusal(const Order& order, const Position& position, const Item& item);

// Why a paid regeneration of `item` is refused now, or nullopt when it is allowed:
// generative_not_supported, invalid_order_status (order not completed, result_delivered or
// partially_completed), input_expired (the order's files were removed by retention),
// stitch_in_progress, active_retry_exists, invalid_status (not completed, or not the newest
// completed record of its position).
std::optional<Reason> regenerate_refusal(const Order& order, const Position& position, const Item& item);

bool can_retry(const Order& order, const std::vector<Item>& items_of_order, const Item& item);
bool can_regenerate(const Order& order, const std::vector<Item>& items_of_order, const Item& item);

// Sets can_retry and can_regenerate on every item of the order (one pass per position).
void apply_item_flags(const Order& order, std::vector<Item>& items_of_order);

}  // namespace mediagen::orders
