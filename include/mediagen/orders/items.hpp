#pragma once
// Item actions (spec 4.2): retry one item, retry every failed item, regenerate one item. Each runs
// in ONE database transaction with its ledger transfers (blocking SQL: call on the blocking pool).
#include <optional>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "mediagen/db/db.hpp"
#include "mediagen/orders/order.hpp"

namespace mediagen::orders {

Result<OperationReply> retry_item(db::Db& db, const Caller& caller, std::string_view order_id,
                                  std::string_view item_id, const nlohmann::json& body,
                                  const std::optional<IdempotencyKey>& idempotency);
Result<OperationReply> retry_failed_items(db::Db& db, const Caller& caller, std::string_view order_id);
Result<OperationReply> regenerate_item(db::Db& db, const Caller& caller, std::string_view order_id,
                                       std::string_view item_id, const nlohmann::json& body);

}  // namespace mediagen::orders
