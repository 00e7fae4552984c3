"""T6: every documented refusal of every route that can move money (route_matrix_rows.REFUSALS,
checked against openapi/openapi.yaml by route_matrix.lint()).

Each case sets its scene (which may itself create orders or spend money), then sends the refused
request twice: the documented status and reason both times, and between the scene and the end
nothing moved: no row of any table (ledger, balances, orders, items, clones, codes, keys' token
pools), no Redis key but the request-rate windows (quota and token counters, ban counters).

Orders are made for real first, on a server with workers and a content policy (a completed order,
and a partially completed one with a policy-flagged chunk); the cases then run on a server of the
same database without workers, so what a scene creates stays active (a taken concurrency slot, a
pending retry) and nothing moves under the snapshots. The one case that needs workers to show
(a speech call refused after its first chunk) is test_route_matrix_speech.py's.
"""

import secrets
import time
import unittest

from compat_support import bearer
from elevenlabs_support import xi
from harness import E2ETestCase, avoid_window_edge
from matrix_support import (POLICY_TERM, AccountFixtures, call, db_fingerprint, multipart, redis_state,
                            redis_unchanged, table_diff, tone_wav)
from orders_support import OrderFixtures, ledger_snapshot
from route_matrix import Charging, operations
from route_matrix_rows import PERMISSIONS, REFUSALS

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde"
PARAGRAPH = {"generation_mode": "paragraph"}
PARTIAL_TEXT = f"A fine first paragraph.\n\nThe second one says {POLICY_TERM} aloud."
SPEECH = {"model": "provider_b/b-standard", "input": "Refused speech."}
WORKERS = {"MEDIAGEN_WORKERS": "2", "MEDIAGEN_SWEEP_INTERVAL_MS": "200", "MEDIAGEN_CONTENT_POLICY": POLICY_TERM}
WITH_WORKERS = {"speech_first_chunk_blocked"}
NO_WORKERS = {"MEDIAGEN_WORKERS": "0", "MEDIAGEN_CONTENT_POLICY": POLICY_TERM, "MEDIAGEN_TRUSTED_PROXIES": "127.0.0.1",
              "MEDIAGEN_BAN_THRESHOLD": "3"}


def reason_of(r):
    body = r.body if isinstance(r.body, dict) else {}
    if isinstance(body.get("error"), dict):  # OpenAI's shape
        return body["error"].get("code")
    if isinstance(body.get("detail"), dict):  # ElevenLabs' shape
        return body["detail"].get("status")
    return body.get("reason")


