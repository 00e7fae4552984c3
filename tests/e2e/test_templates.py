"""Templates (spec 2.5, 4.4): CRUD, ownership, validation against the catalogue, browse bounds,
config-options and permissions, over HTTP against the seeded demo catalogue."""

import re
import unittest

from harness import E2ETestCase, ISO_RE, CYRILLIC_RE

UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
TEMPLATE_KEYS = {"id", "service_key", "name", "config", "created_at", "updated_at"}
TTS_KEYS = {"mode", "model_id", "voice_id", "language_code", "advanced_voice_settings", "voice_settings"}


class TemplateCase(E2ETestCase):
    """A seeded catalogue, two accounts, and keys with the template permissions."""

    @classmethod
    def prepare(cls):
        h = cls.h
        cls.seed = h.cli("admin", "seed-demo", "--skip-voice-features")
        cls.user = h.create_user()
        cls.key = h.create_key(cls.user["id"], preset="full")["key"]
        cls.second_key = h.create_key(cls.user["id"], scopes="templates.read,templates.write")["key"]
        cls.other = h.create_user(locale="ru")
        cls.other_key = h.create_key(cls.other["id"], preset="full")["key"]
        cls.voice = {}
        for service, path, field in (("provider_a", "/voices/provider_a/library?page_size=1", "voices"),
                                     ("provider_b", "/voices/provider_b?page_size=1&language=en", "voices"),
                                     ("provider_c", "/voices/provider_c?per_page=1", "items"),
                                     ("provider_d", "/voices/provider_d?per_page=1", "items")):
            r = cls.server.api("GET", path, cls.key)
            assert r.status == 200, r
            cls.voice[service] = r.body["data"][field][0]["voice_id"]

    def body(self, service="provider_a", model="a-v3", name="Narrator", **tts):
        settings = {"mode": "mode_v1", "model_id": model, "voice_id": self.voice[service]}
        settings.update(tts)
        return {"service_key": service, "name": name, "config": {"tts_settings": settings}}

    def create(self, key=None, **kw):
        r = self.server.api("POST", "/templates", key or self.key, body=self.body(**kw))
        return self.assertSuccess(r, 201)

    def assertValidation(self, r, *fields):
        self.assertEqual(r.status, 422, r)
        self.assertEqual(set(r.body), {"message", "errors"}, r)
        for f in fields:
            self.assertIn(f, r.body["errors"], r)
            self.assertIsInstance(r.body["errors"][f], list)
            self.assertTrue(all(isinstance(m, str) and m for m in r.body["errors"][f]))
        return r.body["errors"]

    def assertDenied(self, r):
        body = self.assertJsonResponse(r, 403)
        self.assertEqual(set(body), {"success", "message", "reason", "error_code"}, r)
        self.assertIs(body["success"], False)
        self.assertEqual(body["reason"], "template_access_denied")
        self.assertEqual(body["error_code"], "template_access_denied")

    def assert404(self, r):
        body = self.assertJsonResponse(r, 404)
        self.assertIs(body["success"], False)
        self.assertNotIn("reason", body)


