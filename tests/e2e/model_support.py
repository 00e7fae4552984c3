"""A reference model of one account's orders and money for the seeded model test (test_model.py).

Plain Python, written from the spec (1 billing, 2.3, 2.4, 3.1, 3.2, 4.2, 7.1), not from the
server: it predicts the answer of each operation and the state once the work has settled. The
engine fault marker fails a chunk (`failed`), a banned word flags it (`policy_flagged`); any
other text completes. Texts hold no brackets, so a text's tokens are its length.

Money (spec 1, 4.2): an order locks its price quota first, then money at the model's price per
1000 tokens, rounded up over the running pay-as-you-go total; a completed position is charged
from that lock; cancel and a failed order return the locks of unfinished positions. A retry
keeps its position's lock and pays only text beyond the paid length (quota first, then money,
returned if the retry fails); a regeneration pays its whole text the same way."""

from __future__ import annotations

from dataclasses import dataclass, field

MARKER = "zqxfail"
BANNED = "forbiddenword"
MAX_ATTEMPTS = 5
CANCELLABLE = ("created", "pending", "partially_completed")
FINISHED = ("completed", "result_delivered")
LIVE = ("pending", "processing")


def money_for_tokens(tokens: int, price_per_1k: int) -> int:
    if tokens <= 0 or price_per_1k <= 0:
        return 0
    return -(-tokens * price_per_1k // 1000)


def outcome(text: str) -> str:
    if MARKER in text:
        return "failed"
    if BANNED in text:
        return "policy_flagged"
    return "completed"


@dataclass
class Record:
    """One item record: an original (`chunk`), a `retry` or a `regeneration`."""
    index: int
    kind: str
    attempt: int
    text: str
    status: str = "pending"
    quota: int = 0   # what this record locked on top of its position's base (surcharge or regeneration)
    money: int = 0
    id: str | None = None


@dataclass
class Position:
    base_quota: int
    base_money: int
    tokens: int
    records: list = field(default_factory=list)

    def last_attempt(self) -> Record:
        return [r for r in self.records if r.kind != "regeneration"][-1]

    def newest_completed(self) -> Record | None:
        done = [r for r in self.records if r.status == "completed"]
        return done[-1] if done else None

    def completed(self) -> bool:
        return self.last_attempt().status == "completed"


@dataclass
class Order:
    paragraphs: list
    status: str = "created"
    positions: list = field(default_factory=list)
    id: str | None = None

    def records(self):
        return [r for p in self.positions for r in p.records]


@dataclass
class Answer:
    """What the model expects an operation to answer: status code and reason (None on success)."""
    status: int
    reason: str | None = None
    records: list = field(default_factory=list)  # records the operation created, to be given ids
    order: Order | None = None                    # the order it created


class AccountModel:
    def __init__(self, wallet: int, quota: int, price_per_1k: int):
        self.wallet = wallet
        self.quota = quota
        self.price = price_per_1k
        self.orders: list[Order] = []

    # -- money

    def _split(self, tokens: int) -> tuple[int, int]:
        """(quota tokens, money) for a lump of tokens paid quota first."""
        from_quota = min(tokens, self.quota)
        return from_quota, money_for_tokens(tokens - from_quota, self.price)

    def _take(self, quota: int, money: int):
        self.quota -= quota
        self.wallet -= money

    def _give(self, quota: int, money: int):
        self.quota += quota
        self.wallet += money

    # -- operations: each returns the expected Answer and applies the change it predicts

    def create(self, paragraphs) -> Answer:
        """POST /orders (and the new order of POST /orders/{id}/retry)."""
        quota_left, payg, money_so_far = self.quota, 0, 0
        positions = []
        for text in paragraphs:
            tokens = len(text)
            q = min(tokens, quota_left)
            quota_left -= q
            payg += tokens - q
            total = money_for_tokens(payg, self.price)
            positions.append(Position(base_quota=q, base_money=total - money_so_far, tokens=tokens))
            money_so_far = total
        if money_so_far > self.wallet:
            return Answer(402, "insufficient_balance")
        self._take(self.quota - quota_left, money_so_far)
        order = Order(paragraphs=list(paragraphs), positions=positions)
        for i, (p, text) in enumerate(zip(positions, paragraphs)):
            p.records.append(Record(index=i, kind="chunk", attempt=1, text=text))
        self.orders.append(order)
        return Answer(201, order=order, records=order.records())

    def cancel(self, order: Order) -> Answer:
        if order.status not in CANCELLABLE:
            return Answer(400)
        for p in order.positions:
            for r in p.records:
                if r.status in LIVE:
                    r.status = "failed"
            if not p.completed():
                self._give(p.base_quota, p.base_money)
        order.status = "cancelled"
        return Answer(200)

    def retry_item(self, order: Order, record: Record, text: str | None, free: int, max_billable: int) -> Answer:
        """POST /orders/{o}/items/{i}/retry; `free` and `max_billable` as the item's text endpoint tells."""
        if order.status != "partially_completed":
            return Answer(422, "invalid_order_status")
        position = order.positions[record.index]
        if record.status not in ("failed", "policy_flagged") or position.last_attempt() is not record:
            return Answer(422, "invalid_status")
        if record.attempt >= MAX_ATTEMPTS:
            return Answer(422, "max_attempts_reached")
        new_text = record.text if text is None else text
        if len(new_text) > max_billable:
            return Answer(422, "text_over_capacity")
        if BANNED in new_text:
            return Answer(422, "content_blocked")
        quota, money = self._split(max(0, len(new_text) - free))
        if money > self.wallet:
            return Answer(402, "insufficient_balance")
        self._take(quota, money)
        new = Record(index=record.index, kind="retry", attempt=record.attempt + 1, text=new_text,
                     quota=quota, money=money)
        position.records.append(new)
        return Answer(201, records=[new])

    def retry_failed(self, order: Order) -> Answer:
        if order.status != "partially_completed":
            return Answer(422, "invalid_order_status")
        created = []
        for p in order.positions:
            last = p.last_attempt()
            if last.status == "failed" and last.attempt < MAX_ATTEMPTS:
                new = Record(index=last.index, kind="retry", attempt=last.attempt + 1, text=last.text)
                p.records.append(new)
                created.append(new)
        if not created:
            return Answer(422, "nothing_to_retry")
        return Answer(201, records=created)

    def regenerate(self, order: Order, record: Record, text: str) -> Answer:
        if order.status not in FINISHED + ("partially_completed",):
            return Answer(422, "invalid_order_status")
        position = order.positions[record.index]
        if record.status != "completed" or position.newest_completed() is not record:
            return Answer(422, "invalid_status")
        if len(text) > position.tokens:
            return Answer(422, "text_over_capacity")
        if BANNED in text:
            return Answer(422, "content_blocked")
        quota, money = self._split(len(text))
        if money > self.wallet:
            return Answer(402, "insufficient_balance")
        self._take(quota, money)
        attempt = 1 + sum(1 for r in position.records if r.kind == "regeneration")
        new = Record(index=record.index, kind="regeneration", attempt=attempt, text=text, quota=quota, money=money)
        position.records.append(new)
        return Answer(201, records=[new])

    def retry_order(self, order: Order) -> Answer:
        if order.status not in FINISHED:
            return Answer(422, "invalid_order_status")
        return self.create(order.paragraphs)

    # -- the work, done

    def settle(self):
        """Every pending record runs to its outcome; orders move as spec 3.1 says."""
        for order in self.orders:
            pending = [r for r in order.records() if r.status in LIVE]
            if not pending:
                continue
            regenerated = False
            for r in pending:
                r.status = outcome(r.text)
                if r.status != "completed":
                    self._give(r.quota, r.money)  # a failed surcharge or regeneration comes back
                elif r.kind == "regeneration":
                    regenerated = True
            self._settle_order(order, regenerated)

    def _settle_order(self, order: Order, regenerated: bool):
        if order.status in FINISHED:
            if regenerated:
                order.status = "completed"  # stitched again with the new take
            return
        done = sum(1 for p in order.positions if p.completed())
        if done == len(order.positions):
            order.status = "completed"
        elif done > 0:
            order.status = "partially_completed"
        else:
            order.status = "failed"
            for p in order.positions:
                self._give(p.base_quota, p.base_money)

    # -- what to compare

    def item_view(self):
        """{item id: status} over every record the model knows."""
        return {r.id: r.status for o in self.orders for r in o.records()}

    def order_view(self):
        return {o.id: o.status for o in self.orders}
