-- The raw claim + complete cycle (anchor P10 of G6): a minimal jobs table
-- (id bigserial PRIMARY KEY, state text, order_id bigint, payload text) with the partial index
-- ON jobs (id) WHERE state = 'queued'; two autocommit statements per cycle. orders_bench.sh
-- creates and fills the table and runs this with pgbench -M prepared.
UPDATE jobs SET state = 'running' WHERE id = (SELECT id FROM jobs WHERE state = 'queued'
  ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1) RETURNING id \gset
UPDATE jobs SET state = 'done' WHERE id = :id;
