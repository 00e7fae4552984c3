// Order cancel, order retry (spec 3.1, 4.1, 7.1) and the end of an order whose answer was not
// delivered (the OpenAI-compatible surface).
#include <nlohmann/json.hpp>

#include "mediagen/db/settled.hpp"
#include "mediagen/orders/reads.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/templates/templates.hpp"
#include "mediagen/orders/actions.hpp"
#include "mediagen/orders/create.hpp"

namespace mediagen::orders {
namespace {

// What cancel does with an order's work and money, in the caller's transaction: every live record
// stopped (it loses its lease, so a completion arriving later writes and charges nothing) and
// everything the order still holds returned through the ledger.
void stop_and_release(db::Db& db, db::Tx& tx, const OrderAccounts& accounts, std::vector<OrderChange>& changes,
                      std::string_view again_reference = {}) {
  for (auto& item_id : stop_live_items(db, tx, accounts.order_id)) {
    changes.push_back({.subject = OrderChange::Subject::item, .id = std::move(item_id), .order_id = accounts.order_id,
                       .status = to_string(ItemStatus::failed)});
  }
  release_order(db, tx, accounts, again_reference);
}

}  // namespace

Result<OrderWritten> cancel_order(db::Db& db, const Caller& caller, const OrderId& order_id) {
  const std::string& id = order_id.str();
  std::vector<OrderChange> changes;
  auto cancelled = db::transact_settled(db, [&](db::Tx& tx) -> Result<void> {
    changes.clear();  // a transaction that is run again starts over
    lock_live_items(db, tx, id);
    const auto lock = lock_order_for_action(db, tx, id);
    if (!lock || lock->owner != caller.principal.user_id) return ApiError::not_found();
    if (!can_move(lock->status, OrderStatus::cancelled, Trigger::cancel)) return ApiError::order_not_cancellable();
    if (lock->stitching) return ApiError::refused(Reason::stitch_in_progress);
    stop_and_release(db, tx, {caller.principal.user_id, id, lock->money, lock->tokens}, changes);
    mark_cancelled(db, tx, id);
    return {};
  });
  if (!cancelled) return cancelled.error();
  // The order last: a client that stops listening at a terminal status has seen its items' events.
  changes.push_back(
      {.subject = OrderChange::Subject::order, .id = id, .order_id = id, .status = to_string(OrderStatus::cancelled)});
  auto order = find_own_order(db, caller.principal.user_id, order_id, false);
  if (!order) return order.error();
  return OrderWritten{.order = std::move(*order), .changes = std::move(changes)};
}

Result<std::vector<OrderChange>> end_undelivered_order(db::Db& db, UserId user, const OrderId& order_id,
                                                       int delivered) {
  const std::string& id = order_id.str();
  std::vector<OrderChange> changes;
  bool ended = false;
  auto done = db::transact(db, [&](db::Tx& tx) -> Result<void> {
    changes.clear();  // a transaction that is run again starts over
    ended = false;
    lock_live_items(db, tx, id);
    const auto lock = lock_order_for_action(db, tx, id);
    if (!lock || lock->owner != user) return ApiError::not_found();
    // Failed, cancelled or compensated already: its own rules returned what it held.
    if (!can_move(lock->status, OrderStatus::failed, Trigger::undelivered)) return {};
    const OrderAccounts accounts{user, id, lock->money, lock->tokens};
    // A finished order was released when its result was built: a later release has its own reference.
    stop_and_release(db, tx, accounts, changes, id + ":" + std::string(to_string(OrderFailure::not_delivered)));
    for (const auto& c : charges_from_position(db, tx, id, delivered)) {
      refund_charge(db, tx, accounts, c.item_id, {.quota_tokens = c.quota_tokens, .minor = c.minor});
    }
    mark_not_delivered(db, tx, id);
    ended = true;
    return {};
  });
  if (!done) return done.error();
  if (ended) {
    changes.push_back({.subject = OrderChange::Subject::order, .id = id, .order_id = id,
                       .status = to_string(OrderStatus::failed)});
  }
  return changes;
}

Result<TopupConfirmation> read_retry_body(const nlohmann::json& body) {
  if (!body.is_object()) return ApiError::validation("body", Message{"validation.object", {{"attribute", "body"}}});
  TopupConfirmation topup;
  if (auto v = body.find("confirm_payg_topup"); v != body.end() && !v->is_null()) {
    if (!v->is_boolean()) {
      return ApiError::validation("confirm_payg_topup", Message{"validation.boolean", {{"attribute", "confirm_payg_topup"}}});
    }
    topup.confirmed = v->get<bool>();
  }
  if (auto v = body.find("quote_token"); v != body.end() && !v->is_null()) {
    if (!v->is_string()) return ApiError::validation("quote_token", Message{"validation.string", {{"attribute", "quote_token"}}});
    topup.quote_token = v->get<std::string>();
  }
  return topup;
}

Result<OrderWritten> retry_order(db::Db& db, const Caller& caller, const OrderId& order_id, TopupConfirmation topup,
                                 OrderKeeper* kept) {
  const auto source = read_retry_source(db, order_id.str());
  if (!source || source->owner != caller.principal.user_id) return ApiError::not_found();
  // Spec 3.1: a new order from a completed one only.
  if (source->status != OrderStatus::completed && source->status != OrderStatus::result_delivered) {
    return ApiError::refused(Reason::invalid_order_status);
  }
  if (!source->input_text) return ApiError::refused(Reason::input_expired);

  NewOrder order;
  order.task_type = source->task_type;
  order.service_key = source->service_key;
  order.template_id = source->template_id;
  order.config_override = source->config_override;
  order.mode = generation_mode_from_string(source->generation_mode).value_or(GenerationMode::ordinary);
  order.task_data = source->task_data;
  order.input_text = *source->input_text;
  order.retry_of = order_id.str();
  order.topup = std::move(topup);
  order.output_format = output_format_of(source->engine_request);
  if (order.task_type == TaskType::tts) {
    // The snapshot of the original, checked against the CURRENT schema (spec 7.1: 400
    // retry_config_outdated when it no longer passes; later template edits do not matter).
    auto setup = templates::validate_stored(db, order.service_key, source->config_snapshot,
                                            caller.principal.user_id);
    if (!setup) return ApiError::retry_config_outdated_on_order();
    // The voice and settings the snapshot resolves to today.
    use_speech_setup(order, *setup);
    order.plan = plan_chunks(order.input_text, order.chunker);
  } else if (order.task_type == TaskType::voice_search) {
    // The original's file searched again, while retention keeps it (after that the chunk fails
    // and the money goes back).
    const auto asked = read_voice_search_request(source->engine_request);
    if (!asked || !use_voice_search_service(db, asked->top, asked->upload, order)) {
      return ApiError::retry_config_outdated_on_order();
    }
  } else {
    // The same request again (a seed it named stays, so the same audio comes back; otherwise a
    // new one). The stored task_data passed these checks when the order was made.
    FieldErrors ignored;
    const auto data = nlohmann::json::parse(order.task_data, nullptr, false);
    const auto params = read_generative_params(order.task_type, data.is_object() ? data : nlohmann::json::object(), ignored);
    if (!use_prompt_service(db, params, true, order)) return ApiError::retry_config_outdated_on_order();
  }
  return insert_order(db, caller, order, std::nullopt, kept, "orders.retry:" + order_id.str());
}

}  // namespace mediagen::orders
