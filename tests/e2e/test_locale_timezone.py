"""X-Locale and X-Timezone (spec section 5, item 11)."""

import unittest
from zoneinfo import ZoneInfo

from harness import E2ETestCase, ISO_RE, CYRILLIC_RE, fresh_ip, parse_iso

RU_VALUES = ("ru", "ru-RU", "ru_RU")
EN_VALUES = ("en", "en-US", "en_US", "en-GB")
GARBAGE_VALUES = ("de", "zz", "fr-FR", "", "*", "../../etc/passwd", "x" * 300)


def offset_of(zone: str, instant) -> str:
    off = instant.astimezone(ZoneInfo(zone)).utcoffset()
    minutes = int(off.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    minutes = abs(minutes)
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


class LocaleTests(E2ETestCase):
    server_env = {"MEDIAGEN_TRUSTED_PROXIES": "127.0.0.1"}

    @classmethod
    def prepare(cls):
        cls.user = cls.h.create_user(locale="en", balance=500)
        cls.key = cls.h.create_key(cls.user["id"], preset="full")
        cls.no_profile = cls.h.create_key(cls.user["id"], scopes="orders.read")

    def test_401_locales(self):
        for value in RU_VALUES:
            with self.subTest(locale=value):
                self.assert401(self.server.api("GET", "/user", locale=value), "missing", "ru")
                self.assert401(self.server.api("GET", "/user", "mg_" + "D" * 43, locale=value), "invalid", "ru")
        for value in EN_VALUES + GARBAGE_VALUES:
            with self.subTest(locale=value[:20]):
                self.assert401(self.server.api("GET", "/user", locale=value), "missing", "en")
                self.assert401(self.server.api("GET", "/user", "mg_" + "D" * 43, locale=value), "invalid", "en")

    def test_403_locales(self):
        for value in RU_VALUES:
            with self.subTest(locale=value):
                self.assert403(self.server.api("GET", "/user", self.no_profile["key"], locale=value),
                               "profile.read", "ru")
        for value in EN_VALUES + GARBAGE_VALUES:
            with self.subTest(locale=value[:20]):
                self.assert403(self.server.api("GET", "/user", self.no_profile["key"], locale=value),
                               "profile.read", "en")

    def test_404_locales(self):
        en = self.server.api("GET", "/api/missing-thing", ip=fresh_ip()).body
        for value in RU_VALUES:
            with self.subTest(locale=value):
                ru = self.server.api("GET", "/api/missing-thing", ip=fresh_ip(), locale=value).body
                self.assertRegex(ru["message"], CYRILLIC_RE)
                self.assertEqual(ru["message_en"], en["message"])
                for f in ("reason", "error_code", "method", "path", "docs", "developers"):
                    self.assertEqual(ru[f], en[f], f)
        for value in GARBAGE_VALUES:
            with self.subTest(locale=value[:20]):
                g = self.server.api("GET", "/api/missing-thing", ip=fresh_ip(), locale=value).body
                self.assertEqual(g, en)

    def test_success_message_locales(self):
        en = self.server.api("GET", "/user", self.key["key"], locale="en").body
        plain = self.server.api("GET", "/user", self.key["key"]).body
        ru = self.server.api("GET", "/user", self.key["key"], locale="ru").body
        garbage = self.server.api("GET", "/user", self.key["key"], locale="xx-YY").body
        self.assertNotRegex(en["message"], CYRILLIC_RE)
        self.assertRegex(ru["message"], CYRILLIC_RE)
        self.assertEqual(plain["message"], en["message"])
        self.assertEqual(garbage["message"], en["message"])
        self.assertEqual(ru["data"], en["data"], "machine fields must not depend on the locale")
        self.assertEqual(ru["success"], en["success"])
        ken = self.server.api("GET", "/key", self.key["key"], locale="en").body
        kru = self.server.api("GET", "/key", self.key["key"], locale="ru").body
        self.assertEqual(ken["data"], kru["data"])
        self.assertRegex(kru["message"], CYRILLIC_RE)


class TimezoneTests(E2ETestCase):

    @classmethod
    def prepare(cls):
        cls.user = cls.h.create_user()
        cls.key = cls.h.create_key(cls.user["id"], preset="full", expires_at="2099-01-15T10:00:00+00:00")
        r = cls.server.api("GET", "/user", cls.key["key"])
        assert r.status == 200, r
        cls.utc_profile = r.body["data"]

    def get(self, tz):
        return self.server.api("GET", "/user", self.key["key"], tz=tz)

    def check_zone(self, tz, expected_header, expected_suffix=None):
        r = self.get(tz)
        data = self.assertSuccess(r)
        self.assertEqual(r.headers.get("x-timezone"), expected_header, r)
        for field in ("created_at", "updated_at"):
            value = data[field]
            self.assertRegex(value, ISO_RE)
            suffix = expected_suffix or offset_of(expected_header, parse_iso(self.utc_profile[field]))
            self.assertTrue(value.endswith(suffix), f"{field}={value} for {tz!r}, expected {suffix}")
            self.assertEqual(parse_iso(value), parse_iso(self.utc_profile[field]), "not the same instant")
        return r

    def test_absent_is_utc(self):
        r = self.server.api("GET", "/user", self.key["key"])
        self.assertEqual(r.headers.get("x-timezone"), "UTC")
        self.assertTrue(r.body["data"]["created_at"].endswith("+00:00"))

    def test_moscow(self):
        self.check_zone("Europe/Moscow", "Europe/Moscow", "+03:00")

    def test_kathmandu(self):
        self.check_zone("Asia/Kathmandu", "Asia/Kathmandu", "+05:45")

    def test_other_zones(self):
        for tz in ("America/New_York", "Australia/Adelaide", "Pacific/Chatham", "America/St_Johns",
                   "Asia/Kolkata", "UTC"):
            with self.subTest(tz=tz):
                self.check_zone(tz, tz)

    def test_invalid_zones_fall_back_to_utc(self):
        for tz in ("+03:00", "UTC+3", "GMT+3", "+0300", "3", "../../etc/passwd", "/etc/passwd",
                   "Europe/Moscow/../../../etc/passwd", "Europe/Nowhere", "Moscow", "", " ",
                   "x" * 5000, "Europe/Moscow\tX"):
            with self.subTest(tz=tz[:30]):
                self.check_zone(tz, "UTC", "+00:00")

    def test_key_times_converted(self):
        r = self.server.api("GET", "/key", self.key["key"], tz="Europe/Moscow")
        data = self.assertSuccess(r)
        self.assertEqual(r.headers.get("x-timezone"), "Europe/Moscow")
        self.assertEqual(data["expires_at"], "2099-01-15T13:00:00+03:00")
        self.assertTrue(data["created_at"].endswith("+03:00"), data["created_at"])
        r = self.server.api("GET", "/key", self.key["key"], tz="Asia/Kathmandu")
        self.assertEqual(r.body["data"]["expires_at"], "2099-01-15T15:45:00+05:45")
        r = self.server.api("GET", "/key", self.key["key"])
        self.assertEqual(r.body["data"]["expires_at"], "2099-01-15T10:00:00+00:00")


if __name__ == "__main__":
    unittest.main()
