#pragma once
// Reading orders and items (spec 2.3, 2.4, 4.1, 4.2): the owner's view. Every miss is the same
// 404 (malformed id, no such row, another account's order, an item of another order), so an
// id never tells whether it exists elsewhere. Items come with can_retry / can_regenerate
// computed by the same rules the retry and regenerate operations enforce.
// All functions run blocking SQL: call them inside BlockingPool::run.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/core/api_error.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"
#include "mediagen/orders/chunker.hpp"
#include "mediagen/orders/order.hpp"

namespace mediagen::orders {

// The order row, and with `with_items` all its items (flags set). No owner check: callers
// compare user_id. nullopt for a malformed id or no such order.
std::optional<Order> load_order(db::Db& db, db::Tx& tx, std::string_view order_id, bool with_items);

// Every record of the order (chunks, retries, regenerations) by chunk_index, then age; the
// can_retry / can_regenerate flags are left false (load_order sets them).
std::vector<Item> load_items(db::Db& db, db::Tx& tx, std::string_view order_id);

// The caller's own order; 404 otherwise.
Result<Order> find_own_order(db::Db& db, UserId user, std::string_view order_id, bool with_items);

inline constexpr std::int64_t kDefaultOrdersPerPage = 20;
inline constexpr std::int64_t kMaxOrdersPerPage = 100;

struct OrderFilter {
  std::int64_t page = 1;  // from 1
  std::int64_t per_page = kDefaultOrdersPerPage;  // 1..kMaxOrdersPerPage
  std::optional<std::string> template_id;  // a uuid
  std::optional<OrderStatus> status;
  // Any of these; empty: every type. Values outside the task_type enum match nothing.
  std::vector<std::string> task_types;
};

struct OrderPage {
  std::vector<Order> items;  // without their items
  std::int64_t total = 0;
  std::int64_t page = 1;
  std::int64_t per_page = kDefaultOrdersPerPage;
  std::int64_t last_page() const { return total == 0 ? 1 : (total + per_page - 1) / per_page; }
};

// The caller's orders matching the filter, newest first (created_at, then id, descending).
// A page beyond the last is empty.
OrderPage list_orders(db::Db& db, UserId user, const OrderFilter& filter);

// One item of the caller's own order, flags set; 404 otherwise.
Result<Item> find_own_item(db::Db& db, UserId user, std::string_view order_id, std::string_view item_id);

// GET /orders/{order}/items/{item}/text: the current text and its measures (see
// ChunkTextFields). 404 as find_own_item; 422 input_expired once retention removed the text.
struct ItemText {
  std::string text;
  ChunkTextFields fields;
};
Result<ItemText> item_text(db::Db& db, UserId user, std::string_view order_id, std::string_view item_id);

}  // namespace mediagen::orders
