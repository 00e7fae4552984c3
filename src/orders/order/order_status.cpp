// The order state machine (see order_status.hpp).
#include "mediagen/orders/order.hpp"

#include <algorithm>

namespace mediagen::orders {
namespace {

// In declaration order of the enums: these are the stored and the wire values.
constexpr std::array<std::string_view, 9> kOrderStatuses{
    "created", "pending",   "in_progress", "completed",          "result_delivered",
    "failed",  "compensated", "cancelled", "partially_completed"};
constexpr std::array<std::string_view, 2> kOrderFailures{"stitch_failed", "not_delivered"};
constexpr std::array<std::string_view, 5> kItemStatuses{"pending", "processing", "completed", "failed",
                                                        "policy_flagged"};

template <class Status, std::size_t N>
bool listed(const std::array<Move<Status>, N>& moves, Status from, Status to, std::optional<Trigger> trigger) {
  return std::any_of(moves.begin(), moves.end(), [&](const Move<Status>& m) {
    return m.from == from && m.to == to && (!trigger || m.trigger == *trigger);
  });
}

}  // namespace

std::string_view to_string(OrderStatus status) noexcept { return kOrderStatuses[static_cast<std::size_t>(status)]; }

std::optional<OrderStatus> order_status_from_string(std::string_view name) noexcept {
  return detail::enum_from_name<OrderStatus>(kOrderStatuses, name);
}

bool is_terminal(OrderStatus status) noexcept {
  switch (status) {
    case OrderStatus::completed:
    case OrderStatus::result_delivered:
    case OrderStatus::failed:
    case OrderStatus::compensated:
    case OrderStatus::cancelled:
      return true;
    case OrderStatus::created:
    case OrderStatus::pending:
    case OrderStatus::in_progress:
    case OrderStatus::partially_completed:
      return false;
  }
  return false;
}

bool is_closed(OrderStatus status) noexcept {
  return status == OrderStatus::failed || status == OrderStatus::compensated || status == OrderStatus::cancelled;
}

std::string_view to_string(ItemStatus status) noexcept { return kItemStatuses[static_cast<std::size_t>(status)]; }

std::optional<ItemStatus> item_status_from_string(std::string_view name) noexcept {
  return detail::enum_from_name<ItemStatus>(kItemStatuses, name);
}

std::string_view to_string(OrderFailure reason) noexcept { return kOrderFailures[static_cast<std::size_t>(reason)]; }

std::optional<OrderFailure> order_failure_from_string(std::string_view name) noexcept {
  return detail::enum_from_name<OrderFailure>(kOrderFailures, name);
}

OrderStatus after_stitch_gave_up(OrderStatus current) noexcept {
  if (current == OrderStatus::completed || current == OrderStatus::result_delivered) return current;
  return can_move(current, OrderStatus::failed, Trigger::stitch_failed) ? OrderStatus::failed : current;
}

bool can_move(OrderStatus from, OrderStatus to, std::optional<Trigger> trigger) noexcept {
  return listed(kOrderMoves, from, to, trigger);
}

bool can_move(ItemStatus from, ItemStatus to, std::optional<Trigger> trigger) noexcept {
  return listed(kItemMoves, from, to, trigger);
}

Settlement settle(OrderStatus current, Positions p, bool item_completed) noexcept {
  if (is_closed(current) || p.live > 0 || p.positions == 0) return Settlement::wait;
  if (current == OrderStatus::completed || current == OrderStatus::result_delivered) {
    // A finished order changes only through a regeneration: its new audio needs a new result.
    return item_completed ? Settlement::stitch : Settlement::wait;
  }
  if (p.completed == p.positions) return Settlement::stitch;
  return p.completed > 0 ? Settlement::partially_completed : Settlement::failed;
}

}  // namespace mediagen::orders
