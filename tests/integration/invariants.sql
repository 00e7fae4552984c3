-- Money and order invariants: every query must return no rows. Run after every money test and
-- every chaos round (tests/integration/invariants.hpp; from Python or psql as it is). Each check
-- is one statement after a line "-- I<n> <name>"; lines starting "--" otherwise are comments.
-- Terminal order statuses: completed, result_delivered, failed, compensated, cancelled.

-- I1 every ledger transaction balances per asset
SELECT txn_id, asset_id, sum(amount) AS imbalance
FROM ledger_entries GROUP BY txn_id, asset_id HAVING sum(amount) <> 0;

-- I2 nothing is created or lost per asset
SELECT asset_id, sum(amount) AS imbalance FROM ledger_entries GROUP BY asset_id HAVING sum(amount) <> 0;

-- I3 every account balance equals the sum of its entries, and its version their count
SELECT a.id, a.kind, a.owner, a.balance, coalesce(sum(e.amount), 0) AS entries, a.version, count(e.id) AS entry_count
FROM ledger_accounts a LEFT JOIN ledger_entries e ON e.account_id = a.id
GROUP BY a.id HAVING a.balance <> coalesce(sum(e.amount), 0) OR a.version <> count(e.id);

-- I4 no account that may not go negative is below zero
SELECT id, kind, owner, balance FROM ledger_accounts WHERE NOT allow_negative AND balance < 0;

-- I5 per-account chain: each entry starts where the previous one ended, versions contiguous
SELECT id, account_id, account_version, prev_balance, new_balance
FROM (SELECT e.*, lag(new_balance) OVER w AS pb, lag(account_version) OVER w AS pv
      FROM ledger_entries e WINDOW w AS (PARTITION BY account_id ORDER BY account_version)) x
WHERE prev_balance <> coalesce(pb, 0) OR new_balance <> prev_balance + amount
   OR account_version <> coalesce(pv, 0) + 1;

-- I6 the ledger is append-only: its guard triggers exist and no row was ever updated or deleted
SELECT t.name AS missing_or_touched FROM (VALUES ('ledger_entries_no_update'), ('ledger_entries_no_truncate'),
                                                 ('ledger_txns_no_update'), ('ledger_txns_no_truncate')) t(name)
WHERE NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = t.name AND NOT tgisinternal)
UNION ALL
SELECT relname FROM pg_stat_user_tables
WHERE relname IN ('ledger_entries', 'ledger_txns') AND n_tup_upd + n_tup_del > 0;

-- I7 an order's escrows never negative; once the order is terminal they hold exactly what its live regenerations locked (only a completed or delivered order is regenerated, its status kept)
SELECT a.order_id, a.kind, a.balance, o.status
FROM ledger_accounts a JOIN orders o ON o.id = a.order_id
WHERE a.kind IN ('escrow', 'quota_escrow')
  AND (a.balance < 0 OR (o.status IN ('completed', 'result_delivered', 'failed', 'compensated', 'cancelled')
                         AND a.balance <> (
                           SELECT coalesce(sum(CASE WHEN a.kind = 'escrow' THEN i.surcharge_minor
                                                    ELSE i.surcharge_quota_tokens END), 0)
                           FROM order_items i
                           WHERE i.order_id = o.id AND i.item_type = 'regeneration'
                             AND i.status IN ('pending', 'processing')
                             AND o.status IN ('completed', 'result_delivered'))));

-- I8 a record is charged iff it completed with something to charge, by exactly its own amounts; a position (originals and retries; regenerations pay their own) at most once
SELECT i.id::text AS item, i.status, count(t.id) AS charges
FROM order_items i LEFT JOIN ledger_txns t ON t.kind = 'chunk_charge' AND t.reference = i.id::text
GROUP BY i.id
HAVING count(t.id) <> CASE WHEN i.status = 'completed'
                            AND i.payg_minor + i.surcharge_minor + i.quota_tokens + i.surcharge_quota_tokens > 0
                           THEN 1 ELSE 0 END
