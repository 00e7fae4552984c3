-- A stitch that fails is an outcome, not a loop. stitch_attempts counts the hand-outs of the
-- order's current stitch (1 when settling starts it, +1 each time the sweeper hands it out
-- again); after the last allowed attempt fails the order gives up (failed, everything returned)
-- and failure_reason says why. stitched_at is when the result listed on the order was built: a
-- finished order whose re-stitch gives up keeps that result, and the charges posted after it
-- (the regenerations it could not take in) are returned; for orders finished before this column,
-- terminal_at (their first stitch) stands in.
-- Constant defaults: catalogue changes only, no rewrite of the table under the lock.
ALTER TABLE orders ADD COLUMN stitch_attempts integer NOT NULL DEFAULT 0 CHECK (stitch_attempts >= 0);
ALTER TABLE orders ADD COLUMN failure_reason text CHECK (failure_reason IN ('stitch_failed'));
ALTER TABLE orders ADD COLUMN stitched_at timestamptz;
