-- The AI model price catalogue (spec 2.8, 4.7): models, their prices per class in minor units of
-- the platform currency, the display-currency rates, and the catalogue version that every change
-- of those rows moves in its own transaction (triggers below), so that `version` and the ETag
-- can never describe prices other than the ones committed with them.
CREATE TABLE ai_models (
  key               text PRIMARY KEY CHECK (key ~ '^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$'),
  name              text NOT NULL,
  family            text NOT NULL DEFAULT '',
  kind              text NOT NULL DEFAULT 'chat',
  description       text NOT NULL DEFAULT '',
  context_window    integer CHECK (context_window > 0),
  max_output_tokens integer CHECK (max_output_tokens > 0),
  capabilities      jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(capabilities) = 'array'),
  pricing_mode      text NOT NULL DEFAULT 'per_token' CHECK (pricing_mode IN ('per_token', 'per_call')),
  byok              boolean NOT NULL DEFAULT false,
  billing_available boolean NOT NULL DEFAULT true,
  -- Off: the model is out of the catalogue for now (spec 4.7: a model may temporarily disappear).
  active            boolean NOT NULL DEFAULT true,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);

-- Per 1M tokens for the token classes, per call for `request`; a model without rows has no price.
CREATE TABLE ai_model_prices (
  model_key   text NOT NULL REFERENCES ai_models(key) ON DELETE CASCADE,
  price_class text NOT NULL
              CHECK (price_class IN ('input', 'cached_input', 'output', 'reasoning', 'cache_write', 'request')),
  minor       bigint NOT NULL CHECK (minor >= 0),
  PRIMARY KEY (model_key, price_class)
);

-- How many display units one unit of the platform currency is worth.
CREATE TABLE display_currencies (
  code       text PRIMARY KEY CHECK (code ~ '^[A-Z]{3}$'),
  symbol     text CHECK (length(symbol) BETWEEN 1 AND 8),
  precision  integer NOT NULL DEFAULT 2 CHECK (precision BETWEEN 0 AND 8),
  rate       numeric(30, 12) NOT NULL CHECK (rate > 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One row. `salt` keeps a version of one database from matching that of another (a restored or
-- recreated database starts its counter again).
CREATE TABLE ai_catalogue_version (
  id         boolean PRIMARY KEY DEFAULT true CHECK (id),
  counter    bigint NOT NULL DEFAULT 1,
  salt       text NOT NULL DEFAULT substr(md5(random()::text || clock_timestamp()::text), 1, 8),
  changed_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO ai_catalogue_version DEFAULT VALUES;

CREATE FUNCTION ai_catalogue_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE ai_catalogue_version SET counter = counter + 1, changed_at = now();
  RETURN NULL;
END $$;

-- Row triggers: an INSERT .. ON CONFLICT DO NOTHING that changes nothing moves nothing, and an
-- UPDATE that writes the same values is not a change.
CREATE TRIGGER ai_models_version_ins AFTER INSERT OR DELETE ON ai_models
  FOR EACH ROW EXECUTE FUNCTION ai_catalogue_bump();
CREATE TRIGGER ai_models_version_upd AFTER UPDATE ON ai_models
  FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION ai_catalogue_bump();
CREATE TRIGGER ai_model_prices_version_ins AFTER INSERT OR DELETE ON ai_model_prices
  FOR EACH ROW EXECUTE FUNCTION ai_catalogue_bump();
CREATE TRIGGER ai_model_prices_version_upd AFTER UPDATE ON ai_model_prices
  FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION ai_catalogue_bump();
CREATE TRIGGER display_currencies_version_ins AFTER INSERT OR DELETE ON display_currencies
  FOR EACH ROW EXECUTE FUNCTION ai_catalogue_bump();
CREATE TRIGGER display_currencies_version_upd AFTER UPDATE ON display_currencies
  FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION ai_catalogue_bump();
