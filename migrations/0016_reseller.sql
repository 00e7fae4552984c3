-- Resellers and their gift codes (spec 2.7, 3.4, 4.8).
--
-- Money (all through the ledger, in the transaction that changes the code):
--   issue:   reseller balance --cost--> gift_outstanding; funding --(nominal - cost)--> gift_outstanding
--            (the platform funds the reseller's discount)
--   cancel:  the same legs back: gift_outstanding --cost--> reseller balance, the rest to funding
--   redeem:  gift_outstanding --nominal--> the redeemer's wallet
-- So gift_outstanding always holds the nominal of every active code (checked by the invariants).

-- New ledger account kinds: `reseller` (a reseller's balance, user-owned) and
-- `gift_outstanding` (the platform's liability for codes not yet redeemed or cancelled).
DO $$
DECLARE c record;
BEGIN
  FOR c IN SELECT conname FROM pg_constraint
           WHERE conrelid = 'ledger_accounts'::regclass AND contype = 'c'
             AND (pg_get_constraintdef(oid) LIKE '%''quota_funding''%')
  LOOP
    EXECUTE format('ALTER TABLE ledger_accounts DROP CONSTRAINT %I', c.conname);
  END LOOP;
END $$;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_known
  CHECK (kind IN ('wallet', 'escrow', 'revenue', 'funding', 'quota', 'quota_escrow', 'quota_spent',
                  'quota_funding', 'reseller', 'gift_outstanding'));
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_platform_kinds
  CHECK ((user_id IS NULL) = (kind IN ('revenue', 'funding', 'quota_spent', 'quota_funding', 'gift_outstanding')));

CREATE TABLE resellers (
  user_id               bigint PRIMARY KEY REFERENCES users(id),
  discount_bps          integer NOT NULL DEFAULT 0 CHECK (discount_bps BETWEEN 0 AND 10000),
  cancel_window_minutes integer NOT NULL DEFAULT 60 CHECK (cancel_window_minutes BETWEEN 0 AND 525600),
  enabled               boolean NOT NULL DEFAULT true,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);

-- source:  reseller          issued by a reseller through POST /reseller/codes
-- funding: reseller_balance  paid from the reseller balance (the discount by the platform)
-- status:  active -> redeemed | cancelled (both final)
CREATE TABLE gift_codes (
  id             uuid PRIMARY KEY,
  reseller_id    bigint REFERENCES users(id),
  code_hash      text NOT NULL UNIQUE CHECK (length(code_hash) = 64),  -- sha256 hex of the full code
  code_sealed    text NOT NULL,  -- the full code, AES-256-GCM under a key derived from MEDIAGEN_SECRET
  code_masked    text NOT NULL,
  nominal        bigint NOT NULL CHECK (nominal > 0),
  cost           bigint NOT NULL CHECK (cost >= 0 AND cost <= nominal),
  discount_bps   integer NOT NULL CHECK (discount_bps BETWEEN 0 AND 10000),
  asset_id       bigint NOT NULL REFERENCES currency_assets(id),
  source         text NOT NULL CHECK (source IN ('reseller')),
  funding        text NOT NULL CHECK (funding IN ('reseller_balance')),
  status         text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'redeemed', 'cancelled')),
  activatable_at timestamptz,
  redeemed_at    timestamptz,
  redeemed_by    bigint REFERENCES users(id),  -- never shown to the reseller
  cancelled_at   timestamptz,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL,
  CHECK ((status = 'redeemed') = (redeemed_at IS NOT NULL AND redeemed_by IS NOT NULL)),
  CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL)),
  CHECK (source <> 'reseller' OR reseller_id IS NOT NULL)
);
CREATE INDEX gift_codes_reseller ON gift_codes (reseller_id, created_at DESC, id DESC);
