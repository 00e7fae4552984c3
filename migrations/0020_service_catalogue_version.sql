-- A counter that moves with every change to what a service's catalogue entry is read from
-- (services, their models, modes and voices). An instance keeps each service and voice as it
-- last read them, with this counter; the order's context statement reads the counter,
-- so an order uses a kept service only while nothing it was read from has changed since, and
-- reads it again otherwise. Statement triggers, not row triggers: a voice import of thousands of
-- rows moves the counter once, and a statement that changes nothing only costs a read.
CREATE TABLE service_catalogue_version (
  one        boolean PRIMARY KEY DEFAULT true CHECK (one),
  counter    bigint NOT NULL DEFAULT 1,
  changed_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO service_catalogue_version DEFAULT VALUES;

CREATE FUNCTION service_catalogue_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE service_catalogue_version SET counter = counter + 1, changed_at = now();
  RETURN NULL;
END $$;

CREATE TRIGGER services_catalogue_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON services
  FOR EACH STATEMENT EXECUTE FUNCTION service_catalogue_bump();
CREATE TRIGGER service_models_catalogue_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON service_models
  FOR EACH STATEMENT EXECUTE FUNCTION service_catalogue_bump();
CREATE TRIGGER service_modes_catalogue_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON service_modes
  FOR EACH STATEMENT EXECUTE FUNCTION service_catalogue_bump();
-- Voices too: the service's language list is made of them, and its voices are kept with it.
CREATE TRIGGER voices_catalogue_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON voices
  FOR EACH STATEMENT EXECUTE FUNCTION service_catalogue_bump();
