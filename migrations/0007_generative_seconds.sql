-- Sound effects and music are billed by the second of audio they make, not by the characters of
-- their prompt: their services, models, orders and chunks count capacity in 'seconds'. (A check
-- is swapped in place: NOT VALID then VALIDATE keeps the table readable while it is checked.)
ALTER TABLE services DROP CONSTRAINT services_capacity_unit_check,
  ADD CONSTRAINT services_capacity_unit_check CHECK (capacity_unit IN ('chars', 'utf8_bytes', 'seconds')) NOT VALID;
ALTER TABLE services VALIDATE CONSTRAINT services_capacity_unit_check;
ALTER TABLE service_models DROP CONSTRAINT service_models_capacity_unit_check,
  ADD CONSTRAINT service_models_capacity_unit_check CHECK (capacity_unit IN ('chars', 'utf8_bytes', 'seconds')) NOT VALID;
ALTER TABLE service_models VALIDATE CONSTRAINT service_models_capacity_unit_check;
ALTER TABLE orders DROP CONSTRAINT orders_capacity_unit_check,
  ADD CONSTRAINT orders_capacity_unit_check CHECK (capacity_unit IN ('chars', 'utf8_bytes', 'seconds')) NOT VALID;
ALTER TABLE orders VALIDATE CONSTRAINT orders_capacity_unit_check;
ALTER TABLE order_items DROP CONSTRAINT order_items_capacity_unit_check,
  ADD CONSTRAINT order_items_capacity_unit_check CHECK (capacity_unit IN ('chars', 'utf8_bytes', 'seconds')) NOT VALID;
ALTER TABLE order_items VALIDATE CONSTRAINT order_items_capacity_unit_check;
