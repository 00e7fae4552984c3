-- Double-entry money and quota, plans and subscriptions, orders and their items, idempotency
-- keys and the service switches.
--
-- Money model (two-phase, as in TigerBeetle): every movement is one ledger transaction whose
-- entries sum to zero per asset. An order locks its estimate (wallet -> escrow of the order;
-- subscription quota -> quota escrow of the order), each completed chunk posts its part
-- (escrow -> revenue), and what is left goes back (escrow -> wallet) on cancel, failure or
-- compensation. UNIQUE (kind, reference) makes every charge happen at most once.

-- Tokens are an asset of their own, so quota moves through the same ledger as money.
INSERT INTO currency_assets (code, kind, precision, name, is_active)
VALUES ('TOKEN', 'tokens', 0, 'Generation tokens', false);

CREATE TABLE ledger_accounts (
  id             bigserial PRIMARY KEY,
  -- wallet, quota:              the user's money and subscription quota
  -- escrow, quota_escrow:       what an order holds locked (order_id set)
  -- revenue, quota_spent:       what completed work consumed (platform)
  -- funding, quota_funding:     where operator top-ups and plan grants come from (platform,
  --                             the only accounts allowed below zero)
  kind           text NOT NULL CHECK (kind IN ('wallet', 'escrow', 'revenue', 'funding',
                                               'quota', 'quota_escrow', 'quota_spent', 'quota_funding')),
  -- 'user:<id>', 'order:<uuid>' or 'platform': the lookup key (user_id and order_id say the same
  -- for joins).
  owner          text NOT NULL,
  user_id        bigint REFERENCES users(id),
  order_id       uuid,
  asset_id       bigint NOT NULL REFERENCES currency_assets(id),
  balance        bigint NOT NULL DEFAULT 0,
  version        bigint NOT NULL DEFAULT 0,
  allow_negative boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  CHECK (allow_negative OR balance >= 0),
  CHECK ((order_id IS NOT NULL) = (kind IN ('escrow', 'quota_escrow'))),
  CHECK ((user_id IS NULL) = (kind IN ('revenue', 'funding', 'quota_spent', 'quota_funding'))),
  CHECK (owner = CASE WHEN order_id IS NOT NULL THEN 'order:' || order_id
                      WHEN user_id IS NOT NULL THEN 'user:' || user_id ELSE 'platform' END),
  UNIQUE (kind, owner, asset_id)
);
CREATE INDEX ledger_accounts_user ON ledger_accounts (user_id) WHERE user_id IS NOT NULL;

CREATE TABLE ledger_txns (
  id         bigserial PRIMARY KEY,
  kind       text NOT NULL,
  reference  text NOT NULL,   -- the object that caused it: item id, order id, a fresh uuid
  user_id    bigint REFERENCES users(id),
  order_id   uuid,
  item_id    uuid,
  note       text,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (kind, reference)
);
CREATE INDEX ledger_txns_order ON ledger_txns (order_id) WHERE order_id IS NOT NULL;

-- The new entries table takes over the name; the old one-sided rows are converted below.
ALTER TABLE ledger_entries RENAME TO ledger_entries_v1;
DROP TRIGGER IF EXISTS ledger_entries_no_update ON ledger_entries_v1;
DROP TRIGGER IF EXISTS ledger_entries_no_truncate ON ledger_entries_v1;

CREATE TABLE ledger_entries (
  id              bigserial PRIMARY KEY,
  txn_id          bigint NOT NULL REFERENCES ledger_txns(id),
  account_id      bigint NOT NULL REFERENCES ledger_accounts(id),
  asset_id        bigint NOT NULL REFERENCES currency_assets(id),
  amount          bigint NOT NULL CHECK (amount <> 0),   -- signed: + credit, - debit
  prev_balance    bigint NOT NULL,
  new_balance     bigint NOT NULL CHECK (new_balance = prev_balance + amount),
  account_version bigint NOT NULL,
  order_id        uuid,
  item_id         uuid,
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, account_version)
);
CREATE INDEX ledger_entries_txn ON ledger_entries (txn_id);
CREATE INDEX ledger_entries_order ON ledger_entries (order_id) WHERE order_id IS NOT NULL;

CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END $$;
CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON ledger_entries
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER ledger_txns_no_update BEFORE UPDATE OR DELETE ON ledger_txns
  FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER ledger_txns_no_truncate BEFORE TRUNCATE ON ledger_txns
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only();

-- Platform accounts.
INSERT INTO ledger_accounts (kind, owner, asset_id, allow_negative)
SELECT 'funding', 'platform', id, true FROM currency_assets WHERE kind <> 'tokens';
INSERT INTO ledger_accounts (kind, owner, asset_id)
SELECT 'revenue', 'platform', id FROM currency_assets WHERE kind <> 'tokens';
INSERT INTO ledger_accounts (kind, owner, asset_id, allow_negative)
SELECT 'quota_funding', 'platform', id, true FROM currency_assets WHERE kind = 'tokens';
INSERT INTO ledger_accounts (kind, owner, asset_id)
SELECT 'quota_spent', 'platform', id FROM currency_assets WHERE kind = 'tokens';

-- Convert the one-sided history: each old row becomes a transaction between the wallet and
-- the funding account of its asset, with the balance chain recomputed in the original order.
INSERT INTO ledger_accounts (kind, owner, user_id, asset_id, balance, version)
SELECT 'wallet', 'user:' || b.user_id, b.user_id, b.asset_id, b.amount_minor,
       (SELECT count(*) FROM ledger_entries_v1 e WHERE e.user_id = b.user_id AND e.asset_id = b.asset_id)
FROM balances b;
INSERT INTO ledger_accounts (kind, owner, user_id, asset_id)
SELECT DISTINCT 'wallet', 'user:' || e.user_id, e.user_id, e.asset_id FROM ledger_entries_v1 e
ON CONFLICT DO NOTHING;

CREATE TEMPORARY TABLE v1_map AS
SELECT e.*, nextval('ledger_txns_id_seq') AS txn_id,
       sum(e.amount_minor) OVER (PARTITION BY e.user_id, e.asset_id ORDER BY e.id) AS wallet_after,
       row_number() OVER (PARTITION BY e.user_id, e.asset_id ORDER BY e.id) AS wallet_version,
       -sum(e.amount_minor) OVER (PARTITION BY e.asset_id ORDER BY e.id) AS funding_after,
       row_number() OVER (PARTITION BY e.asset_id ORDER BY e.id) AS funding_version
FROM ledger_entries_v1 e;

INSERT INTO ledger_txns (id, kind, reference, user_id, note, created_at)
SELECT txn_id, kind, 'v1:' || id, user_id, concat_ws(' ', reference, note), created_at FROM v1_map;

INSERT INTO ledger_entries (txn_id, account_id, asset_id, amount, prev_balance, new_balance, account_version, created_at)
SELECT m.txn_id, a.id, m.asset_id, m.amount_minor, m.wallet_after - m.amount_minor, m.wallet_after,
       m.wallet_version, m.created_at
FROM v1_map m JOIN ledger_accounts a ON a.kind = 'wallet' AND a.user_id = m.user_id AND a.asset_id = m.asset_id;

INSERT INTO ledger_entries (txn_id, account_id, asset_id, amount, prev_balance, new_balance, account_version, created_at)
SELECT m.txn_id, a.id, m.asset_id, -m.amount_minor, m.funding_after + m.amount_minor, m.funding_after,
       m.funding_version, m.created_at
FROM v1_map m JOIN ledger_accounts a ON a.kind = 'funding' AND a.asset_id = m.asset_id;

UPDATE ledger_accounts a SET balance = x.balance, version = x.version
FROM (SELECT account_id, sum(amount) AS balance, count(*) AS version FROM ledger_entries GROUP BY account_id) x
WHERE a.id = x.account_id;

DROP TABLE v1_map;
DROP TABLE ledger_entries_v1;
DROP TABLE balances;
DROP FUNCTION IF EXISTS ledger_entries_append_only();

