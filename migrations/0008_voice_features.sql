-- How each synthesiser voice sounds (engines/voice_features.hpp): computed once per espeak-ng
-- voice and variant from a synthesized sample. Voice search ranks the catalogue by it; a clone's
-- base voice is the nearest one. Catalogue voices share these rows through the pair.
CREATE TABLE voice_features (
  espeak_voice   text NOT NULL,
  espeak_variant text NOT NULL DEFAULT '',
  features       real[] NOT NULL CHECK (cardinality(features) = 28),
  computed_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (espeak_voice, espeak_variant)
);
