-- Voice clones (spec 1, 2.6, 3.3, 4.5): an account's own voices for provider_c and provider_d,
-- built by a worker job from uploaded samples into a profile the speech engine speaks with.
--
-- Status moves (voices/clone_status.cpp is the one place that names them):
--   pending    -> processing  a worker claims it (attempts + 1, a lease until locked_until)
--   processing -> ready       the profile is built; voice_id is set now and never changes
--   processing -> failed      the samples hold no usable speech, or the attempts ran out
--   processing -> pending     the lease ran out (a crashed worker): claimed again later
--   failed     -> pending     POST .../clones/{clone}/retry (attempts start again)
--   any but archived -> archived   POST .../clones/{clone}/archive; final
CREATE TABLE voice_clones (
  id             uuid PRIMARY KEY,
  user_id        bigint NOT NULL REFERENCES users(id),
  service_key    text NOT NULL CHECK (service_key IN ('provider_c', 'provider_d')),
  name           text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  status         text NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'processing', 'ready', 'failed', 'archived')),
  -- Set at ready only: a UUID for provider_c, 32 lowercase hex for provider_d.
  voice_id       text UNIQUE CHECK (voice_id ~ '^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$'),
  profile        jsonb,
  failure_reason text,
  sample_count   integer NOT NULL CHECK (sample_count > 0),
  sample_bytes   bigint NOT NULL DEFAULT 0 CHECK (sample_bytes >= 0),
  sample_seconds double precision,       -- decoded audio, known once analysed
  attempts       integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  lease_token    uuid,
  locked_until   timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'ready') = (voice_id IS NOT NULL AND profile IS NOT NULL) OR status = 'archived')
);
CREATE INDEX voice_clones_owner ON voice_clones (user_id, service_key, created_at DESC, id);
CREATE INDEX voice_clones_queue ON voice_clones (created_at) WHERE status IN ('pending', 'processing');

-- Clone ceilings of a plan (spec 4.5): provider_c and provider_d counted apart. NULL: the
-- default of voices/clone_limits.hpp (10 each).
ALTER TABLE plans ADD COLUMN clone_limit integer CHECK (clone_limit >= 0),
  ADD COLUMN clone_limit_provider_d integer CHECK (clone_limit_provider_d >= 0);

-- Whether a service is open to pay-as-you-go (`mediagen admin service payg`). Closed: clones of
-- the service need a live subscription (402 no_subscription).
ALTER TABLE services ADD COLUMN payg_enabled boolean NOT NULL DEFAULT true;
