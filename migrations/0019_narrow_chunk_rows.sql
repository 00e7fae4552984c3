-- Chunk rows are written twice per chunk: when a worker claims one and when it completes it.
-- Each write makes a new version of the whole row, and WAL carries the new version, or only the
-- bytes that changed when the new version stays on the old one's page. So:
--   * the chunk's text, which never changes, moves to its own table (order_item_texts);
--   * the columns a claim, a heartbeat or a completion changes come last, next to each other, so
--     that what such a write logs is those columns and not the row;
--   * pages keep a fifth free for new versions (fillfactor 80);
--   * order and chunk ids are time-ordered (UUID version 7, RFC 9562): chunks claimed one after
--     another then have their index entries on the same index pages, not on random ones.
-- The table is rebuilt to put the columns in that order; every row and constraint name is kept.

-- A version 7 uuid: 48 bits of Unix time in milliseconds, then random bits. The server makes its
-- own ids the same way (core/uuid.hpp); this default serves rows inserted without an id.
CREATE FUNCTION uuid_v7() RETURNS uuid LANGUAGE sql VOLATILE AS $$
  SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) PLACING
    substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6),
    52, 1), 53, 1), 'hex')::uuid
$$;
ALTER TABLE orders ALTER COLUMN id SET DEFAULT uuid_v7();

CREATE TABLE order_item_texts (
  item_id uuid PRIMARY KEY,
  text    text NOT NULL
);
INSERT INTO order_item_texts (item_id, text) SELECT id, text FROM order_items WHERE text IS NOT NULL;

CREATE TABLE order_items_rebuilt (
  id                     uuid NOT NULL DEFAULT uuid_v7(),
  order_id               uuid NOT NULL,
  parent_item_id         uuid,
  price_units            bigint NOT NULL,
  quota_tokens           bigint NOT NULL DEFAULT 0,
  payg_minor             bigint NOT NULL DEFAULT 0,
  surcharge_tokens       bigint NOT NULL DEFAULT 0,
  surcharge_quota_tokens bigint NOT NULL DEFAULT 0,
  surcharge_minor        bigint NOT NULL DEFAULT 0,
  queued_at              timestamptz NOT NULL DEFAULT now(),
  created_at             timestamptz NOT NULL DEFAULT now(),
  chunk_index            integer NOT NULL,
  paragraph_index        integer,
  attempt_number         integer NOT NULL DEFAULT 1,
  original_text_length   integer NOT NULL,
  current_text_length    integer NOT NULL,
  free_length            integer NOT NULL,
  billable_length        integer NOT NULL,
  max_billable_length    integer NOT NULL,
  max_raw_length         integer NOT NULL,
  raw_length             integer NOT NULL,
  item_type              text NOT NULL,
  capacity_unit          text NOT NULL,
  -- What claims, heartbeats and completions change: keep these last and together.
  status                 text NOT NULL DEFAULT 'pending',
  claims                 integer NOT NULL DEFAULT 0,
  lease_token            uuid,
  locked_until           timestamptz,
  updated_at             timestamptz NOT NULL DEFAULT now(),
  consumed_units         bigint NOT NULL DEFAULT 0,
  remaining_locked       bigint NOT NULL DEFAULT 0,
  result_size            bigint,
  duration_ms            bigint,
  failure_reason         text,
  result_path            text,
  timings                jsonb,            -- [[byte offset, byte length, start ms], ...] on the item's MP3
  CONSTRAINT order_items_item_type_check CHECK (item_type IN ('chunk', 'retry', 'regeneration')),
  CONSTRAINT order_items_chunk_index_check CHECK (chunk_index >= 0),
  CONSTRAINT order_items_attempt_number_check CHECK (attempt_number >= 1),
  CONSTRAINT order_items_status_check
    CHECK (status IN ('pending', 'processing', 'completed', 'failed', 'policy_flagged')),
  CONSTRAINT order_items_capacity_unit_check CHECK (capacity_unit IN ('chars', 'utf8_bytes', 'seconds', 'searches')),
  CONSTRAINT order_items_price_units_check CHECK (price_units >= 0),
  CONSTRAINT order_items_quota_tokens_check CHECK (quota_tokens >= 0),
  CONSTRAINT order_items_payg_minor_check CHECK (payg_minor >= 0),
  CONSTRAINT order_items_surcharge_tokens_check CHECK (surcharge_tokens >= 0),
  CONSTRAINT order_items_surcharge_quota_tokens_check CHECK (surcharge_quota_tokens >= 0),
  CONSTRAINT order_items_surcharge_minor_check CHECK (surcharge_minor >= 0),
  CONSTRAINT order_items_consumed_units_check CHECK (consumed_units >= 0),
  CONSTRAINT order_items_remaining_locked_check CHECK (remaining_locked >= 0),
  CONSTRAINT order_items_check CHECK ((item_type = 'chunk') = (parent_item_id IS NULL)),
  CONSTRAINT order_items_check1 CHECK ((status = 'processing') = (lease_token IS NOT NULL))
) WITH (fillfactor = 80);

