"""Fixtures shared by the order end-to-end tests: accounts, templates, orders, ledger checks."""

import os
import re
import time

from programs import program

INVARIANTS_SQL = os.path.join(os.path.dirname(__file__), "..", "integration", "invariants.sql")


def ledger_snapshot(h):
    """What a refusal must leave untouched: ledger rows, balances, orders and items."""
    return h.psql_value(
        "SELECT (SELECT count(*) FROM ledger_entries) || '|' || (SELECT count(*) FROM ledger_txns) || '|' ||"
        " (SELECT coalesce(sum(balance), 0) FROM ledger_accounts WHERE kind IN ('wallet', 'quota')) || '|' ||"
        " (SELECT count(*) FROM orders) || '|' || (SELECT count(*) FROM order_items)")


def redis_snapshot(h):
    """Every Redis key of the suite with its value, except the request-rate windows (`rl:`), which
    count every request by design, refused or not."""
    from realtime_support import redis_command
    keys = sorted(k for k in redis_command(h.redis_url, "KEYS", h.redis_prefix + "*")
                  if not k.startswith((h.redis_prefix + "rl:").encode()))
    return [(k, redis_command(h.redis_url, "DUMP", k)) for k in keys]


def state_snapshot(h):
    """What a refusal of order creation must leave untouched: the ledger, orders and Redis."""
    return ledger_snapshot(h), redis_snapshot(h)


def invariant_checks():
    """(name, sql) of every check in the invariants file; each must return no rows."""
    with open(INVARIANTS_SQL, encoding="utf-8") as f:
        text = f.read()
    checks = []
    name, lines = None, []
    for line in text.splitlines():
        m = re.match(r"^-- (I\d+\w*\b.*)$", line)
        if m:
            if name and "".join(lines).strip():
                checks.append((name, "\n".join(lines)))
            name, lines = m.group(1), []
        elif name is not None and not line.startswith("--"):
            lines.append(line)
    if name and "".join(lines).strip():
        checks.append((name, "\n".join(lines)))
    return checks


class OrderFixtures:
    """Mixin for E2ETestCase classes that make orders."""

    _accounts = 0

    @classmethod
    def seed(cls):
        # Describing every catalogue voice for voice search takes minutes in a sanitizer build;
        # only the voice search tests pay for (a part of) it.
        cls.h.cli("admin", "seed-demo", "--skip-voice-features")

    def account(self, balance=0, preset="full"):
        type(self)._accounts += 1
        n = type(self)._accounts
        user = self.h.create_user(email=f"{type(self).__name__.lower()}-{n}-{time.time_ns()}@example.com",
                                  balance=balance)
        key = self.h.create_key(user["id"], preset=preset)["key"]
        return user, key

    def template(self, key, service="provider_b", model=None, voice=None):
        model = model or {"provider_a": "a-v3", "provider_b": "b-standard", "provider_c": "c-one",
                          "provider_d": "d-base"}[service]
        if voice is None:
            if service == "provider_a":
                listing = self.server.api("GET", "/voices/provider_a/library?page_size=50", key).body["data"]
            else:
                listing = self.server.api("GET", f"/voices/{service}?per_page=100&language=en", key).body["data"]
            voices = listing.get("voices") or listing.get("items")
            english = [v for v in voices if v.get("language") == "en"] or voices
            voice = english[0]["voice_id"]
        body = {"service_key": service, "name": f"{service} order",
                "config": {"tts_settings": {"mode": "mode_v1", "model_id": model, "voice_id": voice}}}
        r = self.server.api("POST", "/templates", key, body=body)
        assert r.status in (200, 201), r
        return r.body["data"]["id"]

    def create(self, key, template, text, **extra):
        body = {"template_id": template, "input_text": text}
        body.update(extra)
        return self.server.api("POST", "/orders", key, body=body)

    def price_of(self, key, template, text):
        r = self.server.api("POST", "/orders/chunks/preview", key, body={"template_id": template, "input_text": text})
        assert r.status == 200, r
        return int(r.body["data"]["summary"]["estimated_price"]["amount"])

    def balance(self, user_id):
        return int(self.h.psql_value(
            f"SELECT coalesce((SELECT balance FROM ledger_accounts WHERE kind = 'wallet' AND user_id = {user_id}), 0)"))

    def quota(self, user_id):
        return int(self.h.psql_value(
            f"SELECT coalesce((SELECT balance FROM ledger_accounts WHERE kind = 'quota' AND user_id = {user_id}), 0)"))

    def set_quota(self, user_id, tokens):
        """Subscribes the user to a plan granting exactly `tokens` (through the ledger)."""
        code = f"q{tokens}"
        # A new plan entitles every service: its quota pays for any order.
        self.h.cli("admin", "plan", "upsert", "--code", code, "--name", code, "--tokens", str(tokens))
        self.h.cli("admin", "subscription", "grant", "--user", str(user_id), "--plan", code)

    def assertInvariants(self):
        failures = []
        for name, sql in invariant_checks():
            rows = self.h.psql(sql).strip()
            if rows:
                failures.append(f"{name}: {rows[:500]}")
        self.assertEqual(failures, [], "ledger invariants violated")

    def wait_order(self, key, order_id, statuses, timeout=60.0):
        deadline = time.time() + timeout
        last = None
        while time.time() < deadline:
            r = self.server.api("GET", f"/orders/{order_id}", key)
            assert r.status == 200, r
            last = r.body["data"]
            if last["status"] in statuses:
                return last
            time.sleep(0.1)
        raise AssertionError(f"order {order_id} did not reach {statuses}: {last}")