UNION ALL
SELECT i.id::text, 'charged amounts differ', count(*)
FROM order_items i
JOIN ledger_txns t ON t.kind = 'chunk_charge' AND t.reference = i.id::text
JOIN ledger_entries e ON e.txn_id = t.id AND e.amount > 0
JOIN ledger_accounts a ON a.id = e.account_id
GROUP BY i.id
HAVING coalesce(sum(e.amount) FILTER (WHERE a.kind = 'revenue'), 0) <> i.payg_minor + i.surcharge_minor
    OR coalesce(sum(e.amount) FILTER (WHERE a.kind = 'quota_spent'), 0) <> i.quota_tokens + i.surcharge_quota_tokens
    OR count(*) FILTER (WHERE a.kind NOT IN ('revenue', 'quota_spent')) > 0
UNION ALL
SELECT i.order_id::text || '#' || i.chunk_index, 'position charged twice', count(t.id)
FROM order_items i JOIN ledger_txns t ON t.kind = 'chunk_charge' AND t.reference = i.id::text
WHERE i.item_type IN ('chunk', 'retry')
GROUP BY i.order_id, i.chunk_index HAVING count(t.id) > 1;

-- I9 item money fields: nothing consumed unless completed (then all of it), nothing locked once completed or the order is terminal (but for a live regeneration of a completed or delivered order)
SELECT i.id, i.status, o.status AS order_status, i.price_units, i.consumed_units, i.remaining_locked
FROM order_items i JOIN orders o ON o.id = i.order_id
WHERE (i.status <> 'completed' AND i.consumed_units <> 0)
   OR (i.status = 'completed' AND (i.consumed_units <> i.price_units OR i.remaining_locked <> 0))
   OR (o.status IN ('completed', 'result_delivered', 'failed', 'compensated', 'cancelled') AND i.remaining_locked <> 0
       AND NOT (i.item_type = 'regeneration' AND i.status IN ('pending', 'processing')
                AND o.status IN ('completed', 'result_delivered')))
   OR i.remaining_locked > i.price_units;

-- I10 token split: quota + payg = the originals' tokens, the items' shares add up to the order's, the lock moved exactly that
SELECT o.id, 'split' AS what
FROM orders o JOIN order_items i ON i.order_id = o.id AND i.item_type IN ('chunk', 'retry')
GROUP BY o.id
HAVING max(o.tokens_from_quota + o.tokens_from_payg) <> coalesce(sum(i.price_units) FILTER (WHERE i.item_type = 'chunk'), 0)
    OR max(o.tokens_from_quota) <> sum(i.quota_tokens)
    OR max(o.price_units) <> sum(i.payg_minor)
    OR (max(o.tokens_from_payg) = 0 AND max(o.price_units) <> 0)
UNION ALL
SELECT o.id, 'lock'
FROM orders o
LEFT JOIN ledger_txns t ON t.kind = 'order_lock' AND t.reference = o.id::text
LEFT JOIN ledger_entries e ON e.txn_id = t.id AND e.amount > 0
LEFT JOIN ledger_accounts a ON a.id = e.account_id
GROUP BY o.id
HAVING coalesce(sum(e.amount) FILTER (WHERE a.kind = 'escrow'), 0) <> max(o.price_units)
    OR coalesce(sum(e.amount) FILTER (WHERE a.kind = 'quota_escrow'), 0) <> max(o.tokens_from_quota);

-- I11 originals: one per position, positions 0..n-1
SELECT order_id FROM order_items WHERE item_type = 'chunk' GROUP BY order_id
HAVING min(chunk_index) <> 0 OR max(chunk_index) + 1 <> count(*) OR count(DISTINCT chunk_index) <> count(*);

