"""Voice catalogues (spec 2.6, 4.5): both list shapes and their paging bounds, tags in en/ru,
the voice record, provider_b filters and the voices.read permission, over HTTP against the
demo catalogue seeded from the installed espeak-ng voices."""

import re
import unittest

from harness import E2ETestCase, CYRILLIC_RE

UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
VOICE_KEYS = {"id", "voice_id", "service", "category", "name", "language", "locale", "accent", "gender", "tags",
              "preview_path", "public"}
SHAPE1 = {"items", "current_page", "last_page", "per_page", "total"}
SHAPE2 = {"voices", "total", "page", "page_size", "has_more"}
ID_FORMATS = {
    "provider_a": re.compile(r"^[A-Za-z0-9]{20}$"),
    "provider_b": re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$"),
    "provider_c": UUID_RE,
    "provider_d": re.compile(r"^[0-9a-f]{32}$"),
}
SHAPE1_ROUTES = ("/voices", "/voices/library", "/voices/public", "/voices/provider_c", "/voices/provider_d")


class VoiceCase(E2ETestCase):

    @classmethod
    def prepare(cls):
        cls.seed = cls.h.cli("admin", "seed-demo", "--skip-voice-features")
        cls.user = cls.h.create_user()
        cls.key = cls.h.create_key(cls.user["id"], scopes="voices.read")["key"]

    def get(self, path, **kw):
        return self.server.api("GET", path, self.key, **kw)

    def data(self, path, **kw):
        return self.assertSuccess(self.get(path, **kw))

    def assertValidation(self, r, field):
        self.assertEqual(r.status, 422, r)
        self.assertEqual(set(r.body), {"message", "errors"}, r)
        self.assertEqual(list(r.body["errors"]), [field], r)

    def assertVoice(self, v, service=None):
        self.assertEqual(set(v), VOICE_KEYS, v)
        self.assertRegex(v["id"], UUID_RE)
        self.assertIn(v["service"], ID_FORMATS)
        if service:
            self.assertEqual(v["service"], service)
        self.assertRegex(v["voice_id"], ID_FORMATS[v["service"]])
        self.assertEqual(v["category"], "catalogue")
        self.assertTrue(v["name"])
        self.assertIn(v["gender"], ("male", "female", "neutral"))
        self.assertIsInstance(v["tags"], list)
        self.assertEqual(v["preview_path"], f"voices/{v['service']}/{v['voice_id']}.mp3")
        self.assertIsInstance(v["public"], bool)


