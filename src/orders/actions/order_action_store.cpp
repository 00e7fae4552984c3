// The SQL of order cancel and order retry (see order_action_store.hpp).
#include "mediagen/orders/actions.hpp"

#include "mediagen/db/pg.hpp"

namespace mediagen::orders {
namespace {

const db::Statement kLockLiveItems{
    "orders_lock_live_items",
    "SELECT id FROM order_items WHERE order_id = $1 AND status IN ('pending', 'processing') ORDER BY id FOR UPDATE"};

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

// The amounts are the ones a chunk_charge moves (charge_item) and the stitch's give-up returns.
const db::Statement kChargesFrom{
    "orders_charges_from_position",
    "SELECT i.id::text, i.quota_tokens + i.surcharge_quota_tokens, i.payg_minor + i.surcharge_minor"
    " FROM order_items i JOIN ledger_txns t ON t.kind = 'chunk_charge' AND t.reference = i.id::text"
    " WHERE i.order_id = $1::uuid AND i.chunk_index >= $2 ORDER BY i.id"};
const db::Statement kNotDelivered{
    "orders_not_delivered",
    "UPDATE orders SET status = 'failed', failure_reason = 'not_delivered', stitch_token = NULL, stitch_until = NULL,"
    " terminal_at = COALESCE(terminal_at, now()), updated_at = now() WHERE id = $1::uuid"};

const db::Statement kRetrySource{
    "orders_retry_source",
    "SELECT user_id, status, task_type, service_key, template_id, config_snapshot::text, config_override::text,"
    " generation_mode, task_data::text, input_text, engine_request::text"
    " FROM orders WHERE id = $1"};

// The status column's CHECK allows only the state machine's names.
OrderStatus status_of(const pqxx::field& f) { return *order_status_from_string(f.as<std::string>()); }

}  // namespace

void lock_live_items(db::Db& db, db::Tx& tx, const std::string& order_id) { db.exec(tx, kLockLiveItems, order_id); }

std::optional<ActionLock> lock_order_for_action(db::Db& db, db::Tx& tx, const std::string& order_id) {
  const auto rows = db.exec(tx, kLockOrder, order_id);
  if (rows.empty()) return std::nullopt;
  const auto& r = rows[0];
  return ActionLock{.owner = UserId{r[0].as<std::int64_t>()},
                    .status = status_of(r[1]),
                    .stitching = r[2].as<bool>(),
                    .money = AssetId{r[3].as<std::int64_t>()},
                    .tokens = AssetId{r[4].as<std::int64_t>()}};
}

std::vector<std::string> stop_live_items(db::Db& db, db::Tx& tx, const std::string& order_id) {
  std::vector<std::string> ids;
  for (const auto& row : db.exec(tx, kStopItems, order_id)) ids.push_back(row[0].as<std::string>());
  return ids;
}

void mark_cancelled(db::Db& db, db::Tx& tx, const std::string& order_id) { db.exec(tx, kCancel, order_id); }

std::vector<RecordCharge> charges_from_position(db::Db& db, db::Tx& tx, const std::string& order_id,
                                                int first_position) {
  std::vector<RecordCharge> out;
  for (const auto& row : db.exec(tx, kChargesFrom, order_id, first_position)) {
    out.push_back({row[0].as<std::string>(), row[1].as<std::int64_t>(), row[2].as<std::int64_t>()});
  }
  return out;
}

void mark_not_delivered(db::Db& db, db::Tx& tx, const std::string& order_id) { db.exec(tx, kNotDelivered, order_id); }

std::optional<RetrySource> read_retry_source(db::Db& db, const std::string& order_id) {
  const auto rows = db::read(db, [&](db::Tx& tx) { return db.exec(tx, kRetrySource, order_id); });
  if (rows.empty()) return std::nullopt;
  const auto& r = rows[0];
  RetrySource s{.owner = UserId{r[0].as<std::int64_t>()},
                .status = status_of(r[1]),
                .task_type = parse_task_type(r[2].c_str()).value_or(TaskType::tts),
                .service_key = r[3].as<std::string>()};
  if (!r[4].is_null()) s.template_id = TemplateId::of_row(r[4].as<std::string>());
  s.config_snapshot = r[5].as<std::string>();
  s.config_override = r[6].as<std::string>();
  s.generation_mode = r[7].as<std::string>();
  s.task_data = r[8].as<std::string>();
  if (!r[9].is_null()) s.input_text = r[9].as<std::string>();
  s.engine_request = r[10].as<std::string>();
  return s;
}

}  // namespace mediagen::orders
