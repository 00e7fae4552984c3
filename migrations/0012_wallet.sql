-- The wallet and ledger listings (GET /wallets, GET /ledger-transactions) exist for an account
-- only once the operator has switched them on (`mediagen admin user wallet --user ID on`);
-- switched off, both paths answer as unknown paths do.
ALTER TABLE users ADD COLUMN wallet_enabled boolean NOT NULL DEFAULT false;

-- The ledger listing: one account's transactions, newest first (the id breaks ties of one
-- instant, so pages never overlap).
CREATE INDEX ledger_txns_user_time ON ledger_txns (user_id, created_at DESC, id DESC) WHERE user_id IS NOT NULL;
