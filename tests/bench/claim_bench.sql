-- One worker cycle of the chunk queue (performance goal G6), run by orders_bench.sh with pgbench
-- -M prepared while a filled queue drains: the claim statement exactly as WorkQueue::claim runs it
-- (kClaimSql of src/orders/queue/work_store.hpp, one statement on its own), then the lease-fenced
-- completion UPDATE of src/orders/queue/work_settle_store.cpp. Keep both in step with the code.
-- One pgbench transaction = one claim + one completion = two commits.
--
-- The lease token ($1 of the claim) is made from a random number here, because pgbench variables
-- are numbers; the server makes it in C++. Variable: lease (milliseconds).
\set n random(1, 281474976710655)
WITH picked AS (
  SELECT id FROM order_items WHERE status = 'pending' ORDER BY queued_at, chunk_index LIMIT 1 FOR UPDATE SKIP LOCKED),
 claimed AS (
  UPDATE order_items i SET status = 'processing',
   lease_token = ('00000000-0000-4000-8000-' || lpad(to_hex(:n::bigint), 12, '0'))::uuid,
   locked_until = now() + :lease::bigint * interval '1 millisecond', claims = i.claims + 1, updated_at = now()
  FROM picked WHERE i.id = picked.id
  RETURNING i.id, i.order_id, i.chunk_index, i.item_type),
 started AS (
  UPDATE orders SET status = 'in_progress', updated_at = now()
  WHERE id = (SELECT id FROM orders WHERE id = (SELECT order_id FROM claimed)
   AND status IN ('created', 'pending') FOR NO KEY UPDATE SKIP LOCKED) RETURNING id)
SELECT c.id::text AS id, c.order_id::text AS order_id, t.text, c.chunk_index, c.item_type, o.user_id, o.task_type,
  o.engine_request::text, EXISTS (SELECT 1 FROM started)
FROM claimed c JOIN orders o ON o.id = c.order_id LEFT JOIN order_item_texts t ON t.item_id = c.id \gset
UPDATE order_items SET status = 'completed', result_path = 'orders/bench/chunk.mp3', result_size = 48000,
  duration_ms = 60000, timings = '[[0, 417, 0]]'::jsonb, consumed_units = price_units, remaining_locked = 0,
  failure_reason = NULL, lease_token = NULL, locked_until = NULL, updated_at = now()
 WHERE id = :id::uuid AND lease_token = ('00000000-0000-4000-8000-' || lpad(to_hex(:n::bigint), 12, '0'))::uuid
  AND status = 'processing'
 RETURNING order_id::text, payg_minor + surcharge_minor, quota_tokens + surcharge_quota_tokens;
