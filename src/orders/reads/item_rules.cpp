#include "mediagen/orders/reads.hpp"

#include <map>
#include <tuple>

namespace mediagen::orders {
namespace {

bool newer(const Item& a, const Item& b) {
  return std::tie(a.created_at, a.attempt_number, a.id) > std::tie(b.created_at, b.attempt_number, b.id);
}

bool is_live(ItemStatus s) { return s == ItemStatus::pending || s == ItemStatus::processing; }

void add(Position& p, const Item& item) {
  if (is_live(item.status)) p.live = true;
  if (item.type != ItemType::regeneration && (!p.last_attempt || newer(item, *p.last_attempt))) {
    p.last_attempt = &item;
  }
  if (item.status == ItemStatus::completed && (!p.newest_completed || newer(item, *p.newest_completed))) {
    p.newest_completed = &item;
  }
}

bool same(const Item* a, const Item& b) { return a && a->id == b.id; }

}  // namespace

Position position_of(const std::vector<Item>& items_of_order, int chunk_index) {
  Position p;
  for (const auto& item : items_of_order) {
    if (item.chunk_index == chunk_index) add(p, item);
  }
  return p;
}


std::optional<Reason> retry_refusal(const Order& order, const Position& position, const Item& item) {
  if (is_single_shot(order.task_type)) return Reason::generative_not_supported;
  if (order.status != OrderStatus::partially_completed) return Reason::invalid_order_status;
  if (order.stitching) return Reason::stitch_in_progress;
  if (position.live) return Reason::active_retry_exists;
  const bool failed = item.status == ItemStatus::failed || item.status == ItemStatus::policy_flagged;
  if (!failed || !same(position.last_attempt, item)) return Reason::invalid_status;
  if (item.attempt_number >= kMaxAttempts) return Reason::max_attempts_reached;
  return std::nullopt;
}

std::optional<Reason> regenerate_refusal(const Order& order, const Position& position, const Item& item) {
  if (is_single_shot(order.task_type)) return Reason::generative_not_supported;
  if (order.status != OrderStatus::completed && order.status != OrderStatus::result_delivered &&
      order.status != OrderStatus::partially_completed) {
    return Reason::invalid_order_status;
  }
  // The other positions' audio is gone, so a new take could not be stitched into a result.
  if (order.files_removed) return Reason::input_expired;
  if (order.stitching) return Reason::stitch_in_progress;
  if (position.live) return Reason::active_retry_exists;
  if (item.status != ItemStatus::completed || !same(position.newest_completed, item)) return Reason::invalid_status;
  return std::nullopt;
}

bool can_retry(const Order& order, const std::vector<Item>& items_of_order, const Item& item) {
  return !retry_refusal(order, position_of(items_of_order, item.chunk_index), item);
}

bool can_regenerate(const Order& order, const std::vector<Item>& items_of_order, const Item& item) {
  return !regenerate_refusal(order, position_of(items_of_order, item.chunk_index), item);
}

void apply_item_flags(const Order& order, std::vector<Item>& items_of_order) {
  std::map<int, Position> positions;
  for (const auto& item : items_of_order) add(positions[item.chunk_index], item);
  for (auto& item : items_of_order) {
    const Position& p = positions.at(item.chunk_index);
    item.can_retry = !retry_refusal(order, p, item);
    item.can_regenerate = !regenerate_refusal(order, p, item);
  }
}

}  // namespace mediagen::orders
