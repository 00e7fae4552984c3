-- Webhooks (openapi: "Webhooks"): signed deliveries of the realtime events to a URL of the
-- customer's, per order (POST /orders `webhook`) and per account (endpoints the operator adds).
--
-- The outbox: a message is written by the triggers below, in the transaction that changes the
-- status it reports, so a crash after the commit loses none. A trigger writes only when some
-- destination wants the event; the order path pays two index probes per status change and no
-- write when nobody does. The event's data (its realtime payload) is written after the commit
-- by whoever renders that event: the order events' publisher fills the messages of the change
-- it publishes, with the same seq; the deliverer renders what is still empty after a grace.

-- The secret of the account that signs its per-order deliveries; made on first use.
CREATE TABLE webhook_secrets (
  user_id    bigint PRIMARY KEY REFERENCES users(id),
  secret     text NOT NULL CHECK (secret LIKE 'whsec\_%'),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE webhook_endpoints (
  id                   bigserial PRIMARY KEY,
  user_id              bigint NOT NULL REFERENCES users(id),
  url                  text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
  events               text[] NOT NULL CHECK (cardinality(events) > 0),
  enabled              boolean NOT NULL DEFAULT true,
  disabled_reason      text,
  secret               text NOT NULL CHECK (secret LIKE 'whsec\_%'),
  -- After a rotation the old secret signs beside the new one until previous_until.
  previous_secret      text,
  previous_until       timestamptz,
  -- Messages to this endpoint that ended failed since its last delivered one.
  failed_in_a_row      integer NOT NULL DEFAULT 0,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_user ON webhook_endpoints (user_id) WHERE enabled;

-- An order's own URL (POST /orders `webhook`); order retry copies it. stopped_at: a 410 answer.
CREATE TABLE order_webhooks (
  order_id   uuid PRIMARY KEY REFERENCES orders(id) ON DELETE CASCADE,
  url        text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
  events     text[] NOT NULL CHECK (cardinality(events) > 0),
  stopped_at timestamptz
);

-- One change's messages share an event_no (one per destination).
CREATE SEQUENCE webhook_event_no;

CREATE TABLE webhook_messages (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),  -- the webhook-id header
  event_no        bigint NOT NULL,
  user_id         bigint NOT NULL REFERENCES users(id),
  endpoint_id     bigint REFERENCES webhook_endpoints(id) ON DELETE CASCADE,  -- null: the order's URL
  order_id        uuid,                 -- order events
  subject_id      text NOT NULL,        -- the order, item, clone or gift code the event is about
  type            text NOT NULL CHECK (type IN ('order.updated', 'order.item.updated', 'voice_clone.updated',
                                                'gift_code.updated', 'preview.ready')),
  url             text NOT NULL,
  payload         text,                 -- the event's data (JSON text); null until rendered
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,          -- pending only
  lease_token     uuid,
  locked_until    timestamptz,
  finished_at     timestamptz,
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
  CHECK (endpoint_id IS NOT NULL OR order_id IS NOT NULL)
);
CREATE INDEX webhook_messages_due ON webhook_messages (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_messages_due_url ON webhook_messages (url, next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_messages_order ON webhook_messages (order_id, created_at) WHERE order_id IS NOT NULL;
CREATE INDEX webhook_messages_unrendered ON webhook_messages (order_id, subject_id, event_no)
  WHERE payload IS NULL AND order_id IS NOT NULL;
CREATE INDEX webhook_messages_endpoint ON webhook_messages (endpoint_id, created_at) WHERE endpoint_id IS NOT NULL;

CREATE TABLE webhook_attempts (
  message_id  uuid NOT NULL REFERENCES webhook_messages(id) ON DELETE CASCADE,
  attempt     integer NOT NULL CHECK (attempt >= 1),
  at          timestamptz NOT NULL,
  status_code integer,                  -- null: no HTTP answer
  error       text,                     -- null: an answer came
  duration_ms bigint NOT NULL CHECK (duration_ms >= 0),
  PRIMARY KEY (message_id, attempt)
);

-- The messages of one change: to the order's URL (order events only) and to every enabled
-- endpoint of the account that takes the event.
CREATE FUNCTION webhook_note(kind text, owner bigint, order_ref uuid, subject text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM order_webhooks w
                 WHERE order_ref IS NOT NULL AND w.order_id = order_ref AND w.stopped_at IS NULL
                   AND kind = ANY (w.events))
     AND NOT EXISTS (SELECT 1 FROM webhook_endpoints e
                     WHERE e.user_id = owner AND e.enabled AND kind = ANY (e.events)) THEN
    RETURN;
  END IF;
  n := nextval('webhook_event_no');
  INSERT INTO webhook_messages (event_no, user_id, endpoint_id, order_id, subject_id, type, url, next_attempt_at)
  SELECT n, owner, NULL, order_ref, subject, kind, w.url, clock_timestamp()
    FROM order_webhooks w
   WHERE order_ref IS NOT NULL AND w.order_id = order_ref AND w.stopped_at IS NULL AND kind = ANY (w.events)
  UNION ALL
  SELECT n, owner, e.id, order_ref, subject, kind, e.url, clock_timestamp()
    FROM webhook_endpoints e
   WHERE e.user_id = owner AND e.enabled AND kind = ANY (e.events);
  -- Delivered at commit, to every instance's deliverer; one per transaction however many.
  PERFORM pg_notify('mediagen_webhooks', '');
END $$;

CREATE FUNCTION webhook_note_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM webhook_note('order.updated', NEW.user_id, NEW.id, NEW.id::text);
  RETURN NULL;
END $$;

-- The item's order gives the account; it is read only when the order has no URL of its own
-- that takes item events (the usual case: nothing, two probes).
CREATE FUNCTION webhook_note_item() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  owner bigint;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM order_webhooks w WHERE w.order_id = NEW.order_id)
     AND NOT EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.enabled) THEN
    RETURN NULL;
  END IF;
  SELECT user_id INTO owner FROM orders WHERE id = NEW.order_id;
  PERFORM webhook_note('order.item.updated', owner, NEW.order_id, NEW.id::text);
  RETURN NULL;
END $$;

CREATE FUNCTION webhook_note_clone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM webhook_note('voice_clone.updated', NEW.user_id, NULL, NEW.id::text);
  RETURN NULL;
END $$;

CREATE FUNCTION webhook_note_gift_code() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM webhook_note('gift_code.updated', NEW.reseller_id, NULL, NEW.id::text);
  RETURN NULL;
END $$;

-- Order creation publishes no event (nobody can be watching yet); status changes do.
CREATE TRIGGER orders_webhook_note AFTER UPDATE OF status ON orders
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION webhook_note_order();
-- New retry and regeneration records are events; the chunks made with the order are not.
CREATE TRIGGER order_items_webhook_note_insert AFTER INSERT ON order_items
  FOR EACH ROW WHEN (NEW.item_type <> 'chunk') EXECUTE FUNCTION webhook_note_item();
CREATE TRIGGER order_items_webhook_note AFTER UPDATE OF status ON order_items
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION webhook_note_item();
CREATE TRIGGER voice_clones_webhook_note_insert AFTER INSERT ON voice_clones
  FOR EACH ROW EXECUTE FUNCTION webhook_note_clone();
CREATE TRIGGER voice_clones_webhook_note AFTER UPDATE OF status ON voice_clones
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION webhook_note_clone();
CREATE TRIGGER gift_codes_webhook_note_insert AFTER INSERT ON gift_codes
  FOR EACH ROW WHEN (NEW.reseller_id IS NOT NULL) EXECUTE FUNCTION webhook_note_gift_code();
CREATE TRIGGER gift_codes_webhook_note AFTER UPDATE OF status ON gift_codes
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status AND NEW.reseller_id IS NOT NULL)
  EXECUTE FUNCTION webhook_note_gift_code();
