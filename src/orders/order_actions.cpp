// Order cancel and order retry (spec 3.1, 4.1, 7.1).
#include <nlohmann/json.hpp>

#include "mediagen/core/uuid.hpp"
#include "mediagen/db/pg.hpp"
#include "mediagen/orders/order_json.hpp"
#include "mediagen/orders/order_money.hpp"
#include "mediagen/orders/order_reads.hpp"
#include "mediagen/orders/orders.hpp"
#include "mediagen/templates/templates.hpp"
#include "order_creation.hpp"
#include "order_locks.hpp"
#include "refused.hpp"

namespace mediagen::orders {
namespace {

const db::Statement kLockOrder{
    "orders_lock_for_action",
    "SELECT user_id, status, (stitch_token IS NOT NULL OR stitch_until IS NOT NULL), asset_id,"
    " (SELECT id FROM currency_assets WHERE kind = 'tokens')"
    " FROM orders WHERE id = $1 FOR UPDATE"};
// A running attempt loses its lease, so a completion arriving after the cancel writes nothing.
const db::Statement kStopItems{
    "orders_stop_items",
    "UPDATE order_items SET status = 'failed', failure_reason = 'order_cancelled', lease_token = NULL,"
    " locked_until = NULL, updated_at = now() WHERE order_id = $1 AND status IN ('pending', 'processing')"
    " RETURNING id::text"};
const db::Statement kCancel{
    "orders_cancel",
    "UPDATE orders SET status = 'cancelled', terminal_at = now(), updated_at = now() WHERE id = $1"};

const db::Statement kRetrySource{
    "orders_retry_source",
    "SELECT user_id, status, task_type, service_key, template_id, config_snapshot::text, config_override::text,"
    " generation_mode, task_data::text, input_text"
    " FROM orders WHERE id = $1"};


ApiError not_cancellable() {
  ApiError e = ApiError::refusal(400, Reason::none);
  e.message = Message{"errors.order_not_cancellable"};
  return e;
}

Result<OperationReply> render(db::Db& db, const Caller& caller, std::string_view order_id) {
  auto order = find_own_order(db, caller.principal.user_id, order_id, false);
  if (!order) return order.error();
  return OperationReply{.status = 200, .message = "orders.cancelled", .data_json = order_json(*order, caller.tz)};
}

}  // namespace

Result<OperationReply> cancel_order(db::Db& db, const Caller& caller, std::string_view order_id) {
  if (!is_uuid(order_id)) return ApiError::not_found();
  const std::string id(order_id);
  std::vector<OrderChange> changes;
  try {
    db::transact(db, [&](pqxx::work& tx) {
      changes.clear();  // a transaction that is run again starts over
      lock_live_items(db, tx, id);
      const auto rows = db.exec(tx, kLockOrder, id);
      if (rows.empty() || rows[0][0].as<std::int64_t>() != caller.principal.user_id.value) {
        throw Refused{ApiError::not_found()};
      }
      const auto status = order_status_from_string(rows[0][1].as<std::string>());
      if (status != OrderStatus::created && status != OrderStatus::pending &&
          status != OrderStatus::partially_completed) {
        throw Refused{not_cancellable()};
      }
      if (rows[0][2].as<bool>()) throw Refused{ApiError::refusal(409, Reason::stitch_in_progress)};
      for (const auto& row : db.exec(tx, kStopItems, id)) {
        changes.push_back({.subject = OrderChange::Subject::item, .id = row[0].as<std::string>(), .order_id = id});
      }
      release_order(db, tx,
                    {caller.principal.user_id, id, AssetId{rows[0][3].as<std::int64_t>()},
                     AssetId{rows[0][4].as<std::int64_t>()}});
      db.exec(tx, kCancel, id);
    });
  } catch (const Refused& r) {
    return r.error;
  }
  // The order last: a client that stops listening at a terminal status has seen its items' events.
  changes.push_back({.subject = OrderChange::Subject::order, .id = id, .order_id = id});
  auto reply = render(db, caller, id);
  if (reply) reply->changes = std::move(changes);
  return reply;
}

Result<OperationReply> retry_order(db::Db& db, cache::Redis& redis, const Caller& caller, std::string_view order_id,
                                   const nlohmann::json& body, const std::optional<IdempotencyKey>& idempotency) {
  if (!body.is_object()) return ApiError::validation("body", Message{"validation.object", {{"attribute", "body"}}});
  if (auto v = body.find("confirm_payg_topup"); v != body.end() && !v->is_null() && !v->is_boolean()) {
    return ApiError::validation("confirm_payg_topup", Message{"validation.boolean", {{"attribute", "confirm_payg_topup"}}});
  }
  if (auto v = body.find("quote_token"); v != body.end() && !v->is_null() && !v->is_string()) {
    return ApiError::validation("quote_token", Message{"validation.string", {{"attribute", "quote_token"}}});
  }
  if (!is_uuid(order_id)) return ApiError::not_found();
  const auto rows = db::read(db, [&](pqxx::transaction_base& tx) { return db.exec(tx, kRetrySource, std::string(order_id)); });
  if (rows.empty() || rows[0][0].as<std::int64_t>() != caller.principal.user_id.value) return ApiError::not_found();
  const auto& r = rows[0];
  const auto status = order_status_from_string(r[1].as<std::string>());
  if (status != OrderStatus::completed && status != OrderStatus::result_delivered) {
    return ApiError::refusal(422, Reason::invalid_order_status);
  }
  if (r[9].is_null()) return ApiError::refusal(422, Reason::input_expired);

  NewOrder order;
  order.task_type = r[2].as<std::string>();
  order.service_key = r[3].as<std::string>();
  if (!r[4].is_null()) order.template_id = r[4].as<std::string>();
  order.config_override = r[6].as<std::string>();
  order.mode = generation_mode_from_string(r[7].as<std::string>()).value_or(GenerationMode::ordinary);
  order.task_data = r[8].as<std::string>();
  order.input_text = r[9].as<std::string>();
  order.retry_of = std::string(order_id);
  if (order.task_type == "tts") {
    // The snapshot of the original, checked against the CURRENT schema (spec 7.1: 400
    // retry_config_outdated when it no longer passes; later template edits do not matter).
    auto setup = templates::validate_stored(db, order.service_key, r[5].as<std::string>());
    if (!setup) return ApiError::refusal(400, Reason::retry_config_outdated);
    // The voice and settings the snapshot resolves to today.
    use_speech_setup(order, *setup);
  } else if (!use_prompt_service(db, order.task_type, order)) {
    return ApiError::refusal(400, Reason::retry_config_outdated);
  }
  order.plan = plan_chunks(order.input_text, order.chunker);
  return insert_order(db, redis, caller, order, std::nullopt, idempotency, "orders.retry:" + std::string(order_id));
}

}  // namespace mediagen::orders
