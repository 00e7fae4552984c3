-- The sequence number of an order's realtime events (order.updated and order.item.updated share
-- it): +1 per event, kept with the order so that every instance numbers alike and a restart
-- continues where it stopped. Bumping it changes nothing else of the order (no trigger touches
-- updated_at), and no index covers the column, so a bump is a HOT update. A constant default
-- makes the column a catalogue change only: no rewrite of the table, no scan under the lock.
ALTER TABLE orders ADD COLUMN event_seq bigint NOT NULL DEFAULT 0;