class RefusalMatrixTests(OrderFixtures, AccountFixtures, E2ETestCase):
    start_server = False

    @classmethod
    def prepare(cls):
        cls.server = cls.h.start_server(WORKERS, name="workers")
        cls.seed_catalogue()
        cls.rich = cls.person(1_000_000)
        cls.stranger = cls.person(1_000_000)
        rich = cls.rich
        rich["done"] = cls.finished(rich, "The rich account's first order.")
        rich["done2"] = cls.finished(rich, "The rich account's second order.")
        rich["partial"] = cls.finished(rich, PARTIAL_TEXT, {"partially_completed"}, config_override=PARAGRAPH)
        headers, body = multipart([("name", "Refusal clone")], [("files[]", "tone.wav", tone_wav())])
        rich["clone"] = cls.api_ok("POST", "/voices/provider_c/clones", rich["key"], body, headers)["id"]
        cls.broke = cls.person(0)
        # An account whose balance pays exactly for its two orders.
        price = sum(int(cls.api_ok("POST", "/orders/chunks/preview", rich["key"], {
            "template_id": rich["template"], "input_text": text, **mode})["summary"]["estimated_price"]["amount"])
            for text, mode in ((PARTIAL_TEXT, PARAGRAPH), ("The poor account's order.", {})))
        cls.poor = cls.person(price)
        cls.poor["done"] = cls.finished(cls.poor, "The poor account's order.")
        cls.poor["partial"] = cls.finished(cls.poor, PARTIAL_TEXT, {"partially_completed"}, config_override=PARAGRAPH)
        cls.settled()
        assert OrderFixtures.balance(cls, cls.poor["user_id"]) == 0, "the poor account kept money"
        cls.server.stop_checked()
        cls.server = cls.h.start_server(NO_WORKERS, name="no-workers")

    @classmethod
    def person(cls, balance):
        user = cls.h.create_user(email=f"refusal-{time.time_ns()}@example.com", balance=balance)
        key = cls.h.create_key(user["id"], preset="full", scopes="reseller.read,reseller.write")["key"]
        voices = cls.api_ok("GET", "/voices/provider_b?per_page=100&language=en", key)
        voice = (voices.get("voices") or voices.get("items"))[0]["voice_id"]
        template = cls.api_ok("POST", "/templates", key, {
            "service_key": "provider_b", "name": "Refusal template",
            "config": {"tts_settings": {"mode": "mode_v1", "model_id": "b-standard", "voice_id": voice}}})["id"]
        return {"user_id": user["id"], "key": key, "template": template, "voice": voice, "input_text": "Preview me."}

    @classmethod
    def finished(cls, who, text, statuses=("completed",), **extra):
        body = {"template_id": who["template"], "input_text": text, **extra}
        created = cls.api_ok("POST", "/orders", who["key"], body)
        deadline = time.monotonic() + 120
        while True:
            order = cls.api_ok("GET", f"/orders/{created['id']}", who["key"])
            if order["status"] in statuses:
                return order
            assert order["status"] in ("created", "pending", "in_progress"), order
            assert time.monotonic() < deadline, order
            time.sleep(0.2)

    # -- the runner

    def setUp(self):
        self.undo = []

    def snapshot(self):
        return ledger_snapshot(self.h), db_fingerprint(self.h), redis_state(self.h, rate=False)

    def refused(self, label, send, status, reason):
        before = self.snapshot()
        for attempt in ("first", "repeated"):
            r = send()
            self.assertEqual((r.status, reason_of(r)), (status, reason), f"{label} ({attempt}): {r!r}")
            after = self.snapshot()
            self.assertEqual(after[0], before[0], f"{label} ({attempt}): the ledger, orders or items moved")
            self.assertEqual(table_diff(before[1], after[1]), [], f"{label} ({attempt}): rows changed")
            self.assertEqual(redis_unchanged(before[2], after[2]), [], f"{label} ({attempt}): Redis changed")

    def test_every_refusal_of_every_charging_route(self):
        ops = operations()
        cases = 0
        for name, row in REFUSALS.items():
            if not isinstance(row, Charging):
                continue
            for refusal in row.cases:
                if refusal.case in WITH_WORKERS:
                    continue  # test_route_matrix_speech.py, on a server with workers
                with self.subTest(route=name, refusal=refusal.reason):
                    try:
                        send = getattr(self, "case_" + refusal.case)(ops[name], name)
                        self.refused(f"{name} {refusal.reason}", send, refusal.status, refusal.reason)
                    finally:
                        while self.undo:
                            self.undo.pop()()
                cases += 1
        print(f"FIGURE refusals: {cases} cases provoked on "
              f"{sum(isinstance(r, Charging) for r in REFUSALS.values())} charging routes, "
              f"{sum(len(r.skipped) for r in REFUSALS.values() if isinstance(r, Charging))} skipped", flush=True)

    # -- building the scenes

    def fx(self, who, order="done"):
        order = who[order] if isinstance(order, str) else order
        return {**who, "order": order["id"], "item": order["items"][0]["id"], "clone": who.get("clone", "x"),
                "text_hash": "0" * 64, "spare_template": who["template"]}

    def send(self, op, req, fx, key, **kw):
        return lambda: call(self.server, req, fx, key, method=op.method, **kw)

    def default(self, op, name, key=None, **kw):
        row = PERMISSIONS[name]
        return self.send(op, row.req, self.fx(self.rich), key or self.rich["key"], **kw)

    def post(self, path, key, body=None, headers=None):
        return lambda: self.server.api("POST", path, key, body=body, headers=headers)

    def confirm_mode(self):
        self.h.cli("admin", "billing", "confirm-mode", "on")
        self.undo.append(lambda: self.h.cli("admin", "billing", "confirm-mode", "off"))

    def maintenance(self):
        self.h.cli("admin", "maintenance", "on")
        self.undo.append(lambda: self.h.cli("admin", "maintenance", "off"))

    def deactivate(self, table, column, value):
        self.h.psql(f"UPDATE {table} SET is_active = false WHERE {column} = '{value}'")
        self.undo.append(lambda: self.h.psql(f"UPDATE {table} SET is_active = true WHERE {column} = '{value}'"))

    def first_use_of_idempotency_key(self):
        key = "matrix-" + secrets.token_hex(8)
        r = self.server.api("POST", "/orders", self.rich["key"], headers={"Idempotency-Key": key},
                            body={"template_id": self.rich["template"], "input_text": "Idempotent first use."})
        self.assertEqual(r.status, 201, r)
        return key

    def plan_account(self, **plan):
        code = "p" + secrets.token_hex(4)
        args = ["admin", "plan", "upsert", "--code", code, "--name", code, "--tokens", "100000"]
        for k, v in plan.items():
            args += ["--" + k.replace("_", "-"), str(v)]
        self.h.cli(*args)
        who = self.person(1_000_000)
        self.h.cli("admin", "subscription", "grant", "--user", str(who["user_id"]), "--plan", code)
        return who

    def item(self, order, index):
        records = [i for i in order["items"] if i["chunk_index"] == index and i["item_type"] != "regeneration"]
        return max(records, key=lambda i: i["attempt_number"])

    def item_path(self, who, order, index, action):
        return f"/orders/{who[order]['id']}/items/{self.item(who[order], index)['id']}/{action}"

    # -- generic cases: a banned address, a spent request window

    def case_ip_banned(self, op, name):
        ip = f"10.{secrets.randbelow(250)}.{secrets.randbelow(250)}.{secrets.randbelow(250) + 2}"
        for _ in range(3):
            self.assertEqual(self.server.api("GET", f"/nope-{secrets.token_hex(4)}", ip=ip).status, 404)
        return self.default(op, name, ip=ip)

    def case_rate_limited(self, op, name):
        key = self.h.create_key(self.rich["user_id"], preset="full", scopes="reseller.read,reseller.write",
                                rate_per_minute=1)["key"]
        avoid_window_edge(60, 20)
        self.assertEqual(self.server.api("GET", "/key", key).status, 200)
        return self.default(op, name, key=key)

    # -- preview and order creation

    def case_preview_foreign_template(self, op, name):
        return self.post("/orders/chunks/preview", self.rich["key"],
                         {"template_id": self.stranger["template"], "input_text": "Not mine."})

    def create_body(self, who, text="A refused order."):
        return {"template_id": who["template"], "input_text": text}

    def case_order_empty_balance(self, op, name):
        return self.post("/orders", self.broke["key"], self.create_body(self.broke))

    def case_order_topup_required(self, op, name):
        self.confirm_mode()
        return self.post("/orders", self.rich["key"], self.create_body(self.rich))

    def case_order_foreign_template(self, op, name):
        return self.post("/orders", self.rich["key"], self.create_body(self.stranger))

    def case_order_idempotency_reused(self, op, name):
        key = self.first_use_of_idempotency_key()
        return self.post("/orders", self.rich["key"], self.create_body(self.rich, "Another body."),
                         {"Idempotency-Key": key})

    def case_order_quote_mismatch(self, op, name):
        self.confirm_mode()
        return self.post("/orders", self.rich["key"], {**self.create_body(self.rich), "confirm_payg_topup": True,
                                                       "quote_token": "not-a-quote"})

    def voice_search(self, files):
        headers, body = multipart([("task_type", "voice_search")], files)
        return self.post("/orders", self.rich["key"], body, headers)

    def case_order_voice_search_without_file(self, op, name):
        return self.voice_search([])

    def case_order_voice_search_png(self, op, name):
        return self.voice_search([("input_files[]", "sample.png", PNG)])

    def case_order_concurrency(self, op, name):
        who = self.plan_account(slots=1)
        self.assertSuccess(self.server.api("POST", "/orders", who["key"], body=self.create_body(who)), 201)
        return self.post("/orders", who["key"], self.create_body(who, "The second order."))

    def case_order_service_ceiling(self, op, name):
        who = self.plan_account(service="provider_b=10")
        return self.post("/orders", who["key"], self.create_body(who, "Longer than the ceiling of ten tokens."))

    def case_order_token_window(self, op, name):
        key = self.h.create_key(self.rich["user_id"], preset="full", tokens_per_minute=5)["key"]
        return self.post("/orders", key, self.create_body(self.rich, "More than five tokens."))

    def case_order_maintenance(self, op, name):
        self.maintenance()
        return self.post("/orders", self.rich["key"], self.create_body(self.rich))

    # -- order retry, bulk retry, item retry, regenerate

    def case_order_retry_maintenance(self, op, name):
        self.maintenance()
        return self.post(f"/orders/{self.rich['done']['id']}/retry", self.rich["key"], {})

    def case_retry_failed_maintenance(self, op, name):
        self.maintenance()
        return self.post(f"/orders/{self.rich['partial']['id']}/items/retry-failed", self.rich["key"], {})

    def case_item_retry_maintenance(self, op, name):
        self.maintenance()
        return self.post(self.item_path(self.rich, "partial", 1, "retry"), self.rich["key"], {"text": "Good."})

    def case_regenerate_maintenance(self, op, name):
        self.maintenance()
        return self.post(self.item_path(self.rich, "done2", 0, "regenerate"), self.rich["key"], {})

    def case_order_retry_config_outdated(self, op, name):
        self.deactivate("service_models", "model_id", "b-standard")
        return self.post(f"/orders/{self.rich['done']['id']}/retry", self.rich["key"], {})

    def case_order_retry_empty_balance(self, op, name):
        return self.post(f"/orders/{self.poor['done']['id']}/retry", self.poor["key"], {})

    def case_order_retry_idempotency_reused(self, op, name):
        key = self.first_use_of_idempotency_key()
        return self.post(f"/orders/{self.rich['done']['id']}/retry", self.rich["key"], {}, {"Idempotency-Key": key})

    def case_order_retry_token_window(self, op, name):
        key = self.h.create_key(self.rich["user_id"], preset="full", tokens_per_minute=5)["key"]
        return self.post(f"/orders/{self.rich['done']['id']}/retry", key, {})

    def case_retry_failed_nothing(self, op, name):
        # Only a policy-flagged chunk failed, and it needs a new text: nothing to retry as it was.
        return self.post(f"/orders/{self.rich['partial']['id']}/items/retry-failed", self.rich["key"], {})

    def case_retry_failed_completed(self, op, name):
        return self.post(f"/orders/{self.rich['done']['id']}/items/retry-failed", self.rich["key"], {})

    def case_item_retry_surcharge_unpaid(self, op, name):
        path = self.item_path(self.poor, "partial", 1, "retry")
        info = self.assertSuccess(self.server.api("GET", path.replace("/retry", "/text"), self.poor["key"]))
        longer = ("A longer replacement text " + "q" * info["max_billable_length"])[:info["max_billable_length"]]
        return self.post(path, self.poor["key"], {"text": longer})

    def case_item_retry_idempotency_reused(self, op, name):
        key = self.first_use_of_idempotency_key()
        return self.post(self.item_path(self.rich, "partial", 1, "retry"), self.rich["key"], {"text": "Good."},
                         {"Idempotency-Key": key})

    def case_item_retry_active(self, op, name):
        path = self.item_path(self.rich, "partial", 1, "retry")
        self.assertSuccess(self.server.api("POST", path, self.rich["key"], body={"text": "Good."}), 201)
        return self.post(path, self.rich["key"], {"text": "Good."})

    def case_item_retry_config_outdated(self, op, name):
        self.deactivate("voices", "voice_id", self.poor["voice"])
        return self.post(self.item_path(self.poor, "partial", 1, "retry"), self.poor["key"], {"text": "Good."})

    def case_regenerate_empty_balance(self, op, name):
        return self.post(self.item_path(self.poor, "done", 0, "regenerate"), self.poor["key"], {})

    def case_regenerate_active(self, op, name):
        path = self.item_path(self.rich, "done", 0, "regenerate")
        self.assertSuccess(self.server.api("POST", path, self.rich["key"], body={}), 201)
        return self.post(path, self.rich["key"], {})

    def case_regenerate_config_outdated(self, op, name):
        self.deactivate("voices", "voice_id", self.rich["voice"])
        return self.post(self.item_path(self.rich, "done2", 0, "regenerate"), self.rich["key"], {})

    # -- clones

    def clone(self, who, files):
        headers, body = multipart([("name", "A refused clone")], files)
        return lambda: self.server.api("POST", "/voices/provider_c/clones", who["key"], headers=headers, body=body)

    def case_clone_third_without_subscription(self, op, name):
        who = self.person(0)
        for _ in range(2):
            self.assertSuccess(self.clone(who, [("files[]", "tone.wav", tone_wav())])(), 201)
        return self.clone(who, [("files[]", "tone.wav", tone_wav())])

    def case_clone_without_file(self, op, name):
        return self.clone(self.rich, [])

    def case_clone_png(self, op, name):
        return self.clone(self.rich, [("files[]", "sample.png", PNG)])

    def case_clone_plan_limit(self, op, name):
        who = self.plan_account(clone_limit=1)
        self.assertSuccess(self.clone(who, [("files[]", "tone.wav", tone_wav())])(), 201)
        return self.clone(who, [("files[]", "tone.wav", tone_wav())])

    # -- the OpenAI-compatible speech

    def speak(self, key, **body):
        return lambda: bearer(self.server, "POST", "/v1/audio/speech", key, body={**SPEECH, "voice": self.rich["voice"],
                                                                                 **body})

    def case_speech_empty_balance(self, op, name):
        return self.speak(self.broke["key"])

    def case_speech_without_orders_write(self, op, name):
        return self.speak(self.h.create_key(self.rich["user_id"], preset="read_only")["key"])

    def case_speech_token_window(self, op, name):
        return self.speak(self.h.create_key(self.rich["user_id"], preset="full", tokens_per_minute=5)["key"])

    # -- the ElevenLabs-compatible surface (one case serves each of its speech routes)

    def el(self, name, key, body):
        path = name.split(" ", 1)[1].replace("{voice_id}", self.rich["voice"])
        return lambda: xi(self.server, "POST", path, key, body=body)

    def case_el_speech_empty_balance(self, op, name):
        return self.el(name, self.broke["key"], {"text": "Refused speech."})

    def case_el_speech_token_window(self, op, name):
        key = self.h.create_key(self.rich["user_id"], preset="full", tokens_per_minute=5)["key"]
        return self.el(name, key, {"text": "Refused speech."})

    def case_el_sound_empty_balance(self, op, name):
        return self.el(name, self.broke["key"], {"text": "a door slams shut", "duration_seconds": 2})

    def case_el_music_empty_balance(self, op, name):
        return self.el(name, self.broke["key"], {"prompt": "calm piano", "music_length_ms": 10000})

    # -- gift codes

    def case_gift_empty_balance(self, op, name):
        who = self.person(0)
        self.h.cli("admin", "reseller", "enable", "--user", str(who["user_id"]), "--balance", 0)
        return self.post("/reseller/codes", who["key"], {"nominal": 1000})

    def case_gift_not_reseller(self, op, name):
        return self.post("/reseller/codes", self.rich["key"], {"nominal": 1000})


if __name__ == "__main__":
    unittest.main()
