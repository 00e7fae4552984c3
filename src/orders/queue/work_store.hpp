#pragma once
// What the work queue's store files share: statements (the claim's is also read by the test that
// checks its plan) and the settling of an order after a record failed. Transactions are
// db::transact's, which runs one again after a deadlock or a serialization failure.
#include <chrono>
#include <string_view>

#include "mediagen/db/pg.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/queue.hpp"

namespace mediagen::orders::detail {

// The claim, in one statement: the oldest waiting row through the partial index order_items_queue
// (only pending rows are in it, so the pick stays one index probe however many rows are done);
// SKIP LOCKED so concurrent workers take different rows instead of queueing behind one. The
// order's first claim starts it (created|pending -> in_progress); later claims write nothing to
// the order row. The start skips an order row that another transaction holds: that is nearly
// always the claim of a sibling chunk starting the same order, whose commit the others would
// otherwise wait for, one after another (12-20% more cycles per second without that wait, with
// 8 workers on 5-chunk orders). If that holder rolls back, the order stays pending until its
// next claim; its settling reads the chunks, not this status. The final SELECT sees the order
// row as it was before the update, which is fine: user, task type and engine request never
// change. $1 lease token, $2 lease in milliseconds.
// A duration as the bigint the SQL multiplies by interval '1 millisecond'.
inline std::int64_t millis(std::chrono::milliseconds d) { return static_cast<std::int64_t>(d.count()); }

inline constexpr const char* kClaimSql =
    "WITH picked AS ("
    "  SELECT id FROM order_items WHERE status = 'pending' ORDER BY queued_at, chunk_index LIMIT 1 FOR UPDATE SKIP LOCKED),"
    " claimed AS ("
    "  UPDATE order_items i SET status = 'processing', lease_token = $1::uuid,"
    "   locked_until = now() + $2::bigint * interval '1 millisecond', claims = i.claims + 1, updated_at = now()"
    "  FROM picked WHERE i.id = picked.id"
    "  RETURNING i.id, i.order_id, i.chunk_index, i.item_type),"
    " started AS ("
    "  UPDATE orders SET status = 'in_progress', updated_at = now()"
    "  WHERE id = (SELECT id FROM orders WHERE id = (SELECT order_id FROM claimed)"
    "   AND status IN ('created', 'pending') FOR NO KEY UPDATE SKIP LOCKED) RETURNING id)"
    " SELECT c.id::text, c.order_id::text, t.text, c.chunk_index, c.item_type, o.user_id, o.task_type,"
    "  o.engine_request::text, EXISTS (SELECT 1 FROM started)"
    " FROM claimed c JOIN orders o ON o.id = c.order_id LEFT JOIN order_item_texts t ON t.item_id = c.id";

// Locks the order row (after the item rows: the one lock order of the queue) and reads what
// money moves and settling need. The token asset rides along to save a round trip.
inline const db::Statement kLockOrder{
    "work_lock_order",
    "SELECT o.user_id, o.asset_id, o.status, (SELECT id FROM currency_assets WHERE kind = 'tokens')"
    " FROM orders o WHERE o.id = $1::uuid FOR UPDATE OF o"};

// In-progress orders that lost every claimed chunk before anything completed wait again.
inline const db::Statement kOrdersBackToPending{
    "work_orders_back_to_pending",
    "UPDATE orders o SET status = 'pending', updated_at = now()"
    " WHERE o.id = ANY($1::uuid[]) AND o.status = 'in_progress'"
    "  AND NOT EXISTS (SELECT 1 FROM order_items i WHERE i.order_id = o.id AND i.status IN ('processing', 'completed'))"
    " RETURNING o.id::text"};

// Item rows before the order row, as everywhere: a release clears their locks.
inline const db::Statement kLockLockedItems{
    "work_lock_locked_items",
    "SELECT id FROM order_items WHERE order_id = $1::uuid AND remaining_locked <> 0 ORDER BY id FOR UPDATE"};

// Item -> failed/policy_flagged under the lease token (and, for the sweeper, only while the lease
// is expired), surcharge returned, order settled. applied=false when the fence did not hold.
Settled fail_item(db::Db& db, db::Tx& tx, std::string_view item_id, std::string_view token, FailureKind kind,
                  std::string_view reason, bool only_if_expired, const QueueOptions& options);

}  // namespace mediagen::orders::detail
