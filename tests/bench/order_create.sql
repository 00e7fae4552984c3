-- The raw order transaction: the anchor of POST /orders (performance goal G5, shape of P6), run by
-- orders_bench.sh with pgbench -M prepared against a copy of the server's own database, so the
-- tables, indexes, constraints and foreign keys are exactly the server's. One wallet debit, the
-- order row, its five chunk rows in one multi-row INSERT with their texts, one commit. No ledger
-- entries, no reads: that is what the server adds on top.
--
-- Variables (pgbench -D; -M prepared passes them as parameters, so text needs no quoting):
--   uid_lo, uid_hi     users whose wallet is debited (one at random per transaction)
--   asset, price       money asset id and the order's price in minor units
--   key_id, template   an API key id and a template id (foreign keys only)
--   service, model, mode, capacity, rate, tokens, config, override, engine, input_text
--                      the order columns, copied from an order the server created
--   p0..p4, l0..l4, t0..t4, m0..m4
--                      per chunk: text, length, tokens, money part
\set uid random(:uid_lo, :uid_hi)
BEGIN;
UPDATE ledger_accounts SET balance = balance - :price, version = version + 1, updated_at = now()
  WHERE kind = 'wallet' AND owner = 'user:' || :uid AND asset_id = :asset AND balance >= :price;
INSERT INTO orders (user_id, api_key_id, task_type, service_key, model_id, template_id, config_snapshot,
  config_override, generation_mode, engine_request, input_text, asset_id, price_per_1k_minor, capacity,
  capacity_unit, price_units, tokens_from_payg)
  VALUES (:uid, :key_id, 'tts', :service, :model, :template::uuid, :config::jsonb, :override::jsonb, :mode,
  :engine::jsonb, :input_text, :asset, :rate, :capacity, 'chars', :price, :tokens)
  RETURNING id AS order_id \gset
WITH ins AS (
INSERT INTO order_items (order_id, item_type, chunk_index, original_text_length, current_text_length,
  free_length, billable_length, max_billable_length, max_raw_length, raw_length, capacity_unit, price_units,
  payg_minor, remaining_locked)
  VALUES (:order_id, 'chunk', 0, :l0, :l0, :l0, :l0, :l0, :capacity, :l0, 'chars', :t0, :m0, :t0),
         (:order_id, 'chunk', 1, :l1, :l1, :l1, :l1, :l1, :capacity, :l1, 'chars', :t1, :m1, :t1),
         (:order_id, 'chunk', 2, :l2, :l2, :l2, :l2, :l2, :capacity, :l2, 'chars', :t2, :m2, :t2),
         (:order_id, 'chunk', 3, :l3, :l3, :l3, :l3, :l3, :capacity, :l3, 'chars', :t3, :m3, :t3),
         (:order_id, 'chunk', 4, :l4, :l4, :l4, :l4, :l4, :capacity, :l4, 'chars', :t4, :m4, :t4)
  RETURNING id, chunk_index)
INSERT INTO order_item_texts (item_id, text)
  SELECT id, CASE chunk_index WHEN 0 THEN :p0 WHEN 1 THEN :p1 WHEN 2 THEN :p2 WHEN 3 THEN :p3 ELSE :p4 END FROM ins;
COMMIT;
