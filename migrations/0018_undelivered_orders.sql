-- An order made for one answer of the OpenAI-compatible surface ends with that answer: when the
-- answer ends before all of its audio was sent, the order fails with failure_reason
-- 'not_delivered', its unstarted chunks are stopped, the escrow is released and the charges of
-- the chunks the client did not receive are returned (charge_refund).
-- The new CHECK accepts every row the old one did.
ALTER TABLE orders DROP CONSTRAINT orders_failure_reason_check;
ALTER TABLE orders ADD CONSTRAINT orders_failure_reason_check
  CHECK (failure_reason IN ('stitch_failed', 'not_delivered'));
