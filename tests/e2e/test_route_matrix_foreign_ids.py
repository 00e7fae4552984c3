"""T11: every route that names an account's object, called by another account with that object's
id (spec 7.1; openapi "Ownership": another account's order, item or file is 404 exactly like a
missing one; its template is 403 template_access_denied; its realtime channel 403).

Accounts A and B each own one real object of every kind (a template, a completed order, its
first chunk and result file, a preview, a voice clone, a gift code). B calls each route of the
foreign-id matrix (route_matrix_rows.FOREIGN) with A's objects and a key holding every
permission: the documented answer comes, the rows of every table and every Redis key but B's
request-rate windows stay as they were (nothing charged, cancelled, retried, no IP ban miss
counted), and no id, name or text of A's is in the answer.
"""

import json
import unittest

from harness import E2ETestCase
from matrix_support import AccountFixtures, call, db_fingerprint, redis_state, redis_unchanged, table_diff
from realtime_support import realtime_env
from route_matrix import Foreign, NoForeignId, fill, operations
from route_matrix_rows import FOREIGN

SECRETS = ("email", "template", "spare_template", "order", "item", "file", "input_text", "preview", "clone", "gift")


class ForeignIdMatrixTests(AccountFixtures, E2ETestCase):
    server_env = realtime_env(MEDIAGEN_WORKERS=2, MEDIAGEN_SWEEP_INTERVAL_MS=200)

    @classmethod
    def prepare(cls):
        cls.seed_catalogue()
        cls.a = cls.make_account("alice")
        cls.b = cls.make_account("bob")

    def check(self, method, case):
        fx = {**self.a, "socket": self.b["socket"]}
        label = f"{method} {case.req.path}"
        before_db, before_redis = self.settled(), redis_state(self.h, rate=False)
        bearer = case.req.root and case.req.path.startswith("/v1") and not case.req.xi
        r = call(self.server, case.req, fx, self.b["key"], bearer=bearer, method=method)
        self.assertEqual(r.status, case.status, f"{label} with A's ids: {r!r}")
        if case.status >= 400:
            body = r.body
            if "error" in body:  # OpenAI's shape
                self.assertIsInstance(body["error"].get("message"), str, r)
            elif "detail" in body:  # ElevenLabs' shape
                self.assertEqual(set(body["detail"]), {"status", "message"}, r)
            else:
                self.assertIs(body.get("success"), False, r)
                self.assertEqual(body.get("reason"), case.reason, r)
                if case.message is not None:
                    self.assertEqual(body, {"success": False, "message": case.message, "data": None})
        else:
            data = r.body["data"]
            self.assertEqual(data.get("items", data) if isinstance(data, dict) else data, [], r)
        text = r.raw.decode("utf-8", "replace")
        # What B sent is B's to see again; anything else of A's is a leak.
        sent = repr((fill(case.req.path, fx), fill(case.req.body, fx)))
        leaked = [name for name in SECRETS if str(self.a[name]) in text and str(self.a[name]) not in sent]
        self.assertEqual(leaked, [], f"{label}: A's {leaked} in B's answer {text[:300]}")
        self.assertEqual(table_diff(before_db, db_fingerprint(self.h)), [], f"{label}: rows changed")
        self.assertEqual(redis_unchanged(before_redis, redis_state(self.h, rate=False)), [], f"{label}: Redis changed")
        # The same call again: the same answer (nothing it did the first time shows).
        again = call(self.server, case.req, fx, self.b["key"], bearer=bearer, method=method)
        self.assertEqual((again.status, json.dumps(again.body, sort_keys=True) if isinstance(again.body, dict) else ""),
                         (r.status, json.dumps(r.body, sort_keys=True) if isinstance(r.body, dict) else ""))

    def test_another_accounts_ids(self):
        ops = operations()
        cases = routes = 0
        for name, op in ops.items():
            row = FOREIGN[name]
            if isinstance(row, NoForeignId):
                continue
            routes += 1
            for case in row:
                self.assertIsInstance(case, Foreign)
                with self.subTest(route=name, path=case.req.path, body=case.req.body):
                    self.check(op.method, case)
                cases += 1
        print(f"FIGURE route x foreign id: {routes} routes, {cases} cases", flush=True)

    def test_own_ids_are_found(self):
        """The same calls with B's own objects are not refused as foreign: the 404s above are the
        ownership's, not a broken fixture's."""
        for name in ("GET /orders/{order}", "GET /orders/{order}/items/{item}", "GET /voices/{service}/clones/{clone}",
                     "GET /reseller/codes/{uuid}", "GET /templates/{template}",
                     "GET /orders/chunks/preview/{previewId}"):
            with self.subTest(route=name):
                r = call(self.server, FOREIGN[name][0].req, self.b, self.b["key"])
                self.assertEqual(r.status, 200, r)


if __name__ == "__main__":
    unittest.main()
