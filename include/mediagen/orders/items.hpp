#pragma once
// Item actions (spec 4.2): retry one item, retry every failed item, regenerate one item. Each runs
// in ONE database transaction with its ledger transfers (blocking SQL: call on the blocking pool).
#include <optional>
#include <string>

#include "mediagen/db/db.hpp"
#include "mediagen/orders/create.hpp"

namespace mediagen::orders {

// `text`: the request's replacement text (read_item_text), or none to use the item's own.
// `kept`: the Idempotency-Key of an item retry (scope "items.retry:<item>"), when there is one.
Result<ItemsQueued> retry_item(db::Db& db, const Caller& caller, const OrderId& order_id, const ItemId& item_id,
                               const std::optional<std::string>& text, ItemsKeeper* kept);
Result<ItemsQueued> retry_failed_items(db::Db& db, const Caller& caller, const OrderId& order_id);
Result<ItemsQueued> regenerate_item(db::Db& db, const Caller& caller, const OrderId& order_id, const ItemId& item_id,
                                    const std::optional<std::string>& text);

}  // namespace mediagen::orders