class ShapeOneTests(VoiceCase):

    def test_seed_reports_the_catalogue(self):
        self.assertEqual(set(self.seed["voices"]), set(ID_FORMATS))
        for service, count in self.seed["voices"].items():
            self.assertGreater(count, 0, service)
        self.assertIn("currency_assets", self.seed)
        self.assertIn("plans", self.seed)

    def test_defaults_and_records(self):
        for path in SHAPE1_ROUTES:
            with self.subTest(path=path):
                data = self.data(path)
                self.assertEqual(set(data), SHAPE1)
                self.assertEqual(data["current_page"], 1)
                self.assertEqual(data["per_page"], 20)
                self.assertEqual(len(data["items"]), min(20, data["total"]))
                self.assertEqual(data["last_page"], max(1, -(-data["total"] // 20)))
                for v in data["items"]:
                    self.assertVoice(v, path.rsplit("/", 1)[1] if "provider_" in path else None)

    def test_what_each_list_holds(self):
        everything = self.data("/voices?per_page=1")["total"]
        self.assertEqual(everything, sum(self.seed["voices"].values()))
        self.assertEqual(self.data("/voices/library?per_page=1")["total"], everything)
        public = self.data("/voices/public?per_page=100")
        self.assertLess(public["total"], everything)
        self.assertTrue(all(v["public"] for v in public["items"]))
        self.assertEqual(self.data("/voices/provider_c?per_page=1")["total"], self.seed["voices"]["provider_c"])
        self.assertEqual(self.data("/voices/provider_d?per_page=1")["total"], self.seed["voices"]["provider_d"])
        hidden = self.data("/voices?tag=robotic&per_page=100")
        self.assertGreater(hidden["total"], 0)
        self.assertTrue(all(not v["public"] and "robotic" in v["tags"] for v in hidden["items"]))
        self.assertEqual(self.data("/voices/public?tag=robotic")["total"], 0)

    def test_filters(self):
        data = self.data("/voices?service=provider_b&language=ru&gender=female&per_page=100")
        self.assertGreater(data["total"], 0)
        for v in data["items"]:
            self.assertEqual((v["service"], v["language"], v["gender"]), ("provider_b", "ru", "female"))
        data = self.data("/voices/provider_d?language=ru")
        self.assertTrue(data["items"])
        self.assertTrue(all(v["language"] == "ru" for v in data["items"]))
        data = self.data("/voices?search=ALICIA&per_page=5")
        self.assertTrue(all(v["name"] == "Alicia" for v in data["items"]))
        for q in ("service=provider_x", "language=xx", "gender=other", "tag=nope", "locale=en-zz"):
            with self.subTest(q=q):
                self.assertEqual(self.data(f"/voices?{q}")["items"], [])
        # A filter that is not UTF-8 text is refused, naming it (openapi: text from outside).
        r = self.get("/voices?search=%FF%FE")
        self.assertEqual(r.status, 422, r)
        self.assertEqual(list(r.body["errors"]), ["search"])
        # provider_c's list is provider_c's, whatever the query says.
        data = self.data("/voices/provider_c?service=provider_a")
        self.assertTrue(all(v["service"] == "provider_c" for v in data["items"]))

    def test_pages(self):
        total = self.data("/voices/provider_d?per_page=1")["total"]
        seen = []
        page = 1
        while True:
            data = self.data(f"/voices/provider_d?page={page}&per_page=7")
            self.assertEqual(data["current_page"], page)
            seen += [v["id"] for v in data["items"]]
            if data["current_page"] == data["last_page"]:
                break
            page += 1
        self.assertEqual(len(seen), total)
        self.assertEqual(len(set(seen)), total)
        beyond = self.data("/voices/provider_d?page=1000&per_page=7")
        self.assertEqual(beyond["items"], [])
        self.assertEqual(beyond["total"], total)
        self.assertEqual(len(self.data("/voices?per_page=100")["items"]), 100)

    def test_page_bounds_are_422(self):
        for path in SHAPE1_ROUTES:
            for query, field in (("page=0", "page"), ("page=-1", "page"), ("page=one", "page"),
                                 ("per_page=0", "per_page"), ("per_page=101", "per_page"),
                                 ("per_page=2.5", "per_page")):
                with self.subTest(path=path, query=query):
                    self.assertValidation(self.get(f"{path}?{query}"), field)


class ShapeTwoTests(VoiceCase):

    def test_provider_a_library(self):
        data = self.data("/voices/provider_a/library")
        self.assertEqual(set(data), SHAPE2)
        self.assertEqual(data["page"], 0)
        self.assertEqual(data["page_size"], 30)
        self.assertEqual(len(data["voices"]), 30)
        self.assertEqual(data["total"], 30, "provider_a: total counts the voices on this page")
        self.assertIs(data["has_more"], True)
        for v in data["voices"]:
            self.assertVoice(v, "provider_a")
            self.assertIn("multilingual", v["tags"])
        count = self.seed["voices"]["provider_a"]
        last = (count - 1) // 100
        tail = self.data(f"/voices/provider_a/library?page={last}&page_size=100")
        self.assertEqual(tail["total"], count - last * 100)
        self.assertEqual(len(tail["voices"]), tail["total"])
        self.assertIs(tail["has_more"], False)
        beyond = self.data(f"/voices/provider_a/library?page={last + 1}&page_size=100")
        self.assertEqual((beyond["voices"], beyond["total"], beyond["has_more"]), ([], 0, False))
        first = self.data("/voices/provider_a/library?page=0&page_size=1")
        second = self.data("/voices/provider_a/library?page=1&page_size=1")
        self.assertNotEqual(first["voices"][0]["id"], second["voices"][0]["id"])

    def test_provider_b(self):
        data = self.data("/voices/provider_b")
        self.assertEqual(set(data), SHAPE2)
        self.assertEqual((data["page"], data["page_size"]), (0, 55))
        self.assertEqual(len(data["voices"]), 55)
        self.assertEqual(data["total"], self.seed["voices"]["provider_b"], "provider_b: total counts every match")
        self.assertIs(data["has_more"], True)
        for v in data["voices"]:
            self.assertVoice(v, "provider_b")
            self.assertTrue(v["voice_id"].startswith(v["locale"] + "-"), v)
        # Walk a filtered list to its end: total stays the match count, has_more turns false.
        ru = self.data("/voices/provider_b?language=ru&page_size=200")
        seen = [v["voice_id"] for v in ru["voices"]]
        page = 0
        while ru["has_more"]:
            page += 1
            ru = self.data(f"/voices/provider_b?language=ru&page_size=200&page={page}")
            seen += [v["voice_id"] for v in ru["voices"]]
        self.assertEqual(len(seen), ru["total"])
        self.assertEqual(len(set(seen)), len(seen))
        small = self.data("/voices/provider_b?language=ru&page_size=7&page=1")
        self.assertEqual(small["total"], ru["total"])
        self.assertEqual([v["voice_id"] for v in small["voices"]], seen[7:14])

    def test_page_bounds_are_422(self):
        cases = {
            "/voices/provider_a/library": (("page=-1", "page"), ("page=x", "page"), ("page_size=0", "page_size"),
                                           ("page_size=101", "page_size"), ("page_size=-3", "page_size")),
            "/voices/provider_b": (("page=-1", "page"), ("page=0.5", "page"), ("page_size=0", "page_size"),
                                   ("page_size=201", "page_size"), ("page_size=abc", "page_size")),
        }
        for path, queries in cases.items():
            for query, field in queries:
                with self.subTest(path=path, query=query):
                    self.assertValidation(self.get(f"{path}?{query}"), field)
        self.assertEqual(len(self.data("/voices/provider_a/library?page_size=100")["voices"]), 100)
        self.assertEqual(len(self.data("/voices/provider_b?page_size=200")["voices"]), 200)
        self.assertEqual(len(self.data("/voices/provider_b?page_size=1")["voices"]), 1)
        r = self.get("/voices/provider_b?page=-1&page_size=500")
        self.assertEqual(r.status, 422)
        self.assertEqual(set(r.body["errors"]), {"page", "page_size"})


class ReferenceListTests(VoiceCase):

    def test_tags_in_both_languages(self):
        en = self.data("/voices/tags")
        ru = self.data("/voices/tags", locale="ru")
        self.assertIsInstance(en, list)
        self.assertEqual([t["code"] for t in en], [t["code"] for t in ru])
        for t in en + ru:
            self.assertEqual(set(t), {"code", "name"})
        names_en = {t["code"]: t["name"] for t in en}
        names_ru = {t["code"]: t["name"] for t in ru}
        self.assertEqual(names_en["female"], "Female")
        self.assertEqual(names_ru["female"], "Женский")
        for code in names_ru:
            self.assertRegex(names_ru[code], CYRILLIC_RE, code)
        # Every tag a voice carries is in the list.
        used = set()
        for v in self.data("/voices?per_page=100")["items"]:
            used.update(v["tags"])
        self.assertLessEqual(used, set(names_en))

    def test_provider_b_filters(self):
        en = self.data("/voices/provider_b/filters")
        ru = self.data("/voices/provider_b/filters", locale="ru")
        self.assertIsInstance(en, list)
        for f in en:
            self.assertEqual(set(f), {"type", "value", "name", "count"})
            self.assertIn(f["type"], ("language", "gender"))
        total = self.seed["voices"]["provider_b"]
        self.assertEqual(sum(f["count"] for f in en if f["type"] == "language"), total)
        self.assertEqual(sum(f["count"] for f in en if f["type"] == "gender"), total)
        ru_lang = [f for f in ru if f["type"] == "language" and f["value"] == "ru"][0]
        self.assertEqual(ru_lang["name"], "Русский")
        en_lang = [f for f in en if f["type"] == "language" and f["value"] == "ru"][0]
        self.assertEqual(en_lang["name"], "Russian")
        # A filter value narrows the list to exactly its count.
        for f in en:
            with self.subTest(f=f):
                data = self.data(f"/voices/provider_b?{f['type']}={f['value']}&page_size=1")
                self.assertEqual(data["total"], f["count"])

    def test_voice_by_global_id(self):
        for path, field in (("/voices/provider_a/library?page_size=1", "voices"), ("/voices/provider_b?page_size=1", "voices"),
                            ("/voices/provider_c?per_page=1", "items"), ("/voices/provider_d?per_page=1", "items")):
            listed = self.data(path)[field][0]
            with self.subTest(service=listed["service"]):
                self.assertEqual(self.data(f"/voices/{listed['id']}"), listed)
                self.assertEqual(self.data(f"/voices/{listed['id'].upper()}"), listed)
        for bad in ("00000000-0000-4000-8000-000000000000", "nope", "provider_e", "123"):
            with self.subTest(bad=bad):
                r = self.get(f"/voices/{bad}")
                body = self.assertJsonResponse(r, 404)
                self.assertIs(body["success"], False)

    def test_a_listed_voice_works_in_a_template(self):
        user = self.h.create_user()
        key = self.h.create_key(user["id"], preset="full")["key"]
        for service, model, path, field in (("provider_b", "b-standard", "/voices/provider_b?language=de", "voices"),
                                            ("provider_d", "d-base", "/voices/provider_d?language=ru", "items")):
            with self.subTest(service=service):
                voice = self.data(path)[field][0]
                r = self.server.api("POST", "/templates", key, body={
                    "service_key": service, "name": "From the catalogue",
                    "config": {"tts_settings": {"mode": "mode_v1", "model_id": model, "voice_id": voice["voice_id"]}}})
                self.assertSuccess(r, 201)


class VoicePermissionTests(VoiceCase):

    def test_voices_read_is_needed_everywhere(self):
        voice = self.data("/voices?per_page=1")["items"][0]
        paths = SHAPE1_ROUTES + ("/voices/tags", f"/voices/{voice['id']}", "/voices/provider_a/library",
                                 "/voices/provider_b", "/voices/provider_b/filters")
        others = {scope: self.h.create_key(self.user["id"], scopes=scope)["key"]
                  for scope in ("templates.read", "orders.read", "voices.write")}
        read_only = self.h.create_key(self.user["id"], preset="read_only")["key"]
        for path in paths:
            with self.subTest(path=path):
                self.assertSuccess(self.get(path))
                self.assertSuccess(self.server.api("GET", path, read_only))
                for scope, key in others.items():
                    self.assert403(self.server.api("GET", path, key), "voices.read")


if __name__ == "__main__":
    unittest.main()
