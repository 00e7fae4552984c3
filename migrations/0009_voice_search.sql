-- Voice search orders (issue 16). They are billed per search, not by text or seconds: a new
-- capacity unit 'searches' (one token per order) for the voice_search service, its model and its
-- orders. Their result is data, not files: the ranked voices live in orders.result_data, beside
-- the (empty) result_files. (Checks are swapped in place, as in 0007.)
ALTER TABLE services DROP CONSTRAINT services_capacity_unit_check,
  ADD CONSTRAINT services_capacity_unit_check CHECK (capacity_unit IN ('chars', 'utf8_bytes', 'seconds', 'searches')) NOT VALID;
ALTER TABLE services VALIDATE CONSTRAINT services_capacity_unit_check;
ALTER TABLE service_models DROP CONSTRAINT service_models_capacity_unit_check,
  ADD CONSTRAINT service_models_capacity_unit_check CHECK (capacity_unit IN ('chars', 'utf8_bytes', 'seconds', 'searches')) NOT VALID;
ALTER TABLE service_models VALIDATE CONSTRAINT service_models_capacity_unit_check;
ALTER TABLE orders DROP CONSTRAINT orders_capacity_unit_check,
  ADD CONSTRAINT orders_capacity_unit_check CHECK (capacity_unit IN ('chars', 'utf8_bytes', 'seconds', 'searches')) NOT VALID;
ALTER TABLE orders VALIDATE CONSTRAINT orders_capacity_unit_check;
ALTER TABLE order_items DROP CONSTRAINT order_items_capacity_unit_check,
  ADD CONSTRAINT order_items_capacity_unit_check CHECK (capacity_unit IN ('chars', 'utf8_bytes', 'seconds', 'searches')) NOT VALID;
ALTER TABLE order_items VALIDATE CONSTRAINT order_items_capacity_unit_check;

ALTER TABLE orders ADD COLUMN result_data jsonb CHECK (result_data IS NULL OR jsonb_typeof(result_data) = 'object');
