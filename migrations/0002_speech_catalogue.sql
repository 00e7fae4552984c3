-- The service catalogue (services, models, modes, languages, voices and voice tags) and
-- templates. The catalogue rows are data: `mediagen admin seed-demo` upserts them, and an
-- operator may change prices, capacities or active flags here without a new build.

CREATE TABLE services (
  id            bigserial PRIMARY KEY,
  key           text NOT NULL UNIQUE CHECK (key ~ '^[a-z][a-z0-9_]{0,63}$'),
  kind          text NOT NULL CHECK (kind IN ('tts', 'sfx', 'music', 'voice_search')),
  name          text NOT NULL,
  -- How chunk capacity is counted: Unicode code points, or UTF-8 bytes (provider_d).
  capacity_unit text NOT NULL DEFAULT 'chars' CHECK (capacity_unit IN ('chars', 'utf8_bytes')),
  is_active     boolean NOT NULL DEFAULT true,
  position      integer NOT NULL DEFAULT 0,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE service_models (
  id                 bigserial PRIMARY KEY,
  service_id         bigint NOT NULL REFERENCES services(id),
  model_id           text NOT NULL CHECK (model_id ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
  name               text NOT NULL,
  generation         integer NOT NULL CHECK (generation > 0),
  -- Capacity of one chunk, counted in capacity_unit.
  capacity           integer NOT NULL CHECK (capacity > 0),
  capacity_unit      text NOT NULL CHECK (capacity_unit IN ('chars', 'utf8_bytes')),
  -- Price of 1,000 tokens in minor units of the platform currency.
  price_per_1k_minor bigint NOT NULL CHECK (price_per_1k_minor >= 0),
  -- Voice settings the model honours with advanced_voice_settings (or always), and the subset
  -- it honours without the flag (spec section 1); the rest is silently ignored.
  settings_honoured  text[] NOT NULL,
  settings_basic     text[] NOT NULL CHECK (settings_basic <@ settings_honoured),
  -- {"stability": {"type": "number", "min": 0, "max": 1, "default": 0.5}, ...}
  settings_schema    jsonb NOT NULL CHECK (jsonb_typeof(settings_schema) = 'object'),
  -- ISO 639-1 codes accepted as language_code; NULL: every language its service's voices speak.
  languages          text[],
  is_active          boolean NOT NULL DEFAULT true,
  position           integer NOT NULL DEFAULT 0,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  UNIQUE (service_id, model_id)
);

CREATE TABLE service_modes (
  service_id bigint NOT NULL REFERENCES services(id),
  mode       text NOT NULL CHECK (mode ~ '^[a-z0-9_]{1,64}$'),
  name       text NOT NULL,
  is_active  boolean NOT NULL DEFAULT true,
  position   integer NOT NULL DEFAULT 0,
  PRIMARY KEY (service_id, mode)
);

-- Names of languages in the reference lists (X-Locale picks the column).
CREATE TABLE languages (
  code    text PRIMARY KEY CHECK (code ~ '^[a-z]{2,8}$'),
  name_en text NOT NULL,
  name_ru text NOT NULL
);

CREATE TABLE voice_tags (
  code     text PRIMARY KEY CHECK (code ~ '^[a-z][a-z0-9_]{0,63}$'),
  name_en  text NOT NULL,
  name_ru  text NOT NULL,
  position integer NOT NULL DEFAULT 0
);

-- Catalogue voices of the voice services. `id` is the global ("LumVoice") id of /voices/{voice};
-- voice_id is the id in the provider's format, the one templates carry.
CREATE TABLE voices (
  id             uuid PRIMARY KEY,
  service_id     bigint NOT NULL REFERENCES services(id),
  voice_id       text NOT NULL CHECK (length(voice_id) BETWEEN 1 AND 128),
  name           text NOT NULL,
  language       text NOT NULL,           -- primary language subtag: en, ru, cmn, ...
  locale         text NOT NULL,           -- the full tag of the synthesiser voice: en-us, pt-br, ...
  accent         text NOT NULL DEFAULT '',
  gender         text NOT NULL CHECK (gender IN ('male', 'female', 'neutral')),
  tags           text[] NOT NULL DEFAULT '{}',
  espeak_voice   text NOT NULL,
  espeak_variant text NOT NULL DEFAULT '',
  preview_path   text NOT NULL,
  is_public      boolean NOT NULL DEFAULT true,
  is_active      boolean NOT NULL DEFAULT true,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (service_id, voice_id)
);
CREATE INDEX voices_listing ON voices (service_id, name, voice_id) WHERE is_active;
CREATE INDEX voices_language ON voices (service_id, language) WHERE is_active;

-- Templates belong to the account (user), not to a key. Deletion is soft.
CREATE TABLE templates (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id     bigint NOT NULL REFERENCES users(id),
  service_key text NOT NULL REFERENCES services(key),
  name        text NOT NULL,
  config      jsonb NOT NULL CHECK (jsonb_typeof(config) = 'object'),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  deleted_at  timestamptz
);
CREATE INDEX templates_owner ON templates (user_id, created_at DESC, id) WHERE deleted_at IS NULL;