-- I12 retry lineage: parent iff not an original, same order and position; attempts 1..5, contiguous per position
SELECT r.id::text AS item, 'lineage' AS what FROM order_items r LEFT JOIN order_items p ON p.id = r.parent_item_id
WHERE (r.item_type = 'chunk') <> (r.parent_item_id IS NULL)
   OR (r.item_type IN ('chunk', 'retry') AND r.attempt_number NOT BETWEEN 1 AND 5)
   OR (r.parent_item_id IS NOT NULL AND (p.order_id <> r.order_id OR p.chunk_index <> r.chunk_index))
UNION ALL
SELECT order_id::text || '#' || chunk_index, 'attempts' FROM order_items WHERE item_type IN ('chunk', 'retry')
GROUP BY order_id, chunk_index HAVING max(attempt_number) <> count(*) OR count(DISTINCT attempt_number) <> count(*);

-- I13 sound effects and music are single-shot: no retry records
SELECT i.id FROM order_items i JOIN orders o ON o.id = i.order_id
WHERE o.task_type IN ('sfx', 'music') AND i.item_type = 'retry';

-- I14 at most one live attempt per position
SELECT order_id, chunk_index FROM order_items WHERE status IN ('pending', 'processing')
GROUP BY order_id, chunk_index HAVING count(*) > 1;

-- I15 terminal orders have no live work but a regeneration of a completed or delivered order
SELECT DISTINCT o.id, o.status FROM orders o JOIN order_items i ON i.order_id = o.id
WHERE o.status IN ('completed', 'result_delivered', 'failed', 'compensated', 'cancelled')
  AND i.status IN ('pending', 'processing')
  AND NOT (i.item_type = 'regeneration' AND o.status IN ('completed', 'result_delivered'));

