-- The policy cooldown (spec 8.1 policy_cooldown_active): after five consecutive orders blocked by
-- the content policy, a user may not create orders for a while, and the while grows step by step
-- (MEDIAGEN_POLICY_COOLDOWN_SECONDS, 300, 600, 900 by default, staying at the last).
--
-- One row per user who ever had a policy-blocked order. orders/policy_cooldown_store.cpp is the
-- only writer, always in the transaction that settles the order:
--   an order's first policy_flagged chunk   streak + 1; at the fifth: blocked_until, step + 1,
--                                           streak back to 0
--   an order completed with none flagged    streak and step back to 0 (blocked_until stays)
CREATE TABLE policy_cooldowns (
  user_id       bigint PRIMARY KEY REFERENCES users(id),
  -- Consecutive policy-blocked orders since the last cooldown or clean completion.
  streak        integer NOT NULL DEFAULT 0 CHECK (streak >= 0),
  -- Cooldowns given since the last clean completion: the next one lasts ladder[min(step, last)].
  step          integer NOT NULL DEFAULT 0 CHECK (step >= 0),
  -- Creation is refused until then; NULL: never blocked.
  blocked_until timestamptz,
  updated_at    timestamptz NOT NULL DEFAULT now()
);

-- When the order got its first policy_flagged chunk: it is counted once, however many of its
-- chunks (and their retries) are flagged.
ALTER TABLE orders ADD COLUMN policy_flagged_at timestamptz;
