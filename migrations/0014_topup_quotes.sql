-- The explicit-confirmation fallback of spec 7.1 (admin billing confirm-mode on|off, the
-- service_switches row 'payg_confirm'): quotes are signed tokens, not rows, so a 402
-- payg_topup_required writes nothing. A confirmed quote's nonce is recorded here in the
-- transaction that creates the order it pays for: the same token never pays for a second order.
CREATE TABLE topup_quote_uses (
  nonce      text PRIMARY KEY,
  user_id    bigint NOT NULL REFERENCES users(id),
  order_id   uuid NOT NULL,
  used_at    timestamptz NOT NULL DEFAULT now()
);
-- A quote lives five minutes: the janitor drops uses older than a day.
CREATE INDEX topup_quote_uses_used_at ON topup_quote_uses (used_at);
