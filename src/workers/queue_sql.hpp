#pragma once
// Statements of the chunk queue shared by its files (and by the test that checks the claim's plan).
#include "mediagen/db/pg.hpp"

namespace mediagen::workers::detail {

// The claim: the oldest waiting row through the partial index order_items_queue (only pending
// rows are in it, so the pick stays one index probe however many rows are done); SKIP LOCKED so
// concurrent workers take different rows instead of queueing behind one. $1 lease token,
// $2 lease in milliseconds.
inline constexpr const char* kClaimSql =
    "WITH picked AS ("
    "  SELECT id FROM order_items WHERE status = 'pending' ORDER BY queued_at, chunk_index LIMIT 1 FOR UPDATE SKIP LOCKED)"
    " UPDATE order_items i SET status = 'processing', lease_token = $1::uuid,"
    "  locked_until = now() + $2::bigint * interval '1 millisecond', claims = i.claims + 1, updated_at = now()"
    " FROM picked WHERE i.id = picked.id"
    " RETURNING i.id::text, i.order_id::text, i.text, i.chunk_index, i.item_type";

// Locks the order row (after the item rows: the one lock order of the queue) and reads what
// money moves and settling need. The token asset rides along to save a round trip.
inline const db::Statement kLockOrder{
    "workers_lock_order",
    "SELECT o.user_id, o.asset_id, o.status, (SELECT id FROM currency_assets WHERE kind = 'tokens')"
    " FROM orders o WHERE o.id = $1::uuid FOR UPDATE OF o"};

// In-progress orders that lost every claimed chunk before anything completed wait again.
inline const db::Statement kOrdersBackToPending{
    "workers_orders_back_to_pending",
    "UPDATE orders o SET status = 'pending', updated_at = now()"
    " WHERE o.id = ANY($1::uuid[]) AND o.status = 'in_progress'"
    "  AND NOT EXISTS (SELECT 1 FROM order_items i WHERE i.order_id = o.id AND i.status IN ('processing', 'completed'))"
    " RETURNING o.id::text"};

}  // namespace mediagen::workers::detail
