// The SQL of the item actions (see item_store.hpp).
#include "item_store.hpp"

#include "mediagen/db/pg.hpp"

namespace mediagen::orders {
namespace {

const db::Statement kLockOrder{
    "items_lock_order",
    "SELECT user_id, asset_id, (SELECT id FROM currency_assets WHERE kind = 'tokens'), price_per_1k_minor,"
    " COALESCE((SELECT enabled FROM service_switches WHERE name = 'maintenance'), false)"
    " FROM orders WHERE id = $1 FOR UPDATE"};
const db::Statement kItemRow{
    "items_row",
    "SELECT t.text, i.original_text_length, i.free_length, i.max_billable_length, i.max_raw_length, i.capacity_unit,"
    " i.quota_tokens, i.payg_minor, i.remaining_locked"
    " FROM order_items i LEFT JOIN order_item_texts t ON t.item_id = i.id WHERE i.id = $1 AND i.order_id = $2"};
const db::Statement kQuota{
    "items_quota",
    "SELECT COALESCE((SELECT a.balance FROM ledger_accounts a WHERE a.kind = 'quota' AND a.owner = 'user:' || $1::text"
    "  AND a.asset_id = $2 FOR UPDATE), 0)"
    " WHERE EXISTS (SELECT 1 FROM subscriptions WHERE user_id = $1::bigint AND cancelled_at IS NULL AND starts_at <= now()"
    "  AND expires_at > now())"};
// The new record and its text; the parent hands its base lock over (retries) or keeps its own
// (regenerations).
const db::Statement kInsertRecord{
    "items_insert_record",
    "WITH ins AS ("
    "  INSERT INTO order_items (id, order_id, item_type, chunk_index, parent_item_id, attempt_number,"
    "   original_text_length, current_text_length, free_length, billable_length, max_billable_length, max_raw_length,"
    "   raw_length, capacity_unit, price_units, quota_tokens, payg_minor, surcharge_tokens, surcharge_quota_tokens,"
    "   surcharge_minor, remaining_locked)"
    "  SELECT $1, p.order_id, $2, p.chunk_index, p.id, $3, p.original_text_length, $5, p.free_length, $6,"
    "   p.max_billable_length, p.max_raw_length, $7, p.capacity_unit, $8, $9, $10, $11, $12, $13, $8"
    "  FROM order_items p WHERE p.id = $14 RETURNING id)"
    " INSERT INTO order_item_texts (item_id, text) SELECT id, $4::text FROM ins"};
const db::Statement kHandOver{
    "items_hand_over_lock",
    "UPDATE order_items SET remaining_locked = 0, quota_tokens = 0, payg_minor = 0, updated_at = now() WHERE id = $1"};
const db::Statement kRegenerations{
    "items_regenerations",
    "SELECT count(*) FROM order_items WHERE order_id = $1 AND chunk_index = $2 AND item_type = 'regeneration'"};
const db::Statement kSnapshot{
    "items_snapshot", "SELECT service_key, config_snapshot::text, task_type FROM orders WHERE id = $1"};

}  // namespace

std::optional<ItemActionLock> lock_order_for_item_action(db::Db& db, db::Tx& tx, const std::string& order_id) {
  const auto rows = db.exec(tx, kLockOrder, order_id);
  if (rows.empty()) return std::nullopt;
  const auto& r = rows[0];
  return ItemActionLock{.owner = UserId{r[0].as<std::int64_t>()},
                        .money = AssetId{r[1].as<std::int64_t>()},
                        .tokens = AssetId{r[2].as<std::int64_t>()},
                        .price_per_1k_minor = r[3].as<std::int64_t>(),
                        .maintenance = r[4].as<bool>()};
}

std::optional<ItemRow> read_item_row(db::Db& db, db::Tx& tx, const std::string& item_id, const std::string& order_id) {
  const auto rows = db.exec(tx, kItemRow, item_id, order_id);
  if (rows.empty()) return std::nullopt;
  const auto& r = rows[0];
  ItemRow row;
  if (!r[0].is_null()) row.text = r[0].as<std::string>();
  row.fields.original_text_length = r[1].as<std::size_t>();
  row.fields.free_length = r[2].as<std::size_t>();
  row.fields.max_billable_length = r[3].as<std::size_t>();
  row.fields.max_raw_length = r[4].as<std::size_t>();
  row.fields.capacity_unit = capacity_unit_from_string(r[5].as<std::string>()).value_or(CapacityUnit::chars);
  row.base = {.quota_tokens = r[6].as<std::int64_t>(), .minor = r[7].as<std::int64_t>()};
  row.remaining_locked = r[8].as<std::int64_t>();
  return row;
}

std::int64_t locked_quota(db::Db& db, db::Tx& tx, UserId user, AssetId tokens) {
  const auto q = db.exec(tx, kQuota, user.value, tokens.value);
  return q.empty() ? 0 : q[0][0].as<std::int64_t>();
}

void insert_record(db::Db& db, db::Tx& tx, const NewRecord& r) {
  db.exec(tx, kInsertRecord, r.id, std::string(r.type), r.attempt_number, r.text,
          static_cast<std::int64_t>(r.fields.length), static_cast<std::int64_t>(r.fields.billable_length),
          static_cast<std::int64_t>(r.fields.raw_length), r.price_units, r.base.quota_tokens, r.base.minor,
          r.surcharge_tokens, r.surcharge.quota_tokens, r.surcharge.minor, r.parent_id);
}

void hand_over_lock(db::Db& db, db::Tx& tx, const std::string& item_id) { db.exec(tx, kHandOver, item_id); }

std::int64_t count_regenerations(db::Db& db, db::Tx& tx, const std::string& order_id, int chunk_index) {
  return db.exec(tx, kRegenerations, order_id, chunk_index)[0][0].as<std::int64_t>();
}

std::optional<SettingsSnapshot> settings_snapshot(db::Db& db, db::Tx& tx, const std::string& order_id) {
  const auto rows = db.exec(tx, kSnapshot, order_id);
  if (rows.empty()) return std::nullopt;
  return SettingsSnapshot{rows[0][0].as<std::string>(), rows[0][1].as<std::string>(),
                          parse_task_type(rows[0][2].c_str()).value_or(TaskType::tts)};  // the column is the enum
}

}  // namespace mediagen::orders