class TemplateCrudTests(TemplateCase):

    def test_create_answers_201_with_the_template(self):
        data = self.create(language_code="en", voice_settings={"stability": 0.4, "speed": 1.1})
        self.assertEqual(set(data), TEMPLATE_KEYS, data)
        self.assertRegex(data["id"], UUID_RE)
        self.assertEqual(data["service_key"], "provider_a")
        self.assertEqual(data["name"], "Narrator")
        tts = data["config"]["tts_settings"]
        self.assertEqual(set(tts), TTS_KEYS, tts)
        self.assertEqual(list(tts), ["mode", "model_id", "voice_id", "language_code", "advanced_voice_settings",
                                     "voice_settings"])
        self.assertEqual(tts["mode"], "mode_v1")
        self.assertEqual(tts["model_id"], "a-v3")
        self.assertEqual(tts["voice_id"], self.voice["provider_a"])
        self.assertEqual(tts["language_code"], "en")
        self.assertIs(tts["advanced_voice_settings"], False)
        self.assertEqual(tts["voice_settings"], {"stability": 0.4, "speed": 1.1})
        self.assertRegex(data["created_at"], ISO_RE)
        self.assertRegex(data["updated_at"], ISO_RE)

    def test_every_voice_service_takes_templates(self):
        for service, model in (("provider_a", "a-multilingual-v2"), ("provider_b", "b-standard"),
                               ("provider_c", "c-three"), ("provider_d", "d-base")):
            with self.subTest(service=service):
                data = self.create(service=service, model=model, advanced_voice_settings=True)
                self.assertEqual(data["service_key"], service)
                self.assertIs(data["config"]["tts_settings"]["advanced_voice_settings"], True)

    def test_show_list_update_delete(self):
        created = self.create(name="Lifecycle")
        tid = created["id"]
        shown = self.assertSuccess(self.server.api("GET", f"/templates/{tid}", self.key))
        self.assertEqual(shown, created)
        # Templates belong to the account: another key of the same account sees and edits them.
        self.assertEqual(self.assertSuccess(self.server.api("GET", f"/templates/{tid}", self.second_key)), created)
        listed = self.assertSuccess(self.server.api("GET", "/templates", self.key))
        self.assertIsInstance(listed, list)
        self.assertIn(tid, [t["id"] for t in listed])

        # PATCH: a merge patch; keys left out keep their values.
        r = self.server.api("PATCH", f"/templates/{tid}", self.second_key,
                            body={"name": "Patched", "config": {"tts_settings": {"voice_settings": {"stability": 0.2}}}})
        patched = self.assertSuccess(r)
        self.assertEqual(patched["name"], "Patched")
        self.assertEqual(patched["config"]["tts_settings"]["model_id"], "a-v3")
        self.assertEqual(patched["config"]["tts_settings"]["voice_settings"], {"stability": 0.2})
        self.assertEqual(patched["created_at"], created["created_at"])

        # PUT: the same operation; a full body replaces what it names.
        full = self.body(service="provider_b", model="b-standard", name="Put", language_code="ru")
        put = self.assertSuccess(self.server.api("PUT", f"/templates/{tid}", self.key, body=full))
        self.assertEqual(put["service_key"], "provider_b")
        self.assertEqual(put["name"], "Put")
        self.assertEqual(put["config"]["tts_settings"]["voice_id"], self.voice["provider_b"])
        self.assertEqual(put["config"]["tts_settings"]["language_code"], "ru")
        # null removes a key.
        cleared = self.assertSuccess(self.server.api(
            "PATCH", f"/templates/{tid}", self.key, body={"config": {"tts_settings": {"language_code": None}}}))
        self.assertIsNone(cleared["config"]["tts_settings"]["language_code"])

        r = self.server.api("DELETE", f"/templates/{tid}", self.key)
        body = self.assertJsonResponse(r, 200)
        self.assertEqual(body["success"], True)
        self.assertIsNone(body["data"])
        self.assert404(self.server.api("GET", f"/templates/{tid}", self.key))
        self.assert404(self.server.api("DELETE", f"/templates/{tid}", self.key))
        self.assert404(self.server.api("PATCH", f"/templates/{tid}", self.key, body={"name": "x"}))
        listed = self.assertSuccess(self.server.api("GET", "/templates", self.key))
        self.assertNotIn(tid, [t["id"] for t in listed])
        self.assertEqual(self.h.psql_value(f"SELECT deleted_at IS NOT NULL FROM templates WHERE id = '{tid}'"), "t")

    def test_update_that_breaks_the_template_changes_nothing(self):
        created = self.create(name="Stable")
        r = self.server.api("PATCH", f"/templates/{created['id']}", self.key, body={"service_key": "provider_c"})
        self.assertValidation(r, "config.tts_settings.model_id", "config.tts_settings.voice_id")
        shown = self.assertSuccess(self.server.api("GET", f"/templates/{created['id']}", self.key))
        self.assertEqual(shown, created)

    def test_another_accounts_template_is_denied(self):
        created = self.create(name="Private")
        tid = created["id"]
        self.assertDenied(self.server.api("GET", f"/templates/{tid}", self.other_key))
        self.assertDenied(self.server.api("PUT", f"/templates/{tid}", self.other_key, body=self.body()))
        self.assertDenied(self.server.api("PATCH", f"/templates/{tid}", self.other_key, body={"name": "Stolen"}))
        self.assertDenied(self.server.api("DELETE", f"/templates/{tid}", self.other_key))
        r = self.server.api("GET", f"/templates/{tid}", self.other_key, locale="ru")
        self.assertDenied(r)
        self.assertRegex(r.body["message"], CYRILLIC_RE)
        # Nothing changed, and the other account does not list it.
        self.assertEqual(self.assertSuccess(self.server.api("GET", f"/templates/{tid}", self.key)), created)
        listed = self.assertSuccess(self.server.api("GET", "/templates", self.other_key))
        self.assertNotIn(tid, [t["id"] for t in listed])

    def test_unknown_and_malformed_ids_are_404(self):
        for tid in ("00000000-0000-4000-8000-000000000000", "not-a-uuid", "123", "0" * 36):
            with self.subTest(tid=tid):
                self.assert404(self.server.api("GET", f"/templates/{tid}", self.key))
                self.assert404(self.server.api("PATCH", f"/templates/{tid}", self.key, body={"name": "x"}))
                self.assert404(self.server.api("DELETE", f"/templates/{tid}", self.key))

    def test_a_template_whose_model_was_retired_reads_but_must_change_to_update(self):
        created = self.create(model="a-v4-flash", name="Retired")
        self.h.psql("UPDATE service_models SET is_active = false WHERE model_id = 'a-v4-flash'")
        try:
            self.assertEqual(self.assertSuccess(self.server.api("GET", f"/templates/{created['id']}", self.key)),
                             created)
            r = self.server.api("PATCH", f"/templates/{created['id']}", self.key, body={"name": "Renamed"})
            self.assertValidation(r, "config.tts_settings.model_id")
            fixed = self.assertSuccess(self.server.api(
                "PATCH", f"/templates/{created['id']}", self.key,
                body={"name": "Renamed", "config": {"tts_settings": {"model_id": "a-v4"}}}))
            self.assertEqual(fixed["config"]["tts_settings"]["model_id"], "a-v4")
            # config-options stops offering the retired model.
            options = self.assertSuccess(self.server.api("GET", "/templates/config-options", self.key))
            a = [s for s in options["services"] if s["key"] == "provider_a"][0]
            self.assertNotIn("a-v4-flash", [m["model_id"] for m in a["models"]])
        finally:
            self.h.psql("UPDATE service_models SET is_active = true WHERE model_id = 'a-v4-flash'")