-- I16 completed orders: the last attempt of every position completed and a result file listed
-- (a voice search's result is data: its voices instead)
SELECT o.id, o.status FROM orders o
WHERE o.status IN ('completed', 'result_delivered')
  AND (CASE WHEN o.task_type = 'voice_search' THEN o.result_data IS NULL ELSE jsonb_array_length(o.result_files) = 0 END
       OR EXISTS (SELECT 1 FROM (SELECT DISTINCT ON (chunk_index) status FROM order_items
                                 WHERE order_id = o.id AND item_type IN ('chunk', 'retry')
                                 ORDER BY chunk_index, attempt_number DESC, created_at DESC) last
                  WHERE last.status <> 'completed'));

-- I17 no abandoned leases once the sweeper has run (the longest lease of the tests plus a sweep)
SELECT id, locked_until FROM order_items
WHERE status = 'processing' AND (locked_until IS NULL OR locked_until < now() - interval '30 seconds');

-- I18 a returned charge (charge_refund) returns exactly one record's charge, only when its order's stitch gave up or its answer was not delivered (the OpenAI-compatible surface), and an order whose stitch gave up keeps none of its charges
SELECT t.reference AS item, 'returned without a charge or a stitch that gave up' AS what
FROM ledger_txns t
LEFT JOIN ledger_txns c ON c.kind = 'chunk_charge' AND c.reference = t.reference
LEFT JOIN order_items i ON i.id::text = t.reference
LEFT JOIN orders o ON o.id = i.order_id
WHERE t.kind = 'charge_refund' AND (c.id IS NULL OR o.failure_reason IS NULL
                                   OR o.failure_reason NOT IN ('stitch_failed', 'not_delivered'))
UNION ALL
SELECT t.reference, 'returned amounts differ from the charge'
FROM ledger_txns t
JOIN ledger_txns c ON c.kind = 'chunk_charge' AND c.reference = t.reference
JOIN ledger_entries e ON e.txn_id = t.id AND e.amount > 0
JOIN ledger_accounts a ON a.id = e.account_id
JOIN order_items i ON i.id::text = t.reference
WHERE t.kind = 'charge_refund'
GROUP BY t.reference, i.payg_minor, i.surcharge_minor, i.quota_tokens, i.surcharge_quota_tokens
HAVING coalesce(sum(e.amount) FILTER (WHERE a.kind = 'wallet'), 0) <> i.payg_minor + i.surcharge_minor
    OR coalesce(sum(e.amount) FILTER (WHERE a.kind = 'quota'), 0) <> i.quota_tokens + i.surcharge_quota_tokens
UNION ALL
SELECT i.id::text, 'charge kept by an order whose stitch gave up'
FROM orders o JOIN order_items i ON i.order_id = o.id
JOIN ledger_txns c ON c.kind = 'chunk_charge' AND c.reference = i.id::text
WHERE o.status = 'failed' AND o.failure_reason = 'stitch_failed'
  AND NOT EXISTS (SELECT 1 FROM ledger_txns r WHERE r.kind = 'charge_refund' AND r.reference = c.reference);

-- I19 gift codes: the outstanding account holds the nominal of every active code, per asset
SELECT coalesce(a.asset_id, g.asset_id) AS asset_id, a.balance, g.nominal
FROM (SELECT asset_id, balance FROM ledger_accounts WHERE kind = 'gift_outstanding') a
FULL JOIN (SELECT asset_id, sum(nominal) AS nominal FROM gift_codes WHERE status = 'active' GROUP BY asset_id) g
  ON g.asset_id = a.asset_id
WHERE coalesce(a.balance, 0) <> coalesce(g.nominal, 0);

-- I20 gift codes: each code's ledger matches its status (issued once; cancelled: returned once, by the same legs; redeemed: the nominal into one wallet once)
SELECT g.id, g.status, count(*) FILTER (WHERE t.kind = 'gift_code_issue') AS issues,
       count(*) FILTER (WHERE t.kind = 'gift_code_cancel') AS cancels,
       count(*) FILTER (WHERE t.kind = 'gift_code_redeem') AS redeems
FROM gift_codes g LEFT JOIN ledger_txns t ON t.reference = g.id::text
  AND t.kind IN ('gift_code_issue', 'gift_code_cancel', 'gift_code_redeem')
GROUP BY g.id, g.status
HAVING count(*) FILTER (WHERE t.kind = 'gift_code_issue') <> 1
    OR count(*) FILTER (WHERE t.kind = 'gift_code_cancel') <> (CASE WHEN g.status = 'cancelled' THEN 1 ELSE 0 END)
    OR count(*) FILTER (WHERE t.kind = 'gift_code_redeem') <> (CASE WHEN g.status = 'redeemed' THEN 1 ELSE 0 END);

-- I21 an order whose answer was not delivered keeps charges only for a leading run of positions (the ones its client received)
WITH kept AS (
  SELECT DISTINCT i.order_id, i.chunk_index FROM order_items i
  JOIN ledger_txns c ON c.kind = 'chunk_charge' AND c.reference = i.id::text
  WHERE NOT EXISTS (SELECT 1 FROM ledger_txns r WHERE r.kind = 'charge_refund' AND r.reference = c.reference))
SELECT o.id, k.chunk_index AS kept_position
FROM orders o JOIN kept k ON k.order_id = o.id
WHERE o.failure_reason = 'not_delivered'
  AND EXISTS (SELECT 1 FROM order_items j WHERE j.order_id = o.id AND j.chunk_index < k.chunk_index
              AND NOT EXISTS (SELECT 1 FROM kept k2 WHERE k2.order_id = o.id AND k2.chunk_index = j.chunk_index));

-- I22 every record of a speech order keeps its text (order_item_texts) until retention removes the order's files
SELECT i.id FROM order_items i JOIN orders o ON o.id = i.order_id
WHERE o.task_type = 'tts' AND o.files_removed_at IS NULL
  AND NOT EXISTS (SELECT 1 FROM order_item_texts t WHERE t.item_id = i.id);