-- Which engine serves a service: the engine choice is catalogue data ('none' until the service
-- has an engine; its chunks then fail as a technical error and the order's funds return).
ALTER TABLE services ADD COLUMN engine text NOT NULL DEFAULT 'espeak' CHECK (engine ~ '^[a-z][a-z0-9_]{0,31}$');
UPDATE services SET engine = 'none' WHERE kind <> 'tts';

-- Plans and subscriptions. A live subscription (starts_at <= now < expires_at, not cancelled)
-- gives its plan's tokens for the period into the user's quota account.
CREATE TABLE plans (
  id                bigserial PRIMARY KEY,
  code              text NOT NULL UNIQUE CHECK (code ~ '^[a-z][a-z0-9_]{0,31}$'),
  name              text NOT NULL,
  tokens_per_period bigint NOT NULL CHECK (tokens_per_period >= 0),
  period_days       integer NOT NULL DEFAULT 30 CHECK (period_days > 0),
  -- Orders that may be active at once; NULL: no limit.
  concurrency_slots integer CHECK (concurrency_slots > 0),
  price_minor       bigint NOT NULL DEFAULT 0 CHECK (price_minor >= 0),
  is_active         boolean NOT NULL DEFAULT true,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE subscriptions (
  id           bigserial PRIMARY KEY,
  user_id      bigint NOT NULL REFERENCES users(id),
  plan_id      bigint NOT NULL REFERENCES plans(id),
  starts_at    timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  cancelled_at timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  CHECK (expires_at > starts_at)
);
CREATE INDEX subscriptions_user ON subscriptions (user_id, expires_at DESC);

-- Operator switches: {"maintenance": true} pauses work intake (503 service_maintenance).
CREATE TABLE service_switches (
  name       text PRIMARY KEY,
  enabled    boolean NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO service_switches (name, enabled) VALUES ('maintenance', false);

CREATE TABLE orders (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id             bigint NOT NULL REFERENCES users(id),
  api_key_id          bigint REFERENCES api_keys(id),
  task_type           text NOT NULL CHECK (task_type IN ('tts', 'image', 'txt2img', 'remix', 'image_edit',
                                                         'voice_clone', 'sfx', 'music', 'voice_search')),
  status              text NOT NULL DEFAULT 'created'
                      CHECK (status IN ('created', 'pending', 'in_progress', 'completed', 'result_delivered',
                                        'failed', 'compensated', 'cancelled', 'partially_completed')),
  service_key         text NOT NULL,
  model_id            text,
  template_id         uuid REFERENCES templates(id),
  -- The template's config at creation time: order retry uses it, not the current template.
  config_snapshot     jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(config_snapshot) = 'object'),
  config_override     jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(config_override) = 'object'),
  generation_mode     text NOT NULL DEFAULT 'ordinary' CHECK (generation_mode IN ('ordinary', 'paragraph')),
  task_data           jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(task_data) = 'object'),
  -- What the engine needs, resolved at creation so workers never re-read the catalogue:
  -- {"engine": "espeak", "voice": "en-us", "variant": "m3", "language": "en", "settings": {...}}
  engine_request      jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(engine_request) = 'object'),
  input_text          text,            -- NULL once removed by retention
  input_removed_at    timestamptz,
  asset_id            bigint NOT NULL REFERENCES currency_assets(id),
  price_per_1k_minor  bigint NOT NULL DEFAULT 0 CHECK (price_per_1k_minor >= 0),
  capacity            integer NOT NULL DEFAULT 0,
  capacity_unit       text NOT NULL DEFAULT 'chars' CHECK (capacity_unit IN ('chars', 'utf8_bytes')),
  price_units         bigint NOT NULL DEFAULT 0 CHECK (price_units >= 0),       -- money, minor units
  tokens_from_quota   bigint NOT NULL DEFAULT 0 CHECK (tokens_from_quota >= 0),
  tokens_from_payg    bigint NOT NULL DEFAULT 0 CHECK (tokens_from_payg >= 0),
  result_files        jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(result_files) = 'array'),
  result_service_files jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(result_service_files) = 'array'),
  result_duration_ms  bigint,
  retry_of            uuid REFERENCES orders(id),
  -- Stitching is leased like a chunk: a crashed stitcher's lease runs out and another takes over.
  stitch_token        uuid,
  stitch_until        timestamptz,
  terminal_at         timestamptz,
  files_removed_at    timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  CHECK ((terminal_at IS NOT NULL) = (status IN ('completed', 'result_delivered', 'failed', 'compensated', 'cancelled')))
);
CREATE INDEX orders_owner ON orders (user_id, created_at DESC, id DESC);
CREATE INDEX orders_owner_status ON orders (user_id, status, created_at DESC);
CREATE INDEX orders_stitch ON orders (stitch_until) WHERE stitch_until IS NOT NULL;
CREATE INDEX orders_retention ON orders (terminal_at) WHERE files_removed_at IS NULL AND terminal_at IS NOT NULL;
CREATE INDEX orders_abandoned ON orders (updated_at) WHERE status = 'partially_completed';
CREATE INDEX orders_active ON orders (user_id) WHERE status IN ('created', 'pending', 'in_progress');