class TemplateValidationTests(TemplateCase):

    def test_missing_everything(self):
        errors = self.assertValidation(self.server.api("POST", "/templates", self.key, body={}),
                                       "service_key", "name", "config")
        self.assertEqual(set(errors), {"service_key", "name", "config"})
        errors = self.assertValidation(self.server.api(
            "POST", "/templates", self.key, body={"service_key": "provider_a", "name": "x",
                                                  "config": {"tts_settings": {}}}),
            "config.tts_settings.mode", "config.tts_settings.model_id", "config.tts_settings.voice_id")
        self.assertEqual(len(errors), 3)

    def test_the_catalogue_decides(self):
        cases = [
            ({"service_key": "sfx"}, "service_key"),
            ({"service_key": "provider_x"}, "service_key"),
            ({"model": "b-standard"}, "config.tts_settings.model_id"),
            ({"mode": "mode_v9"}, "config.tts_settings.mode"),
            ({"voice_id": "no-such-voice"}, "config.tts_settings.voice_id"),
            ({"language_code": "EN"}, "config.tts_settings.language_code"),
            ({"language_code": "eng"}, "config.tts_settings.language_code"),
            ({"language_code": "zz"}, "config.tts_settings.language_code"),
            ({"advanced_voice_settings": "yes"}, "config.tts_settings.advanced_voice_settings"),
            ({"voice_settings": {"speed": 1.5}}, "config.tts_settings.voice_settings.speed"),
            ({"voice_settings": {"stability": -0.1}}, "config.tts_settings.voice_settings.stability"),
            ({"voice_settings": {"similarity_boost": "high"}}, "config.tts_settings.voice_settings.similarity_boost"),
            ({"voice_settings": {"use_speaker_boost": 1}}, "config.tts_settings.voice_settings.use_speaker_boost"),
            ({"voice_settings": {"style": 0.5}}, "config.tts_settings.voice_settings.style"),
            ({"voice_settings": [1]}, "config.tts_settings.voice_settings"),
        ]
        for change, field in cases:
            with self.subTest(change=change):
                body = self.body()
                tts = body["config"]["tts_settings"]
                if "service_key" in change:
                    body["service_key"] = change["service_key"]
                elif "model" in change:
                    tts["model_id"] = change["model"]
                else:
                    tts.update(change)
                errors = self.assertValidation(self.server.api("POST", "/templates", self.key, body=body), field)
                self.assertEqual(list(errors), [field], errors)

    def test_a_voice_of_another_service_is_refused(self):
        body = self.body()
        body["config"]["tts_settings"]["voice_id"] = self.voice["provider_b"]
        self.assertValidation(self.server.api("POST", "/templates", self.key, body=body), "config.tts_settings.voice_id")

    def test_messages_follow_the_locale(self):
        r = self.server.api("POST", "/templates", self.key, locale="ru", body={})
        errors = self.assertValidation(r, "name")
        self.assertRegex(r.body["message"], CYRILLIC_RE)
        self.assertRegex(errors["name"][0], CYRILLIC_RE)
        r = self.server.api("POST", "/templates", self.key, body={})
        self.assertEqual(r.body["errors"]["name"], ["The name field is required."])

    def test_name_rules(self):
        for name, ok in (("  Trimmed  ", True), ("Я" * 255, True), ("Я" * 256, False), ("   ", False), (7, False)):
            with self.subTest(name=name if isinstance(name, int) else name[:10]):
                r = self.server.api("POST", "/templates", self.key, body=self.body(name=name))
                if ok:
                    self.assertEqual(self.assertSuccess(r, 201)["name"], name.strip())
                else:
                    self.assertValidation(r, "name")

    def test_malformed_bodies(self):
        r = self.server.api("POST", "/templates", self.key, body="{not json",
                            headers={"Content-Type": "application/json"})
        self.assertValidation(r, "body")
        self.assertValidation(self.server.api("POST", "/templates", self.key, body=[1, 2]), "body")
        created = self.create()
        self.assertValidation(self.server.api("PUT", f"/templates/{created['id']}", self.key, body=[1]), "body")


