-- Upstream provider engines: a voice service (or sfx, music) may be served by a provider's HTTP
-- API instead of the embedded engine, chosen by the operator (`admin service engine`).
--
-- services.upstream holds where the provider is and how to find its key:
--   {"url": "https://...", "model": "...", "key_env": "NAME", "key_file": "/path", "voices": [...]}
-- The key itself is never stored: only the environment variable's name or a file's path.
-- engine_by_operator marks an engine an operator chose, which `admin seed-demo` then keeps.
ALTER TABLE services ADD COLUMN engine_by_operator boolean NOT NULL DEFAULT false;
ALTER TABLE services ADD COLUMN upstream jsonb CHECK (upstream IS NULL OR jsonb_typeof(upstream) = 'object');

-- A voice fetched from an upstream's catalogue: voice_id keeps the spec's format of the service
-- (derived when the upstream's own id does not fit), upstream_voice_id is what the upstream
-- calls it. NULL for the embedded voices.
ALTER TABLE voices ADD COLUMN upstream_voice_id text
  CHECK (upstream_voice_id IS NULL OR length(upstream_voice_id) BETWEEN 1 AND 256);
