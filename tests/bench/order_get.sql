-- The SQL of GET /orders/{id} as the server runs it (src/orders/reads/order_read_store.cpp,
-- kOwnOrderWithItems: the order, its items and its queue position in one statement), for
-- pgbench -M prepared. orders_bench.sh runs it beside the HTTP route (G3): it shows how much of
-- the gap to pgbench -S is the route's SQL and how much is the server. Variables: order (uuid),
-- user (its owner's id).
SELECT o.*, i.*, p.position FROM (SELECT id::text, user_id, task_type, status, service_key, template_id::text,
  config_override::text, generation_mode, price_units, tokens_from_quota, tokens_from_payg, result_files::text,
  result_service_files::text, result_duration_ms, retry_of::text,
  (stitch_token IS NOT NULL OR stitch_until IS NOT NULL), files_removed_at IS NOT NULL,
  (extract(epoch from created_at) * 1000000)::bigint, (extract(epoch from updated_at) * 1000000)::bigint,
  failure_reason, result_data::text
  FROM orders WHERE id = :order::uuid AND user_id = :user) o
  CROSS JOIN LATERAL (SELECT CASE WHEN o.status IN ('created', 'pending') THEN (
    SELECT (SELECT count(DISTINCT q.order_id) FROM order_items q WHERE q.status = 'pending'
      AND q.queued_at < x.first AND q.order_id <> :order::uuid) + 1
    FROM (SELECT min(queued_at) AS first FROM order_items WHERE order_id = :order::uuid AND status = 'pending') x
    WHERE x.first IS NOT NULL) END AS position) p
  LEFT JOIN LATERAL (SELECT id::text, order_id::text, item_type, chunk_index, paragraph_index, parent_item_id::text,
    attempt_number, status, failure_reason,
    NOT EXISTS (SELECT 1 FROM order_item_texts x WHERE x.item_id = order_items.id), original_text_length, current_text_length,
    price_units, consumed_units, remaining_locked, result_path, result_size, duration_ms,
    (extract(epoch from created_at) * 1000000)::bigint, (extract(epoch from updated_at) * 1000000)::bigint
    FROM order_items WHERE order_id = :order::uuid) i ON true
  ORDER BY 25, 40, 28, 22;
