// The work queue's upkeep of finished orders (the janitor's SQL): retention, compensation and
// spent top-up quotes.
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/queue.hpp"
#include "work_store.hpp"

namespace mediagen::orders {
namespace {

// Through the partial index orders_retention (terminal orders whose files are still there).
const db::Statement kRetentionDue{
    "work_retention_due",
    "SELECT id::text FROM orders WHERE terminal_at IS NOT NULL AND files_removed_at IS NULL"
    "  AND terminal_at < now() - $1::bigint * interval '1 second' ORDER BY terminal_at LIMIT $2"};

// Counted through the partial index order_items_queue, which holds exactly the pending rows.
const db::Statement kPendingChunks{
    "work_pending_chunks", "SELECT count(*) FROM order_items WHERE status = 'pending'"};

// Items before the order (the queue's lock order). Paths stay on both: the order keeps listing them.
const db::Statement kForgetItemTexts{
    "work_forget_item_texts",
    "WITH gone AS (DELETE FROM order_item_texts x USING order_items i"
    "  WHERE x.item_id = i.id AND i.order_id = $1::uuid RETURNING x.item_id)"
    " UPDATE order_items SET updated_at = now() WHERE id IN (SELECT item_id FROM gone)"};

const db::Statement kMarkFilesRemoved{
    "work_mark_files_removed",
    "UPDATE orders SET files_removed_at = now(), input_text = NULL, input_removed_at = now(), updated_at = now()"
    " WHERE id = $1::uuid AND files_removed_at IS NULL"};

// Through the partial index orders_abandoned.
const db::Statement kCompensationDue{
    "work_compensation_due",
    "SELECT id::text FROM orders WHERE status = 'partially_completed'"
    "  AND updated_at < now() - $1::bigint * interval '1 second' ORDER BY updated_at LIMIT $2"};

const db::Statement kLockOrderItems{
    "work_lock_order_items", "SELECT id FROM order_items WHERE order_id = $1::uuid ORDER BY id FOR UPDATE"};

// Checked again under the lock: a retry created or a stitch started since the scan is a change.
const db::Statement kCompensate{
    "work_compensate",
    "UPDATE orders o SET status = 'compensated', terminal_at = now(), updated_at = now()"
    " WHERE o.id = $1::uuid AND o.status = 'partially_completed' AND o.stitch_token IS NULL"
    "  AND o.updated_at < now() - $2::bigint * interval '1 second'"
    "  AND NOT EXISTS (SELECT 1 FROM order_items i WHERE i.order_id = o.id AND i.status IN ('pending', 'processing'))"
    " RETURNING o.user_id, o.asset_id, (SELECT id FROM currency_assets WHERE kind = 'tokens')"};

// A spent quote matters only while its token could still be shown (orders/topup_quote.hpp).
const db::Statement kForgetSpentQuotes{
    "work_forget_spent_quotes",
    "DELETE FROM topup_quote_uses WHERE used_at < now() - $1::bigint * interval '1 second'"};

std::vector<std::string> ids(db::Db& db, const db::Statement& st, std::int64_t seconds, int batch) {
  return db::read(db, [&](db::Tx& tx) {
    std::vector<std::string> out;
    for (const auto& row : db.exec(tx, st, seconds, batch)) out.push_back(row[0].as<std::string>());
    return out;
  });
}

}  // namespace

std::int64_t WorkQueue::pending_chunks() {
  return db::read(db_, [&](db::Tx& tx) { return db_.exec(tx, kPendingChunks)[0][0].as<std::int64_t>(); });
}

std::vector<std::string> WorkQueue::retention_due(std::chrono::seconds age, int batch) {
  return ids(db_, kRetentionDue, age.count(), batch);
}

void WorkQueue::mark_files_removed(std::string_view order_id) {
  const std::string id(order_id);
  db::transact(db_, [&](db::Tx& tx) {
    db_.exec(tx, kForgetItemTexts, id);
    db_.exec(tx, kMarkFilesRemoved, id);
  });
}

std::int64_t WorkQueue::forget_spent_quotes(std::chrono::seconds age) {
  return db::transact(db_, [&](db::Tx& tx) {
    return static_cast<std::int64_t>(db_.exec(tx, kForgetSpentQuotes, static_cast<std::int64_t>(age.count())).affected_rows());
  });
}

std::vector<OrderChange> WorkQueue::compensate_abandoned(std::chrono::seconds age, int batch) {
  std::vector<OrderChange> changes;
  for (const auto& order_id : ids(db_, kCompensationDue, age.count(), batch)) {
    const bool done = db::transact(db_, [&](db::Tx& tx) {
      db_.exec(tx, kLockOrderItems, order_id);
      auto rows = db_.exec(tx, kCompensate, order_id, static_cast<std::int64_t>(age.count()));
      if (rows.empty()) return false;
      const OrderAccounts accounts{.user = UserId{rows[0][0].as<std::int64_t>()},
                                   .order_id = order_id,
                                   .money = AssetId{rows[0][1].as<std::int64_t>()},
                                   .tokens = AssetId{rows[0][2].as<std::int64_t>()}};
      release_order(db_, tx, accounts);
      return true;
    });
    if (done) changes.push_back({OrderChange::Subject::order, order_id, order_id, to_string(OrderStatus::compensated)});
  }
  return changes;
}

}  // namespace mediagen::orders
