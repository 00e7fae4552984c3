#pragma once
// The SQL of order cancel and order retry (order_action_service.cpp), and the lock of an order's
// live items that every order action takes first.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"
#include "mediagen/orders/create.hpp"
#include "mediagen/orders/limits.hpp"
#include "mediagen/orders/order.hpp"

namespace mediagen::orders {

// The lock order of every transaction that changes an order: its live item rows first (this),
// then the order row, then ledger accounts (workers take an item row, then the order row, too).
void lock_live_items(db::Db& db, db::Tx& tx, const std::string& order_id);

// The order row, locked (after its live items).
struct ActionLock {
  UserId owner;
  OrderStatus status = OrderStatus::created;
  bool stitching = false;  // a stitch is due or running
  AssetId money;
  AssetId tokens;
};
std::optional<ActionLock> lock_order_for_action(db::Db& db, db::Tx& tx, const std::string& order_id);

// Every live record of the order fails with "order_cancelled" and loses its lease (a completion
// arriving later writes nothing); returns their ids. Then the order is cancelled.
std::vector<std::string> stop_live_items(db::Db& db, db::Tx& tx, const std::string& order_id);
void mark_cancelled(db::Db& db, db::Tx& tx, const std::string& order_id);

// The charge of each record at position `first_position` or later that was charged (the
// positions an answer did not deliver), with the amounts its chunk_charge moved.
struct RecordCharge {
  std::string item_id;
  std::int64_t quota_tokens = 0;
  std::int64_t minor = 0;
};
std::vector<RecordCharge> charges_from_position(db::Db& db, db::Tx& tx, const std::string& order_id,
                                                int first_position);
// failed with failure_reason not_delivered; a running stitch loses its token (its result is not
// taken in).
void mark_not_delivered(db::Db& db, db::Tx& tx, const std::string& order_id);

// What order retry copies from the original.
struct RetrySource {
  UserId owner;
  OrderStatus status = OrderStatus::created;
  TaskType task_type = TaskType::tts;
  std::string service_key;
  std::optional<TemplateId> template_id;
  std::string config_snapshot;
  std::string config_override;
  std::string generation_mode;
  std::string task_data;
  std::optional<std::string> input_text;  // nullopt once retention removed it
  std::string engine_request;             // what the workers were told (voice_search: its upload)
};
std::optional<RetrySource> read_retry_source(db::Db& db, const std::string& order_id);

}  // namespace mediagen::orders

#include <nlohmann/json_fwd.hpp>

// Order actions (spec 4.1): cancel, retry, and the end of an order whose answer ended early.
namespace mediagen::orders {
Result<OrderWritten> cancel_order(db::Db& db, const Caller& caller, const OrderId& order_id);

// The end of an order made for one answer (the OpenAI-compatible surface) when that answer ends
// before all of its audio was sent: positions 0..delivered-1 reached the client and stay charged.
// In one transaction, the way cancel does it: the live records are stopped and what the order
// still holds is released; then every charge of a position at or after `delivered` is returned
// (charge_refund), and the order becomes failed with failure_reason not_delivered. An order that
// is already failed, cancelled or compensated is left as its own rules settled it (no changes).
// Returns the status changes (the realtime events' source); 404 for another user's order.
Result<std::vector<OrderChange>> end_undelivered_order(db::Db& db, UserId user, const OrderId& order_id,
                                                       int delivered);
// The body of POST /orders/{order}/retry: confirm_payg_topup and quote_token (spec 7.1), both
// optional; 422 for a body that is not an object or a field of the wrong type.
Result<TopupConfirmation> read_retry_body(const nlohmann::json& body);
// `kept`: the request's Idempotency-Key (scope "orders.retry:<order>"), when there is one.
Result<OrderWritten> retry_order(db::Db& db, const Caller& caller, const OrderId& order_id, TopupConfirmation topup,
                                 OrderKeeper* kept);

}  // namespace mediagen::orders
