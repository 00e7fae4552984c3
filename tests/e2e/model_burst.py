"""Bursts of the seeded model test (test_model.py): 2 to 4 clients send at the same moment, on the
one account, creates of one same text and cancels or retry-failed of distinct settled orders.

The model cannot know the order the server serialised them in, so it predicts the answers of
every order (each permutation, on a copy of the model) and accepts the burst when the answers
seen are those of one of them; that copy becomes the model. So, for k creates against a balance
covering j of them, exactly min(k, j) are 201 with the prices the serial order implies and the
rest 402, unless a cancel in the same burst returned money first. A burst replays from its seed as
far as the server serialises it the same way; the trace names the serial order found.

The creates' texts all complete: the work of an order made early in the burst may finish before
a later request arrives, and only a failed order's returned locks would change what that request
can afford (a completed one is charged from its own locks)."""

import copy
import itertools
import threading
import time
from concurrent.futures import ThreadPoolExecutor

RESEND_SECONDS = 30.0


class BurstOps:
    """Operations mixed into model_ops.Operations."""

    def op_burst(self, index):
        settled = list(range(len(self.model.orders)))
        self.rng.shuffle(settled)
        size = self.rng.randint(2, 4)
        # Texts that complete: a failed order returns its locks while the burst is still being
        # sent, at a moment no model of the requests alone could know.
        paragraphs = [self.text(self.rng.randint(30, 160)) for _ in range(self.rng.randint(1, 4))]
        parts = []  # (what, position of the order in model.orders or None)
        for n in range(size):
            if n > 0 and settled and self.rng.random() < 0.4:
                parts.append((self.rng.choice(("cancel", "retry_failed")), settled.pop()))
            else:
                parts.append(("create", None))
        seen = self.send_at_once(parts, paragraphs, index)
        predictions = []
        for order in itertools.permutations(range(size)):
            model = copy.deepcopy(self.model)
            answers, created = self.predict(model, parts, order, paragraphs)
            predictions.append(answers)
            if answers == [what for what, _ in seen]:
                self.model = model
                for n, data in enumerate(data for _, data in seen):
                    if created[n] is not None:
                        created[n].id = data["id"]
                labels = "+".join(what for what, _ in parts)
                return None, f"{labels} at once -> as if in the order {list(order)}"
        self.t.fail(f"burst {parts}: answers {[w for w, _ in seen]} are those of no serial order; "
                    f"the model's: {predictions}")

    def predict(self, model, parts, order, paragraphs):
        """Answers (in the parts' order) if the server ran the parts in `order`, and the orders made."""
        answers, created = [None] * len(parts), [None] * len(parts)
        for n in order:
            what, position = parts[n]
            if what == "create":
                answer = model.create(paragraphs)
                created[n] = answer.order
                price = None
                if answer.order is not None:
                    price = (sum(p.base_money for p in answer.order.positions),
                             sum(p.base_quota for p in answer.order.positions))
                answers[n] = (answer.status, answer.reason, price)
            elif what == "cancel":
                answers[n] = (model.cancel(model.orders[position]).status, None, None)
            else:
                answer = model.retry_failed(model.orders[position])
                answers[n] = (answer.status, answer.reason, len(answer.records) if answer.status == 201 else None)
        return answers, created

    def send_at_once(self, parts, paragraphs, index):
        """[(answer as the model states it, data)] per part, the requests released together."""
        start = threading.Barrier(len(parts))
        body = self.order_body(paragraphs)

        def one(n):
            what, position = parts[n]
            if what == "create":
                method, path, payload, key = "POST", "/orders", body, self.idempotency(f"{index}.{n}")
            else:
                order = self.model.orders[position]
                suffix = "cancel" if what == "cancel" else "items/retry-failed"
                method, path, payload, key = "POST", f"/orders/{order.id}/{suffix}", None, None
            start.wait(30)
            deadline = time.monotonic() + RESEND_SECONDS
            while True:
                r = self.t.server.api(method, path, self.key, body=payload,
                                      headers={"Idempotency-Key": key} if key else None)
                # Only a create carries an Idempotency-Key, so only it is sent again after a 503.
                if r.status != 503 or key is None or time.monotonic() > deadline:
                    return r
                time.sleep(0.2)

        with ThreadPoolExecutor(max_workers=len(parts)) as pool:
            answers = list(pool.map(one, range(len(parts))))
        seen = []
        for (what, _), r in zip(parts, answers):
            if self.trace is not None:
                self.trace.answered(r.status)
            data = r.body.get("data") if isinstance(r.body, dict) else None
            reason = r.body.get("reason") if isinstance(r.body, dict) and r.status >= 400 else None
            if what == "create":
                price = (data["price_units"], data["tokens_from_quota"]) if r.status == 201 else None
                seen.append(((r.status, reason, price), data))
            elif what == "cancel":
                seen.append(((r.status, None, None), data))
            else:
                seen.append(((r.status, reason, data["queued"] if r.status == 201 else None), data))
        return seen
