// POST /orders (spec 4.1.1). The checks run in the spec's order - template access (403), token
// quota (429), billing (402), maintenance (503), request shape (422) - and the order, its
// chunks, the lock of its estimate and the Idempotency-Key answer commit together in one
// transaction, or nothing does.
#include <nlohmann/json.hpp>
#include "mediagen/core/json_text.hpp"

#include "idempotency.hpp"
#include "mediagen/billing/ledger.hpp"
#include "mediagen/db/pg.hpp"
#include "mediagen/orders/order_json.hpp"
#include "mediagen/orders/order_money.hpp"
#include "mediagen/orders/orders.hpp"
#include "mediagen/orders/text_rules.hpp"
#include "mediagen/templates/templates.hpp"
#include "order_creation.hpp"
#include "order_pricing.hpp"
#include "order_request.hpp"

namespace mediagen::orders {
namespace {

using nlohmann::json;

const db::Statement kStoredReply{
    "orders_idempotent_reply",
    "SELECT scope, encode(request_hash, 'hex'), status, body FROM idempotency_keys"
    " WHERE user_id = $1 AND key = $2 AND status <> 0 AND created_at >= now() - interval '24 hours'"};


// Looks the key up before anything else, so that a replay answers even when the template has
// since been deleted or the balance spent. The transaction's claim settles races.
std::optional<Result<OperationReply>> early_replay(db::Db& db, UserId user, std::string_view scope,
                                                   const IdempotencyKey& key) {
  auto rows = db::read(db, [&](pqxx::transaction_base& tx) { return db.exec(tx, kStoredReply, user.value, key.key); });
  if (rows.empty()) return std::nullopt;
  if (rows[0][0].as<std::string>() != scope || rows[0][1].as<std::string>() != key.request_hash) {
    return Result<OperationReply>(ApiError::refusal(409, Reason::idempotency_key_reused));
  }
  return Result<OperationReply>(
      OperationReply{.status = rows[0][2].as<int>(), .data_json = rows[0][3].as<std::string>(), .replayed = true});
}

}  // namespace

Result<OperationReply> create_order(db::Db& db, cache::Redis& redis, const Caller& caller, const json& body,
                                    const std::optional<IdempotencyKey>& idempotency) {
  const UserId user = caller.principal.user_id;
  if (idempotency) {
    if (auto replay = early_replay(db, user, "orders.create", *idempotency)) return std::move(*replay);
  }
  auto read = read_create_request(body);
  if (!read) return read.error();
  CreateRequest& req = *read;

  NewOrder order;
  order.task_type = req.task_type;
  order.config_override = to_json_text(req.config_override);
  order.mode = req.mode;
  order.task_data = to_json_text(req.task_data);
  order.input_text = req.text;

  // Template access first (403 / 404); a template that no longer passes the schema is a shape
  // problem, reported with the other 422s.
  std::optional<ApiError> outdated;
  if (req.template_id) {
    auto stored = templates::load_template(db, user, *req.template_id);
    if (!stored) return stored.error();
    order.template_id = stored->id;
    order.service_key = stored->service_key;
    auto setup = templates::validate_stored(db, *stored);
    if (!setup) outdated = setup.error();
    else use_speech_setup(order, *setup);
  } else if (req.task_type == "sfx" || req.task_type == "music") {
    if (!use_prompt_service(db, req.task_type, order)) req.refusal = ApiError::refusal(422, Reason::service_not_found);
  }

  // The estimate: what the text will bill, even when another field is wrong (billing is checked
  // before the shape); nothing when there is no usable text, which the shape check refuses.
  if (req.text_ok && !outdated && !order.service_key.empty()) order.plan = plan_chunks(order.input_text, order.chunker);

  std::optional<ApiError> shape;
  if (!req.acceptable() || outdated) {
    if (req.refusal) shape = std::move(req.refusal);
    else if (auto e = req.errors.take()) shape = std::move(*e);
    else shape = std::move(outdated);
  }
  return insert_order(db, redis, caller, order, std::move(shape), idempotency, "orders.create");
}

}  // namespace mediagen::orders