INSERT INTO order_items_rebuilt (id, order_id, parent_item_id, price_units, quota_tokens, payg_minor,
  surcharge_tokens, surcharge_quota_tokens, surcharge_minor, queued_at, created_at, chunk_index, paragraph_index,
  attempt_number, original_text_length, current_text_length, free_length, billable_length, max_billable_length,
  max_raw_length, raw_length, item_type, capacity_unit, status, claims, lease_token, locked_until, updated_at,
  consumed_units, remaining_locked, result_size, duration_ms, failure_reason, result_path, timings)
SELECT id, order_id, parent_item_id, price_units, quota_tokens, payg_minor,
  surcharge_tokens, surcharge_quota_tokens, surcharge_minor, queued_at, created_at, chunk_index, paragraph_index,
  attempt_number, original_text_length, current_text_length, free_length, billable_length, max_billable_length,
  max_raw_length, raw_length, item_type, capacity_unit, status, claims, lease_token, locked_until, updated_at,
  consumed_units, remaining_locked, result_size, duration_ms, failure_reason, result_path, timings
FROM order_items ORDER BY created_at, id;

DROP TABLE order_items;
ALTER TABLE order_items_rebuilt RENAME TO order_items;
ALTER TABLE order_items ADD CONSTRAINT order_items_pkey PRIMARY KEY (id),
  ADD CONSTRAINT order_items_order_id_fkey FOREIGN KEY (order_id) REFERENCES orders(id),
  ADD CONSTRAINT order_items_parent_item_id_fkey FOREIGN KEY (parent_item_id) REFERENCES order_items(id);
ALTER TABLE order_item_texts
  ADD CONSTRAINT order_item_texts_item_id_fkey FOREIGN KEY (item_id) REFERENCES order_items(id) ON DELETE CASCADE;

-- The indexes of 0003, unchanged.
CREATE INDEX order_items_order ON order_items (order_id, chunk_index, created_at);
CREATE INDEX order_items_queue ON order_items (queued_at, chunk_index) WHERE status = 'pending';
CREATE INDEX order_items_leases ON order_items (locked_until) WHERE status = 'processing';
CREATE UNIQUE INDEX order_items_one_live ON order_items (order_id, chunk_index)
  WHERE status IN ('pending', 'processing');
-- Statistics for the rebuilt rows, where there are rows. An empty table is left unanalysed: its
-- statistics would say "empty" for good, and a plan that a connection caches while the tables are
-- still small (a foreign key's check included) then scans the whole table for as long as it is
-- kept; unanalysed, the planner assumes a table of some pages and takes the index.
DO $$
BEGIN
  IF EXISTS (SELECT FROM order_items) THEN
    ANALYZE order_items;
    ANALYZE order_item_texts;
  END IF;
END $$;
