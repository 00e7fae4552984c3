-- Accounts, API keys, currency assets, balances and the money ledger.

CREATE TABLE currency_assets (
  id              bigserial PRIMARY KEY,
  code            text NOT NULL UNIQUE,
  kind            text NOT NULL DEFAULT 'fiat',
  precision       integer NOT NULL CHECK (precision BETWEEN 0 AND 18),
  name            text NOT NULL,
  is_active       boolean NOT NULL DEFAULT true,
  is_default      boolean NOT NULL DEFAULT false,
  default_balance bigint NOT NULL DEFAULT 0,
  deleted_at      timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
-- At most one platform currency.
CREATE UNIQUE INDEX currency_assets_one_default ON currency_assets (is_default) WHERE is_default;

INSERT INTO currency_assets (code, kind, precision, name, is_default)
VALUES ('USD', 'fiat', 2, 'US dollar', true);

CREATE TABLE users (
  id         bigserial PRIMARY KEY,
  email      text NOT NULL,
  name       text NOT NULL DEFAULT '',
  locale     text NOT NULL DEFAULT 'en' CHECK (locale IN ('en', 'ru')),
  blocked_at timestamptz,
  deleted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_unique ON users (lower(email));

CREATE TABLE api_keys (
  id                     bigserial PRIMARY KEY,
  user_id                bigint NOT NULL REFERENCES users(id),
  name                   text NOT NULL DEFAULT '',
  key_hash               bytea NOT NULL UNIQUE CHECK (length(key_hash) = 32),
  key_prefix             text NOT NULL,
  scopes                 text[] NOT NULL DEFAULT '{}',
  rate_per_minute        bigint CHECK (rate_per_minute > 0),
  rate_per_hour          bigint CHECK (rate_per_hour > 0),
  rate_per_day           bigint CHECK (rate_per_day > 0),
  tokens_per_minute      bigint CHECK (tokens_per_minute > 0),
  tokens_per_hour        bigint CHECK (tokens_per_hour > 0),
  tokens_per_day         bigint CHECK (tokens_per_day > 0),
  tokens_per_month       bigint CHECK (tokens_per_month > 0),
  tokens_quota_limit     bigint CHECK (tokens_quota_limit >= 0),
  tokens_quota_used      bigint NOT NULL DEFAULT 0 CHECK (tokens_quota_used >= 0),
  expires_at             timestamptz,
  ai_monthly_limit_minor bigint CHECK (ai_monthly_limit_minor >= 0),
  disabled_at            timestamptz,
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_user ON api_keys (user_id);

-- Balance per user and asset: a cache of the ledger sum, updated in the same transaction
-- as every ledger row (invariant: amount_minor = sum of the user's ledger entries).
CREATE TABLE balances (
  user_id      bigint NOT NULL REFERENCES users(id),
  asset_id     bigint NOT NULL REFERENCES currency_assets(id),
  amount_minor bigint NOT NULL DEFAULT 0,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, asset_id)
);

-- Append-only record of every movement of money.
CREATE TABLE ledger_entries (
  id           bigserial PRIMARY KEY,
  user_id      bigint NOT NULL REFERENCES users(id),
  asset_id     bigint NOT NULL REFERENCES currency_assets(id),
  amount_minor bigint NOT NULL CHECK (amount_minor <> 0),
  kind         text NOT NULL,
  reference    text,
  note         text,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_entries_user ON ledger_entries (user_id, created_at);

CREATE FUNCTION ledger_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger_entries is append-only';
END $$;
CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_entries_append_only();
CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON ledger_entries
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_append_only();
