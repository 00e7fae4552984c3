"""The operations of the seeded model test (test_model.py): how each is drawn from the seed, sent to
the server, and its answer compared with what the model (model_support.py) predicts.

Draws depend only on the seed and the model's state (and the item's text limits the server
reports), so a seed replays the same operations. Operations are sent with the work settled, so
nothing races: a cancel meets an order whose records have all finished, and a crash happens
right after a create, with its chunks in flight. The exceptions race on purpose and are modelled
as such: a burst (model_burst.py) sends several requests at once."""

import time

from chaos_support import size
from model_burst import BurstOps
from model_clock import ClockOps
from model_clones import CloneOps
from model_gifts import GiftOps
from model_hooks import HookOps
from model_support import BANNED, FINISHED, MARKER
from orders_support import ledger_snapshot

WEIGHTS = {"create": 4, "burst": 2, "cancel": 3, "retry_item": 5, "retry_failed": 3, "regenerate": 4,
           "retry_order": 2, "kill9": 1, "pg_restart": 1, "redis_outage": 1, "cancel_created": 0.5,
           # A redeem and a seed's first gift operation run CLI commands (about 0.5 s each): rarer.
           "gift_issue": 1.0, "gift_cancel": 0.6, "gift_redeem": 0.5, "clock_jump": 0.8,
           # A clone keeps the ASan server busy 10 to 20 s: at full size only (scripts/chaos).
           "clone": size(0, 0.3)}
WORDS = ("river", "garden", "lantern", "harbour", "meadow", "violin", "compass", "orchard", "quarry", "signal",
         "amber", "willow", "copper", "thistle", "beacon", "saddle")
PARAGRAPH = {"generation_mode": "paragraph"}
REPLAY_SECONDS = 30.0


