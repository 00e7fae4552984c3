-- The SQL of GET /orders/{id} as the server runs it (src/orders/reads/order_read_store.cpp: the order row,
-- then its items, each a single statement outside a transaction), for pgbench -M prepared.
-- orders_bench.sh runs it beside the HTTP route (G3): it shows how much of the gap to
-- pgbench -S is the route's SQL and how much is the server. Variable: order (uuid).
SELECT id::text, user_id, task_type, status, service_key, template_id::text, config_override::text,
  generation_mode, price_units, tokens_from_quota, tokens_from_payg, result_files::text,
  result_service_files::text, result_duration_ms, retry_of::text,
  (stitch_token IS NOT NULL OR stitch_until IS NOT NULL), files_removed_at IS NOT NULL,
  (extract(epoch from created_at) * 1000000)::bigint, (extract(epoch from updated_at) * 1000000)::bigint
  FROM orders WHERE id = :order::uuid;
SELECT id::text, order_id::text, item_type, chunk_index, paragraph_index, parent_item_id::text,
  attempt_number, status, failure_reason, text IS NULL, original_text_length, current_text_length,
  price_units, consumed_units, remaining_locked, result_path, result_size, duration_ms,
  (extract(epoch from created_at) * 1000000)::bigint, (extract(epoch from updated_at) * 1000000)::bigint
  FROM order_items WHERE order_id = :order::uuid ORDER BY chunk_index, created_at, attempt_number, id;
