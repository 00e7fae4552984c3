"""The AI model catalogue (spec 2.8, 4.7, 7.1 304, 9): every field of the list and of one entry,
the display currency, the strong ETag and its 304 without a database query, a price change seen
by every instance at once, 404 for a missing or uncallable model, any active key and no permission."""

import unittest
from decimal import Decimal, ROUND_HALF_UP

from harness import E2ETestCase, metric_sum, poll

MODEL_FIELDS = {"key", "name", "family", "kind", "description", "context_window", "max_output_tokens",
                "capabilities", "pricing_mode", "price", "billing_available", "byok"}
ASSET_FIELDS = {"id", "code", "kind", "precision", "name", "is_active", "is_default", "default_balance",
                "deleted_at", "created_at", "updated_at"}
TOKEN_CLASSES = ("input", "cached_input", "output", "reasoning", "cache_write")


def expected_display(minor: int, rate: str, precision: int = 2) -> float:
    value = Decimal(minor) / Decimal(100) * Decimal(rate)
    return float(value.quantize(Decimal(1).scaleb(-precision), rounding=ROUND_HALF_UP))


class AiCatalogueTests(E2ETestCase):
    # No generation workers: their queue polling would count as database work in the 304 check.
    server_env = {"MEDIAGEN_WORKERS": "0"}

    @classmethod
    def prepare(cls):
        cls.seed = cls.h.cli("admin", "seed-demo", "--skip-voice-features")
        cls.user = cls.h.create_user()
        # No permission at all: the catalogue needs only an active key.
        cls.key = cls.h.create_key(cls.user["id"], scopes="")["key"]

    def models(self, server=None, headers=None):
        r = (server or self.server).api("GET", "/ai/models", self.key, headers=headers)
        return r, self.assertSuccess(r)

    def by_key(self, data):
        return {m["key"]: m for m in data["models"]}

    def assertStrongEtag(self, r):
        tag = r.headers.get("etag")
        self.assertIsNotNone(tag, r)
        self.assertFalse(tag.startswith("W/"), r)
        self.assertTrue(tag.startswith('"') and tag.endswith('"') and len(tag) > 2, r)
        return tag

    # -- shapes

    def test_list_has_every_field_of_every_model(self):
        r, data = self.models()
        self.assertEqual(set(data), {"version", "models", "asset", "display_currency"})
        self.assertIsInstance(data["version"], str)
        self.assertTrue(data["version"])
        self.assertStrongEtag(r)
        # The demo catalogue, and what other tests of this class added to it.
        self.assertGreaterEqual(len(self.seed["ai_catalogue"]["models"]), 12)
        self.assertLessEqual(set(self.seed["ai_catalogue"]["models"]), set(self.by_key(data)))
        for m in data["models"]:
            with self.subTest(model=m["key"]):
                self.assertEqual(set(m), MODEL_FIELDS)
                self.assertIn(m["pricing_mode"], ("per_token", "per_call"))
                self.assertIsInstance(m["capabilities"], list)
                self.assertIsInstance(m["billing_available"], bool)
                self.assertIsInstance(m["byok"], bool)
                if m["price"] is None:
                    continue
                self.assertEqual(set(m["price"]), set(TOKEN_CLASSES) | {"request"})
                for cls_ in TOKEN_CLASSES:
                    p = m["price"][cls_]
                    if p is not None:
                        self.assertEqual(set(p), {"per_mtok_minor", "per_mtok_formatted", "per_mtok_display"})
                        self.assertIsInstance(p["per_mtok_minor"], int)
                        self.assertAlmostEqual(p["per_mtok_formatted"], p["per_mtok_minor"] / 100)
                        self.assertAlmostEqual(p["per_mtok_display"], p["per_mtok_minor"] / 100)
        asset = data["asset"]
        self.assertEqual(set(asset), ASSET_FIELDS)
        self.assertEqual(asset["code"], "USD")
        self.assertEqual(asset["precision"], 2)
        self.assertIs(asset["is_default"], True)
        self.assertIsNone(asset["deleted_at"])
        self.assertIso(asset["created_at"])
        self.assertEqual(data["display_currency"], {"code": "USD", "symbol": "$", "precision": 2, "available": True})

    def test_the_seed_has_per_call_unpriced_and_unbillable_models(self):
        _, data = self.models()
        models = self.by_key(data)
        image = models["prism-image"]
        self.assertEqual(image["pricing_mode"], "per_call")
        self.assertEqual(image["price"]["request"],
                         {"per_call_minor": 4, "per_call_formatted": 0.04, "per_call_display": 0.04})
        self.assertIsNone(image["price"]["input"])
        self.assertIsNone(models["lumen-next"]["price"])
        self.assertIs(models["nimbus-legacy"]["billing_available"], False)
        self.assertIsNotNone(models["nimbus-legacy"]["price"])
        self.assertGreaterEqual(len({m["family"] for m in data["models"]}), 4)
        self.assertGreaterEqual(len({m["kind"] for m in data["models"]}), 3)

    def test_one_entry_has_the_same_shape_without_display_currency(self):
        r, data = self.models()
        one = self.server.api("GET", "/ai/models/aurora-large", self.key)
        entry = self.assertSuccess(one)
        self.assertEqual(set(entry), {"version", "models", "asset"})
        self.assertEqual(entry["version"], data["version"])
        self.assertEqual(entry["asset"], data["asset"])
        self.assertEqual(entry["models"], [self.by_key(data)["aurora-large"]])
        self.assertStrongEtag(one)

    # -- 404 and access

    def test_missing_unpriced_and_unbillable_models_are_404(self):
        for key in ("no-such-model", "lumen-next", "nimbus-legacy"):
            with self.subTest(model=key):
                r = self.server.api("GET", f"/ai/models/{key}", self.key)
                body = self.assertJsonResponse(r, 404)
                self.assertIs(body["success"], False)
                self.assertNotIn("reason", body)
                self.assertNotIn("data", body)
                self.assertIsInstance(body["message"], str)

    def test_no_key_is_401_and_any_active_key_passes(self):
        self.assert401(self.server.api("GET", "/ai/models"), "missing")
        self.assert401(self.server.api("GET", "/ai/models/aurora-mini"), "missing")
        self.assert401(self.server.api("GET", "/ai/models", "mg_wrong"), "invalid")
        for scopes in ("reseller.read", "orders.read", "*"):
            with self.subTest(scopes=scopes):
                k = self.h.create_key(self.user["id"], scopes=scopes)["key"]
                self.assertSuccess(self.server.api("GET", "/ai/models", k))
                self.assertSuccess(self.server.api("GET", "/ai/models/aurora-mini", k))
        disabled = self.h.create_key(self.user["id"], scopes="")
        self.h.disable_key(disabled["id"])
        gone = poll(lambda: self.server.api("GET", "/ai/models", disabled["key"]).status == 401, timeout=2.0)
        self.assertTrue(gone)

    # -- display currency

    def test_display_currency_with_a_rate(self):
        for header, code, symbol, rate in (("EUR", "EUR", "€", "0.92"), ("rub", "RUB", "₽", "92.5")):
            with self.subTest(header=header):
                r, data = self.models(headers={"X-Display-Currency": header})
                self.assertEqual(data["display_currency"], {"code": code, "symbol": symbol, "precision": 2,
                                                            "available": True})
                m = self.by_key(data)["aurora-large"]
                for cls_ in ("input", "output"):
                    p = m["price"][cls_]
                    self.assertAlmostEqual(p["per_mtok_display"], expected_display(p["per_mtok_minor"], rate), delta=0.0051)
                    self.assertAlmostEqual(p["per_mtok_formatted"], p["per_mtok_minor"] / 100)
                entry = self.assertSuccess(self.server.api("GET", "/ai/models/aurora-large", self.key,
                                                           headers={"X-Display-Currency": header}))
                self.assertEqual(entry["models"][0], m)

    def test_display_currency_without_a_rate(self):
        _, data = self.models(headers={"X-Display-Currency": "GBP"})
        self.assertEqual(data["display_currency"], {"code": "GBP", "symbol": None, "precision": 2, "available": False})
        for m in data["models"]:
            for p in (m["price"] or {}).values():
                if p is not None:
                    self.assertIsNone(p.get("per_mtok_display", p.get("per_call_display")), m)
        m = self.by_key(data)["aurora-large"]
        self.assertIsInstance(m["price"]["input"]["per_mtok_minor"], int)

    def test_a_malformed_display_currency_is_ignored(self):
        _, plain = self.models()
        for header in ("EURO", "E$R", "E R", "12"):
            with self.subTest(header=header):
                _, data = self.models(headers={"X-Display-Currency": header})
                self.assertEqual(data, plain)

    # -- ETag and 304

    def test_304_on_the_current_etag_with_no_body(self):
        r, _ = self.models()
        tag = self.assertStrongEtag(r)
        for value in (tag, "W/" + tag, '"other", ' + tag, "*"):
            with self.subTest(if_none_match=value):
                again = self.server.api("GET", "/ai/models", self.key, headers={"If-None-Match": value})
                self.assertEqual(again.status, 304, again)
                self.assertEqual(again.raw, b"")
                self.assertEqual(again.headers.get("etag"), tag)
        stale = self.server.api("GET", "/ai/models", self.key, headers={"If-None-Match": '"0-00000000-USD"'})
        self.assertSuccess(stale)
        one = self.server.api("GET", "/ai/models/aurora-mini", self.key)
        one_tag = self.assertStrongEtag(one)
        self.assertEqual(self.server.api("GET", "/ai/models/aurora-mini", self.key,
                                         headers={"If-None-Match": one_tag}).status, 304)

    def test_each_display_currency_has_its_own_etag(self):
        usd, _ = self.models()
        eur, _ = self.models(headers={"X-Display-Currency": "EUR"})
        self.assertNotEqual(usd.headers["etag"], eur.headers["etag"])
        cross = self.server.api("GET", "/ai/models", self.key,
                                headers={"X-Display-Currency": "EUR", "If-None-Match": usd.headers["etag"]})
        self.assertSuccess(cross)
        self.assertEqual(self.server.api("GET", "/ai/models", self.key, headers={
            "X-Display-Currency": "EUR", "If-None-Match": eur.headers["etag"]}).status, 304)

    def test_each_time_zone_has_its_own_etag(self):
        # The asset's times are written in the X-Timezone zone, so the body differs by it.
        utc, _ = self.models()
        moscow = self.server.api("GET", "/ai/models", self.key, tz="Europe/Moscow")
        tag = self.assertStrongEtag(moscow)
        self.assertNotEqual(tag, utc.headers["etag"])
        self.assertTrue(self.assertSuccess(moscow)["asset"]["created_at"].endswith("+03:00"))
        cross = self.server.api("GET", "/ai/models", self.key, tz="Europe/Moscow",
                                headers={"If-None-Match": utc.headers["etag"]})
        self.assertSuccess(cross)
        again = self.server.api("GET", "/ai/models", self.key, tz="Europe/Moscow", headers={"If-None-Match": tag})
        self.assertEqual(again.status, 304, again)

    def test_304_costs_no_database_query(self):
        r, _ = self.models()
        tag = r.headers["etag"]
        before = self.server.metrics()
        for _ in range(50):
            self.assertEqual(self.server.api("GET", "/ai/models", self.key,
                                             headers={"If-None-Match": tag}).status, 304)
        after = self.server.metrics()
        self.assertEqual(metric_sum(after, "mediagen_db_queries_total"), metric_sum(before, "mediagen_db_queries_total"))

    # -- changes

    def test_a_price_change_is_seen_by_every_instance_at_once(self):
        self.h.cli("admin", "ai-model", "set", "--key", "e2e-change", "--name", "Change", "--price-input", "100",
                   "--price-output", "300")
        second = self.h.start_server(self.server_env)
        servers = (self.server, second)

        def current(server):
            r = server.api("GET", "/ai/models", self.key)
            return r.headers.get("etag"), self.assertSuccess(r)

        # Both instances agree on the catalogue with the new model (the set above was announced).
        self.assertTrue(poll(lambda: all("e2e-change" in self.by_key(current(s)[1]) for s in servers), timeout=5.0))
        tags = [current(s)[0] for s in servers]
        self.assertEqual(tags[0], tags[1])
        old_version = current(self.server)[1]["version"]

        out = self.h.cli("admin", "ai-model", "set", "--key", "e2e-change", "--price-input", "150")
        self.assertEqual(out["prices"]["input"], 150)
        self.assertNotEqual(out["version"], old_version)
        for s in servers:
            with self.subTest(server=s.name):
                changed = poll(lambda: s.api("GET", "/ai/models", self.key,
                                             headers={"If-None-Match": tags[0]}).status == 200, timeout=5.0)
                # Milliseconds in practice; the bound only keeps a loaded machine from failing it.
                self.assertTrue(changed, "the old ETag still answered 304 five seconds after the change")
                tag, data = current(s)
                self.assertNotEqual(tag, tags[0])
                self.assertEqual(data["version"], out["version"])
                self.assertEqual(self.by_key(data)["e2e-change"]["price"]["input"]["per_mtok_minor"], 150)
                self.assertEqual(s.api("GET", "/ai/models", self.key, headers={"If-None-Match": tag}).status, 304)

    def test_a_model_switched_off_or_removed_disappears(self):
        self.h.cli("admin", "ai-model", "set", "--key", "e2e-gone", "--price-input", "10")
        self.assertTrue(poll(lambda: self.server.api("GET", "/ai/models/e2e-gone", self.key).status == 200))
        self.h.cli("admin", "ai-model", "set", "--key", "e2e-gone", "--active", "off")
        self.assertTrue(poll(lambda: self.server.api("GET", "/ai/models/e2e-gone", self.key).status == 404))
        self.assertNotIn("e2e-gone", self.by_key(self.models()[1]))
        self.h.cli("admin", "ai-model", "set", "--key", "e2e-gone", "--active", "on")
        self.assertTrue(poll(lambda: self.server.api("GET", "/ai/models/e2e-gone", self.key).status == 200))
        out = self.h.cli("admin", "ai-model", "remove", "--key", "e2e-gone")
        self.assertIs(out["removed"], True)
        self.assertTrue(poll(lambda: self.server.api("GET", "/ai/models/e2e-gone", self.key).status == 404))
        self.assertNotEqual(self.h.run_cli("admin", "ai-model", "remove", "--key", "e2e-gone").returncode, 0)

    def test_fx_rate_set_changes_display_values(self):
        out = self.h.cli("admin", "fx-rate", "set", "--currency", "chf", "--rate", "0.8", "--symbol", "CHF")
        self.assertEqual(out["code"], "CHF")
        self.assertTrue(poll(lambda: self.models(headers={"X-Display-Currency": "CHF"})[1]
                             ["display_currency"]["available"]))
        _, data = self.models(headers={"X-Display-Currency": "CHF"})
        p = self.by_key(data)["aurora-large"]["price"]["output"]
        self.assertAlmostEqual(p["per_mtok_display"], expected_display(p["per_mtok_minor"], "0.8"), delta=0.0051)
        for bad in (["--rate", "0"], ["--rate", "-1"], ["--rate", "abc"]):
            self.assertNotEqual(self.h.run_cli("admin", "fx-rate", "set", "--currency", "CHF", *bad).returncode, 0)
        self.assertNotEqual(self.h.run_cli("admin", "fx-rate", "set", "--currency", "EURO", "--rate", "1").returncode, 0)


if __name__ == "__main__":
    unittest.main()