class TemplateBrowseTests(TemplateCase):

    @classmethod
    def prepare(cls):
        super().prepare()
        cls.browser = cls.h.create_user()
        cls.browser_key = cls.h.create_key(cls.browser["id"], preset="full")["key"]
        for i in range(17):
            r = cls.server.api("POST", "/templates", cls.browser_key, body={
                "service_key": "provider_b", "name": f"T{i:02d}",
                "config": {"tts_settings": {"mode": "mode_v1", "model_id": "b-standard",
                                            "voice_id": cls.voice["provider_b"]}}})
            assert r.status == 201, r

    def browse(self, query=""):
        return self.server.api("GET", "/templates/browse" + query, self.browser_key)

    def test_defaults(self):
        data = self.assertSuccess(self.browse())
        self.assertEqual(set(data), {"items", "current_page", "last_page", "per_page", "total"})
        self.assertEqual(data["current_page"], 1)
        self.assertEqual(data["per_page"], 15)
        self.assertEqual(data["total"], 17)
        self.assertEqual(data["last_page"], 2)
        self.assertEqual(len(data["items"]), 15)
        self.assertEqual(data["items"][0]["name"], "T16", "newest first")
        self.assertEqual(set(data["items"][0]), TEMPLATE_KEYS)

    def test_pages_cover_the_list_once(self):
        seen = []
        for page in (1, 2, 3, 4):
            data = self.assertSuccess(self.browse(f"?page={page}&per_page=5"))
            self.assertEqual(data["last_page"], 4)
            self.assertEqual(data["current_page"], page)
            seen += [t["id"] for t in data["items"]]
        self.assertEqual(len(seen), 17)
        self.assertEqual(len(set(seen)), 17)
        flat = self.assertSuccess(self.server.api("GET", "/templates", self.browser_key))
        self.assertEqual([t["id"] for t in flat], seen)

    def test_bounds(self):
        data = self.assertSuccess(self.browse("?per_page=100"))
        self.assertEqual(len(data["items"]), 17)
        self.assertEqual(data["last_page"], 1)
        data = self.assertSuccess(self.browse("?per_page=1&page=17"))
        self.assertEqual(len(data["items"]), 1)
        beyond = self.assertSuccess(self.browse("?page=99"))
        self.assertEqual(beyond["items"], [])
        self.assertEqual(beyond["current_page"], 99)
        self.assertEqual(beyond["total"], 17)
        for query, field in (("?per_page=0", "per_page"), ("?per_page=101", "per_page"), ("?per_page=-5", "per_page"),
                             ("?per_page=abc", "per_page"), ("?per_page=1.5", "per_page"), ("?page=0", "page"),
                             ("?page=-1", "page"), ("?page=x", "page")):
            with self.subTest(query=query):
                errors = self.assertValidation(self.browse(query), field)
                self.assertEqual(list(errors), [field])
        errors = self.assertValidation(self.browse("?page=0&per_page=1000"), "page", "per_page")
        self.assertEqual(errors["per_page"], ["The per_page field must be between 1 and 100."])

    def test_empty_account(self):
        user = self.h.create_user()
        key = self.h.create_key(user["id"], scopes="templates.read")["key"]
        data = self.assertSuccess(self.server.api("GET", "/templates/browse", key))
        self.assertEqual(data, {"items": [], "current_page": 1, "last_page": 1, "per_page": 15, "total": 0})
        self.assertEqual(self.assertSuccess(self.server.api("GET", "/templates", key)), [])


