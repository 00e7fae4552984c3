-- Plans as data (spec 2.9, 4.6): what a plan entitles and the ceilings GET /usage shows.
--
-- A plan's token quota may be spent only on the services it entitles; an order on any other
-- service is paid from the balance (pay-as-you-go), or refused with 402 insufficient_allowance
-- when that service is closed to pay-as-you-go. An entitled service may carry a ceiling of its
-- own: tokens per subscription period on that service (429 limit_exceeded beyond it).

-- Limits that are not a service: the shared token quota and the concurrency slots.
CREATE TABLE entitlements (
  id      bigserial PRIMARY KEY,
  code    text NOT NULL UNIQUE CHECK (code ~ '^[a-z][a-z0-9_]{0,63}$'),
  name_en text NOT NULL,
  name_ru text NOT NULL
);
INSERT INTO entitlements (code, name_en, name_ru) VALUES
  ('generation_tokens', 'Generation tokens', 'Токены генерации'),
  ('concurrent_tasks', 'Concurrent tasks', 'Одновременные задачи');

-- One row per record of GET /usage; its id is the record's limit_id. Entitlement rows take
-- their ceiling from the plan (tokens_per_period, concurrency_slots); service rows from
-- usage_limit (NULL: bounded by the shared quota alone).
CREATE TABLE plan_limits (
  id             bigserial PRIMARY KEY,
  plan_id        bigint NOT NULL REFERENCES plans(id) ON DELETE CASCADE,
  service_id     bigint REFERENCES services(id),
  entitlement_id bigint REFERENCES entitlements(id),
  usage_limit    bigint CHECK (usage_limit >= 0),
  CHECK ((service_id IS NULL) <> (entitlement_id IS NULL)),
  CHECK (service_id IS NOT NULL OR usage_limit IS NULL)
);
CREATE UNIQUE INDEX plan_limits_service ON plan_limits (plan_id, service_id) WHERE service_id IS NOT NULL;
CREATE UNIQUE INDEX plan_limits_entitlement ON plan_limits (plan_id, entitlement_id) WHERE entitlement_id IS NOT NULL;

-- Plans made before this migration keep what they did: their quota paid for every service.
INSERT INTO plan_limits (plan_id, entitlement_id)
SELECT p.id, e.id FROM plans p, entitlements e
WHERE e.code = 'generation_tokens' OR (e.code = 'concurrent_tasks' AND p.concurrency_slots IS NOT NULL);
INSERT INTO plan_limits (plan_id, service_id) SELECT p.id, s.id FROM plans p, services s;

-- Service names in the second locale (GET /usage's service_name follows X-Locale).
ALTER TABLE services ADD COLUMN name_ru text;

-- The per-service usage of a period is summed from the orders of that service.
CREATE INDEX orders_owner_service ON orders (user_id, service_key, created_at);

-- What "active" means for the concurrency slots, said once for every reader of it.
CREATE FUNCTION order_is_active(status text) RETURNS boolean LANGUAGE sql IMMUTABLE
  AS $$ SELECT status IN ('created', 'pending', 'in_progress') $$;
