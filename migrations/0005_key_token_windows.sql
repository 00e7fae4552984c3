-- Token windows of API keys (spec 8.1, 8.2), counted in PostgreSQL in the transaction of the
-- order or retry that bills the tokens: exact across instances, undone by a rollback, and served
-- while Redis is down. One row per key and window kind; `ends_at` names the window the row
-- counts, and a row whose window has ended starts again from zero on its next use.
CREATE TABLE api_key_token_windows (
  key_id  bigint NOT NULL,
  span    text NOT NULL CHECK (span IN ('per_minute', 'per_hour', 'per_day', 'per_month')),
  ends_at timestamptz NOT NULL,
  used    bigint NOT NULL CHECK (used >= 0),
  PRIMARY KEY (key_id, span)
);