class Operations(GiftOps, ClockOps, BurstOps, HookOps, CloneOps):
    def __init__(self, test, rng, model, key, user_id, seed):
        self.t = test
        self.rng = rng
        self.model = model
        self.key = key
        self.user_id = user_id
        self.seed = seed
        self.template = None
        self.on_503 = None  # run once at the first 503 of a request (ends an outage)
        self.trace = None   # model_trace.Trace: every answer is recorded there

    def draw(self):
        return self.rng.choices(list(WEIGHTS), weights=list(WEIGHTS.values()))[0]

    def run(self, kind, index):
        """Sends one operation; returns (the order it touched or None, a short description)."""
        return getattr(self, "op_" + kind)(index)

    # -- texts

    def text(self, length, kind="ok"):
        """About `length` characters of words; a `fail` text carries the engine fault marker, a
        `flag` text the banned word."""
        words = {"ok": [], "fail": [MARKER], "flag": [BANNED]}[kind]
        while len(" ".join(words)) < length:
            words.append(self.rng.choice(WORDS))
        return " ".join(words)[:max(length, len(words[0]))].rstrip()

    def paragraphs(self):
        out = []
        for _ in range(self.rng.randint(1, 4)):
            roll = self.rng.random()
            kind = "ok" if roll < 0.6 else "fail" if roll < 0.85 else "flag"
            out.append(self.text(self.rng.randint(30, 160), kind))
        return out

    # -- the wire

    def send(self, method, path, body=None, idempotency=None, key=None, headers=None):
        """The answer to a request. A spec-shaped 503 (store outage) is sent again until another
        answer comes: the same Idempotency-Key replays a write; without one, the request is sent
        again only when nothing changed, and None means the write happened behind the 503."""
        headers = {**(headers or {}), **({"Idempotency-Key": idempotency} if idempotency else {})} or None
        before = None if idempotency else ledger_snapshot(self.t.db)
        deadline = time.monotonic() + REPLAY_SECONDS
        while True:
            r = self.t.server.api(method, path, key or self.key, body=body, headers=headers)
            if r.status != 503:
                return r
            self.t.assertIsInstance(r.body, dict, r)
            self.t.assertIs(r.body.get("success"), False, r)
            self.t.assertIsInstance(r.body.get("message"), str, r)
            if self.on_503:
                hook, self.on_503 = self.on_503, None
                hook()
            if before is not None and ledger_snapshot(self.t.db) != before:
                return None
            self.t.assertLess(time.monotonic(), deadline, f"{method} {path}: still 503 after {REPLAY_SECONDS}s: {r}")
            time.sleep(0.2)

    def get(self, path, key=None):
        """A read; right after a PostgreSQL crash-restart each of the server's broken pooled
        connections may answer one spec-shaped 503 before it is replaced, so a 503 is read again."""
        deadline = time.monotonic() + REPLAY_SECONDS
        while True:
            r = self.t.server.api("GET", path, key or self.key)
            if r.status != 503 or time.monotonic() >= deadline:
                return r
            self.t.assertIs(r.body.get("success"), False, r)
            time.sleep(0.1)

    def order_body(self, paragraphs):
        return {"template_id": self.template, "input_text": "\n\n".join(paragraphs), "config_override": PARAGRAPH,
                "webhook": self.hook_url()}

    def idempotency(self, index):
        return f"model-{self.seed}-{index}-{time.time_ns()}"

    def expect(self, r, answer, what):
        """The answer matches the model's: status, and reason where the model names one."""
        if self.trace is not None:
            self.trace.answered("503+" if r is None else r.status)
        if r is None:
            return None  # committed behind a 503: the state comparison decides
        reason = r.body.get("reason") if isinstance(r.body, dict) else None
        got = (r.status, reason if answer.reason else None)
        self.t.assertEqual(got, (answer.status, answer.reason), f"{what}: answer differs from the model's: {r}")
        return r.body.get("data") if r.status in (200, 201) else None

    def record_id(self, order, record):
        return self.t.db.value(
            f"SELECT id FROM order_items WHERE order_id = '{order.id}' AND chunk_index = {record.index}"
            f" AND item_type = '{record.kind}' AND attempt_number = {record.attempt}")

    def pick_order(self, prefer):
        if not self.model.orders:
            return None
        preferred = [o for o in self.model.orders if o.status in prefer]
        pool = preferred if preferred and self.rng.random() < 0.85 else self.model.orders
        return self.rng.choice(pool)

    # -- operations

    def fallback(self, index):
        """An operation on an order when the account has none yet: a create instead."""
        order, detail = self.op_create(index)
        return order, "no order yet, so create " + detail

    def op_create(self, index):
        paragraphs = self.paragraphs()
        answer = self.model.create(paragraphs)
        r = self.send("POST", "/orders", self.order_body(paragraphs), self.idempotency(index))
        data = self.expect(r, answer, "create")
        if answer.order is None:
            return None, f"{len(paragraphs)}p {r.status}"
        answer.order.id = data["id"]
        money = sum(p.base_money for p in answer.order.positions)
        quota = sum(p.base_quota for p in answer.order.positions)
        self.t.assertEqual((data["price_units"], data["tokens_from_quota"]), (money, quota), "create: price")
        return answer.order, f"{len(paragraphs)}p {r.status}"

    def op_cancel(self, index):
        order = self.pick_order(("partially_completed",))
        if order is None:
            return self.fallback(index)
        answer = self.model.cancel(order)
        r = self.send("POST", f"/orders/{order.id}/cancel")
        self.expect(r, answer, "cancel")
        return order, f"{answer.status}"

    def op_retry_item(self, index):
        order = self.pick_order(("partially_completed",))
        if order is None:
            return self.fallback(index)
        lasts = [p.last_attempt() for p in order.positions]
        failed = [x for x in lasts if x.status in ("failed", "policy_flagged")]
        record = self.rng.choice(failed if failed and self.rng.random() < 0.8 else order.records())
        item_id = self.record_id(order, record)
        info = self.t.assertSuccess(self.get(f"/orders/{order.id}/items/{item_id}/text"))
        free, most = info["free_length"], info["max_billable_length"]
        position = order.positions[record.index]
        self.t.assertEqual(free, position.tokens, "free_length is the position's paid length")
        mode = self.rng.choices(("same", "ok", "surcharge", "over", "fail", "flag"), weights=(3, 3, 2, 1, 1, 1))[0]
        short = self.rng.randint(min(10, free), free)
        text = {"same": None, "ok": self.text(short), "fail": self.text(short, "fail"),
                "flag": self.text(short, "flag"), "over": self.text(most + self.rng.randint(1, 20)),
                "surcharge": self.text(self.rng.randint(min(free + 1, most), most))}[mode]
        answer = self.model.retry_item(order, record, text, free, most)
        r = self.send("POST", f"/orders/{order.id}/items/{item_id}/retry", {} if text is None else {"text": text},
                      self.idempotency(index))
        self.expect(r, answer, "item retry")
        return order, f"#{record.index}.{record.kind}{record.attempt} {mode} {answer.status}"

    def op_retry_failed(self, index):
        order = self.pick_order(("partially_completed",))
        if order is None:
            return self.fallback(index)
        answer = self.model.retry_failed(order)
        r = self.send("POST", f"/orders/{order.id}/items/retry-failed")
        data = self.expect(r, answer, "retry-failed")
        if data is not None:
            self.t.assertEqual(data["queued"], len(answer.records), "retry-failed: queued")
        return order, f"{answer.status}"

    def op_regenerate(self, index):
        order = self.pick_order(FINISHED + ("partially_completed",))
        if order is None:
            return self.fallback(index)
        newest = [p.newest_completed() for p in order.positions if p.newest_completed()]
        record = self.rng.choice(newest if newest and self.rng.random() < 0.75 else order.records())
        tokens = order.positions[record.index].tokens
        mode = self.rng.choices(("ok", "over", "fail", "flag"), weights=(5, 1, 1, 1))[0]
        short = self.rng.randint(min(10, tokens), tokens)
        text = self.text(tokens + self.rng.randint(1, 10)) if mode == "over" else self.text(short, mode)
        answer = self.model.regenerate(order, record, text)
        item_id = self.record_id(order, record)
        r = self.send("POST", f"/orders/{order.id}/items/{item_id}/regenerate", {"text": text})
        self.expect(r, answer, "regenerate")
        return order, f"#{record.index}.{record.kind}{record.attempt} {mode} {answer.status}"

    def op_retry_order(self, index):
        order = self.pick_order(FINISHED)
        if order is None:
            return self.fallback(index)
        answer = self.model.retry_order(order)
        r = self.send("POST", f"/orders/{order.id}/retry", {}, self.idempotency(index))
        data = self.expect(r, answer, "order retry")
        if answer.order is not None:
            answer.order.id = data["id"]
            self.t.assertEqual(data["retry_of"], order.id, "order retry: retry_of")
            return answer.order, f"{answer.status}"
        return order, f"{answer.status}"

    def op_cancel_created(self, index):
        """Cancel of an order nothing has claimed yet: created while the workers are off (a server
        without workers takes the place of the killed one), then cancelled; then workers again."""
        self.t.kill9(workers=0)
        try:
            order, detail = self.op_create(index)
            if order is not None:
                answer = self.model.cancel(order)
                self.expect(self.send("POST", f"/orders/{order.id}/cancel"), answer, "cancel of a created order")
                detail += f", cancel {answer.status}"
        finally:
            self.t.kill9()
        return order, detail

    def op_kill9(self, index):
        order, detail = self.op_create(index)
        self.t.kill9()
        return order, detail + " then kill -9"

    def op_pg_restart(self, index):
        order, detail = self.op_create(index)
        self.t.pg.restart_immediate()
        seconds = self.wait_available()
        self.t.recoveries.append(seconds)
        return order, detail + f" then PostgreSQL crash-restart (503s for {seconds:.1f} s)"

    def wait_available(self):
        """Seconds until a read answers 200 again: right after a crash-restart the server's pooled
        connections are broken, and until it has replaced them an answer may be a 503."""
        started = time.monotonic()
        while True:
            r = self.t.server.api("GET", "/orders?per_page=1", self.key)
            if r.status == 200:
                return time.monotonic() - started
            self.t.assertEqual(r.status, 503, r)
            self.t.assertLess(time.monotonic() - started, REPLAY_SECONDS, f"still 503 after {REPLAY_SECONDS}s: {r}")
            time.sleep(0.1)

    def make_template(self):
        listing = self.t.assertSuccess(self.get("/voices/provider_b?per_page=100&language=en"))
        voice = (listing.get("voices") or listing.get("items"))[0]["voice_id"]
        body = {"service_key": "provider_b", "name": "model order",
                "config": {"tts_settings": {"mode": "mode_v1", "model_id": "b-standard", "voice_id": voice}}}
        self.template = self.t.assertSuccess(self.send("POST", "/templates", body), 201)["id"]

    def op_redis_outage(self, index):
        self.t.redis.stop()
        self.on_503 = self.t.redis.start
        try:
            order, detail = self.op_create(index)
        finally:
            if self.on_503:
                self.on_503 = None
                self.t.redis.start()
                detail_suffix = " (answered during the outage)"
            else:
                detail_suffix = " (503 during the outage, replayed)"
        return order, detail + detail_suffix
