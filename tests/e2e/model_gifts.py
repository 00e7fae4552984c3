"""Gift codes in the seeded model test (spec 2.7, 3.4, 4.8; CONTRACTS `admin giftcode redeem`): a
reseller of the seed's own issues, cancels and has codes redeemed into the model's account.

The model: an issue costs the nominal less the discount (rounded down) from the reseller balance,
402 insufficient_balance when it holds less; a cancel of an active code within the window (60
minutes of the server's clock after the issue) returns the cost, a redeemed or cancelled code is
409 gift_code_not_cancellable and a late one 409 gift_code_cancel_window_expired; a redeem puts
the nominal into the user's wallet once, and refuses a redeemed, a cancelled, or a not yet
activatable code."""

import json
from dataclasses import dataclass

from model_clock import KEY_LIFETIME_MINUTES, epoch_of, iso

WINDOW_MINUTES = 60
NOMINALS = (50, 100, 300, 1000, 4000)
REFUSALS = {"redeemed": "the gift code is already redeemed", "cancelled": "the gift code is cancelled",
            "early": "the gift code cannot be redeemed before its activatable_at"}


@dataclass
class Code:
    nominal: int
    cost: int
    issued_at: float
    activatable_at: int | None
    status: str = "active"
    uuid: str | None = None
    code: str | None = None


class GiftModel:
    def __init__(self, balance, discount_bps):
        self.balance = balance
        self.discount = discount_bps
        self.codes: list[Code] = []

    def issue(self, nominal, activatable_at, now):
        """(status, reason, the new code or None)."""
        cost = nominal - nominal * self.discount // 10000
        if cost > self.balance:
            return 402, "insufficient_balance", None
        self.balance -= cost
        self.codes.append(Code(nominal, cost, now, activatable_at))
        return 201, None, self.codes[-1]

    def cancel(self, code, now):
        if code.status != "active":
            return 409, "gift_code_not_cancellable"
        if now > code.issued_at + WINDOW_MINUTES * 60:
            return 409, "gift_code_cancel_window_expired"
        code.status = "cancelled"
        self.balance += code.cost
        return 200, None

    def redeem(self, code, now, account):
        """The refusal's name, or None when the nominal went into the account's wallet."""
        if code.status in ("redeemed", "cancelled"):
            return code.status
        if code.activatable_at is not None and now < code.activatable_at:
            return "early"
        code.status = "redeemed"
        account.wallet += code.nominal
        return None


class GiftOps:
    """Operations mixed into model_ops.Operations."""

    gifts = None
    reseller_id = None
    reseller_key = None

    def reseller(self):
        """The seed's reseller, made at its first gift operation (three CLI commands)."""
        if self.gifts is None:
            balance = self.rng.choice((500, 2000, 9000))
            discount = self.rng.choice((0, 500, 1000, 2500))
            seller = self.t.h.create_user()
            self.t.h.cli("admin", "reseller", "enable", "--user", seller["id"], "--balance", balance,
                         "--discount-bps", discount, "--cancel-window-minutes", WINDOW_MINUTES)
            self.reseller_key = self.t.h.create_key(seller["id"], scopes="reseller.read,reseller.write")["key"]
            self.reseller_id = seller["id"]
            self.gifts = GiftModel(balance, discount)
        return self.gifts

    def pick_code(self):
        codes = self.gifts.codes if self.gifts else []
        active = [c for c in codes if c.status == "active"]
        if not codes:
            return None
        return self.rng.choice(active if active and self.rng.random() < 0.75 else codes)

    def op_gift_issue(self, index):
        gifts = self.reseller()
        clock = self.t.clock
        nominal = self.rng.choice(NOMINALS)
        body = {"nominal": nominal}
        activatable = None
        if self.rng.random() < 0.3:
            activatable = int(clock.now()) + KEY_LIFETIME_MINUTES * 60
            body["activatable_at"] = iso(activatable)
        before = clock.now()
        status, reason, code = gifts.issue(nominal, activatable, before)
        r = self.send("POST", "/reseller/codes", body, key=self.reseller_key)
        after = clock.now()
        self.expect_answer(r, status, reason, "gift code issue")
        if code is not None:
            data = r.body["data"]
            code.uuid, code.code = data["uuid"], data["code"]
            self.t.assertEqual((data["status"], data["cost"], data["nominal"]),
                               ("active", str(code.cost), str(nominal)), "gift code issue")
            # The code's created_at is the server's clock: it moved with every jump.
            self.t.assertTrue(int(before) - 1 <= epoch_of(data["created_at"]) <= after + 1,
                              f"created_at {data['created_at']} outside {iso(before)}..{iso(after)}")
        return None, f"{nominal}{' activatable later' if activatable else ''} {status} {reason or ''}".rstrip()

    def op_gift_cancel(self, index):
        code = self.pick_code()
        if code is None:
            return None, "no code yet, so issue " + self.op_gift_issue(index)[1]
        status, reason = self.gifts.cancel(code, self.t.clock.now())
        r = self.send("POST", f"/reseller/codes/{code.uuid}/cancel", key=self.reseller_key)
        self.expect_answer(r, status, reason, "gift code cancel")
        if status == 200:
            self.t.assertEqual(r.body["data"]["status"], "cancelled")
        return None, f"{code.nominal} {status} {reason or ''}".rstrip()

    def op_gift_redeem(self, index):
        code = self.pick_code()
        if code is None:
            return None, "no code yet, so issue " + self.op_gift_issue(index)[1]
        refusal = self.gifts.redeem(code, self.t.clock.now(), self.model)
        p = self.t.h.run_cli("admin", "giftcode", "redeem", "--code", code.code, "--user", self.user_id,
                             extra_env=self.t.clock.env())
        if self.trace is not None:
            self.trace.answered(f"exit {p.returncode}")
        if refusal is None:
            self.t.assertEqual(p.returncode, 0, p.stderr)
            self.t.assertEqual(json.loads(p.stdout)["balance_minor"], self.model.wallet, "redeem: wallet")
        else:
            self.t.assertNotEqual(p.returncode, 0, f"redeem of a {refusal} code: {p.stdout}")
            self.t.assertIn(REFUSALS[refusal], p.stderr)
        return None, f"{code.nominal} {'refused: ' + refusal if refusal else 'into the wallet'}"

    def expect_answer(self, r, status, reason, what):
        self.t.assertIsNotNone(r, f"{what}: written behind a 503, its answer unknown")
        if self.trace is not None:
            self.trace.answered(r.status)
        got = (r.status, r.body.get("reason") if isinstance(r.body, dict) and reason else None)
        self.t.assertEqual(got, (status, reason), f"{what}: answer differs from the model's: {r}")

    def gift_view(self):
        if self.gifts is None:
            return {}
        return {"reseller": self.gifts.balance, "codes": {c.uuid: c.status for c in self.gifts.codes if c.uuid}}
