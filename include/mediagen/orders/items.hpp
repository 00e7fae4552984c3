#pragma once
// Item actions (spec 4.2): retry one item, retry every failed item, regenerate one item. Each runs
// in ONE database transaction with its ledger transfers (blocking SQL: call on the blocking pool).
#include <optional>
#include <string>

#include "mediagen/db/db.hpp"
#include "mediagen/orders/order.hpp"

namespace mediagen::orders {

// `text`: the request's replacement text (read_item_text), or none to use the item's own.
Result<OperationReply> retry_item(db::Db& db, const Caller& caller, const OrderId& order_id, const ItemId& item_id,
                                  const std::optional<std::string>& text,
                                  const std::optional<IdempotencyKey>& idempotency);
Result<OperationReply> retry_failed_items(db::Db& db, const Caller& caller, const OrderId& order_id);
Result<OperationReply> regenerate_item(db::Db& db, const Caller& caller, const OrderId& order_id,
                                       const ItemId& item_id, const std::optional<std::string>& text);

}  // namespace mediagen::orders