class TemplateConfigOptionsTests(TemplateCase):

    def test_shape(self):
        data = self.assertSuccess(self.server.api("GET", "/templates/config-options", self.key))
        self.assertEqual(set(data), {"services", "languages", "generation_modes", "currency", "defaults"})
        self.assertEqual([s["key"] for s in data["services"]], ["provider_a", "provider_b", "provider_c", "provider_d"])
        self.assertEqual(data["generation_modes"], ["ordinary", "paragraph"])
        for s in data["services"]:
            self.assertEqual(set(s), {"key", "name", "capacity_unit", "modes", "models", "voice_catalogue"})
            self.assertEqual(s["modes"], [{"mode": "mode_v1", "name": "Standard"}])
            self.assertEqual(s["capacity_unit"], "utf8_bytes" if s["key"] == "provider_d" else "chars")
            for m in s["models"]:
                self.assertEqual(set(m["voice_settings"]), {"stability", "similarity_boost", "use_speaker_boost",
                                                            "speed"})
                self.assertEqual(m["voice_settings"]["speed"], {"type": "number", "min": 0.7, "max": 1.2,
                                                                "default": 1.0})
                self.assertEqual(m["voice_settings"]["use_speaker_boost"], {"type": "boolean", "default": True})
                self.assertIsInstance(m["price_per_1000_tokens_minor"], int)
                self.assertTrue(m["languages"])
        a = {m["model_id"]: m for m in data["services"][0]["models"]}
        self.assertEqual(list(a), ["a-multilingual-v2", "a-v3", "a-v3-turbo", "a-v4", "a-v4-flash"])
        self.assertEqual(a["a-v3"]["settings_without_advanced"], ["stability"])
        self.assertEqual(a["a-v4"]["settings_without_advanced"], ["stability", "similarity_boost"])
        self.assertEqual(a["a-multilingual-v2"]["settings_without_advanced"], a["a-multilingual-v2"]["honoured_settings"])
        self.assertEqual(a["a-v3"]["generation"], 3)
        self.assertEqual(data["services"][3]["models"][0]["capacity"], 4000)
        self.assertEqual([m["model_id"] for m in data["services"][2]["models"]], ["c-one", "c-two", "c-three"])

    def test_names_follow_the_locale(self):
        en = self.assertSuccess(self.server.api("GET", "/templates/config-options", self.key))
        ru = self.assertSuccess(self.server.api("GET", "/templates/config-options", self.key, locale="ru"))
        self.assertEqual([l["code"] for l in en["languages"]], [l["code"] for l in ru["languages"]])
        names_en = {l["code"]: l["name"] for l in en["languages"]}
        names_ru = {l["code"]: l["name"] for l in ru["languages"]}
        self.assertEqual(names_en["ru"], "Russian")
        self.assertEqual(names_ru["ru"], "Русский")
        self.assertEqual(names_ru["de"], "Немецкий")


class TemplatePermissionTests(TemplateCase):

    def test_read_and_write_are_separate(self):
        created = self.create(name="Perm")
        tid = created["id"]
        reader = self.h.create_key(self.user["id"], scopes="templates.read")["key"]
        writer = self.h.create_key(self.user["id"], scopes="templates.write")["key"]
        voices_only = self.h.create_key(self.user["id"], scopes="voices.read")["key"]
        automation = self.h.create_key(self.user["id"], preset="automation")["key"]
        reads = [("GET", "/templates"), ("GET", "/templates/browse"), ("GET", "/templates/config-options"),
                 ("GET", f"/templates/{tid}")]
        writes = [("POST", "/templates", self.body(name="New")), ("PUT", f"/templates/{tid}", {"name": "P"}),
                  ("PATCH", f"/templates/{tid}", {"name": "Q"})]
        for method, path in reads:
            with self.subTest(method=method, path=path):
                self.assertSuccess(self.server.api(method, path, reader))
                self.assertSuccess(self.server.api(method, path, automation))
                self.assert403(self.server.api(method, path, writer), "templates.read")
                self.assert403(self.server.api(method, path, voices_only), "templates.read")
        for method, path, body in writes:
            with self.subTest(method=method, path=path):
                self.assert403(self.server.api(method, path, reader, body=body), "templates.write")
                self.assert403(self.server.api(method, path, automation, body=body), "templates.write")
                r = self.server.api(method, path, writer, body=body)
                self.assertIn(r.status, (200, 201), r)
        self.assert403(self.server.api("DELETE", f"/templates/{tid}", reader), "templates.write")
        self.assertSuccess(self.server.api("DELETE", f"/templates/{tid}", writer))


if __name__ == "__main__":
    unittest.main()