# --------------------------------------------------------------------------- order outcome helpers

TERMINAL_ORDER_STATUSES = ("completed", "result_delivered", "failed", "compensated", "cancelled")


def sql_ids(ids):
    """A SQL list of uuid literals: ('a'::uuid, 'b'::uuid)."""
    ids = list(ids)
    for i in ids:
        assert re.fullmatch(r"[0-9a-f-]{36}", i), i
    return "(" + ", ".join(f"'{i}'::uuid" for i in ids) + ")"


def order_statuses(h, order_ids):
    """{order id: status} straight from the database."""
    return dict(h.psql_rows(f"SELECT id, status FROM orders WHERE id IN {sql_ids(order_ids)}"))


def wait_orders_terminal(h, order_ids, timeout=60.0):
    """Polls the database until every order is terminal; returns {order id: status}."""
    deadline = time.monotonic() + timeout
    while True:
        statuses = order_statuses(h, order_ids)
        if len(statuses) == len(order_ids) and all(s in TERMINAL_ORDER_STATUSES for s in statuses.values()):
            return statuses
        if time.monotonic() >= deadline:
            raise AssertionError(f"orders not terminal within {timeout}s: {statuses}")
        time.sleep(0.1)


def charges_by_item(h, order_ids):
    """{item id: number of chunk_charge transactions} for every record of these orders."""
    rows = h.psql_rows(
        "SELECT i.id, count(t.id) FROM order_items i"
        " LEFT JOIN ledger_txns t ON t.kind = 'chunk_charge' AND t.reference = i.id::text"
        f" WHERE i.order_id IN {sql_ids(order_ids)} GROUP BY i.id")
    return {item: int(n) for item, n in rows}


def escrow_balances(h, order_id):
    """{account kind: balance} of the order's escrow accounts (escrow, quota_escrow)."""
    rows = h.psql_rows(f"SELECT kind, balance FROM ledger_accounts WHERE order_id = '{order_id}'::uuid"
                       " AND kind IN ('escrow', 'quota_escrow')")
    return {kind: int(balance) for kind, balance in rows}


def download(server, key, path):
    """The bytes of a stored file through POST /storage/url and a GET of the signed link
    (on this server's own port: the link names the configured public URL)."""
    import urllib.parse
    r = server.api("POST", "/storage/url", key, body={"path": path, "download": True})
    assert r.status == 200, r
    link = urllib.parse.urlsplit(r.body["data"]["url"])
    got = server.request("GET", link.path + ("?" + link.query if link.query else ""), timeout=30)
    assert got.status == 200, got
    return got.raw


def decoded_duration_ms(mp3):
    """Length of an MP3 once decoded by mpg123 (an independent decoder), in milliseconds."""
    import subprocess
    import tempfile
    import wave
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "in.mp3"), os.path.join(tmp, "out.wav")
        with open(src, "wb") as f:
            f.write(mp3)
        p = subprocess.run([program("mpg123"), "-q", "-w", out, src], capture_output=True, text=True, timeout=60)
        assert p.returncode == 0 and os.path.exists(out), f"mpg123 failed ({p.returncode}): {p.stderr}"
        with wave.open(out, "rb") as w:
            return w.getnframes() * 1000.0 / w.getframerate()