CREATE TABLE order_items (
  id                     uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  order_id               uuid NOT NULL REFERENCES orders(id),
  item_type              text NOT NULL CHECK (item_type IN ('chunk', 'retry', 'regeneration')),
  chunk_index            integer NOT NULL CHECK (chunk_index >= 0),
  paragraph_index        integer,
  parent_item_id         uuid REFERENCES order_items(id),
  attempt_number         integer NOT NULL DEFAULT 1 CHECK (attempt_number >= 1),
  status                 text NOT NULL DEFAULT 'pending'
                         CHECK (status IN ('pending', 'processing', 'completed', 'failed', 'policy_flagged')),
  failure_reason         text,
  text                   text,            -- NULL once removed by retention
  original_text_length   integer NOT NULL,
  current_text_length    integer NOT NULL,
  free_length            integer NOT NULL,
  billable_length        integer NOT NULL,
  max_billable_length    integer NOT NULL,
  max_raw_length         integer NOT NULL,
  raw_length             integer NOT NULL,
  capacity_unit          text NOT NULL CHECK (capacity_unit IN ('chars', 'utf8_bytes')),
  -- Tokens: price_units = what this record may consume; the lock behind it is quota_tokens of
  -- subscription quota plus payg_minor of money. A retry's surcharge is kept apart so that a
  -- failed retry returns exactly it.
  price_units            bigint NOT NULL CHECK (price_units >= 0),
  quota_tokens           bigint NOT NULL DEFAULT 0 CHECK (quota_tokens >= 0),
  payg_minor             bigint NOT NULL DEFAULT 0 CHECK (payg_minor >= 0),
  surcharge_tokens       bigint NOT NULL DEFAULT 0 CHECK (surcharge_tokens >= 0),
  surcharge_quota_tokens bigint NOT NULL DEFAULT 0 CHECK (surcharge_quota_tokens >= 0),
  surcharge_minor        bigint NOT NULL DEFAULT 0 CHECK (surcharge_minor >= 0),
  consumed_units         bigint NOT NULL DEFAULT 0 CHECK (consumed_units >= 0),
  remaining_locked       bigint NOT NULL DEFAULT 0 CHECK (remaining_locked >= 0),
  result_path            text,
  result_size            bigint,
  duration_ms            bigint,
  timings                jsonb,           -- [[byte offset, byte length, start ms], ...] on the item's MP3
  claims                 integer NOT NULL DEFAULT 0,
  lease_token            uuid,
  locked_until           timestamptz,
  queued_at              timestamptz NOT NULL DEFAULT now(),
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now(),
  CHECK ((item_type = 'chunk') = (parent_item_id IS NULL)),
  CHECK ((status = 'processing') = (lease_token IS NOT NULL))
);
CREATE INDEX order_items_order ON order_items (order_id, chunk_index, created_at);
-- The queue: only waiting rows are in it, so a claim stays fast however many are done.
CREATE INDEX order_items_queue ON order_items (queued_at, chunk_index) WHERE status = 'pending';
CREATE INDEX order_items_leases ON order_items (locked_until) WHERE status = 'processing';
-- One live attempt per position (409 active_retry_exists).
CREATE UNIQUE INDEX order_items_one_live ON order_items (order_id, chunk_index)
  WHERE status IN ('pending', 'processing');

-- Idempotency-Key: the first answer to a (user, key) is kept for 24 hours and replayed.
CREATE TABLE idempotency_keys (
  user_id      bigint NOT NULL REFERENCES users(id),
  key          text NOT NULL,
  scope        text NOT NULL,          -- which operation: "orders.create", "orders.retry", ...
  request_hash bytea NOT NULL,
  status       integer NOT NULL,
  body         text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, key)
);
CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at);
