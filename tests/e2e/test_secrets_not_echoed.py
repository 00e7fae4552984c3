"""A password in MEDIAGEN_REDIS_URL or MEDIAGEN_DATABASE_URL never reaches the output: not in the
error of a URL that cannot be used, not in the log of a server whose Redis refuses it."""

import socket
import unittest
import urllib.parse

from harness import API, E2ETestCase

PASSWORD = "Pw4e2eNeverShown"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SecretsNotEchoedTests(E2ETestCase):
    start_server = False

    def assertNotShown(self, output: str, label: str):
        self.assertTrue(output.strip(), f"{label}: nothing was printed")
        for form in (PASSWORD, PASSWORD[:8], urllib.parse.quote(PASSWORD)):
            self.assertNotIn(form, output, f"{label}: the password appears in\n{output}")

    def run_binary(self, *args, **env):
        p = self.h.run_cli(*args, extra_env=env, timeout=60)
        return p.returncode, p.stdout + p.stderr

    def test_an_unusable_redis_url_is_refused_without_its_password(self):
        for url in (f"rediss://:{PASSWORD}@127.0.0.1:6379/0", f"http://user:{PASSWORD}@cache",
                    f"{PASSWORD}@127.0.0.1"):
            for command in (("serve",), ("migrate",)):
                with self.subTest(url=url, command=command):
                    code, output = self.run_binary(*command, MEDIAGEN_REDIS_URL=url)
                    self.assertEqual(code, 2, output)
                    self.assertIn("MEDIAGEN_REDIS_URL", output)
                    self.assertIn("***", output)
                    self.assertNotShown(output, url)

    def test_an_unusable_database_url_is_refused_without_its_password(self):
        dead = free_port()
        for url in (f"postgresql://mg:{PASSWORD}%zz@127.0.0.1/mediagen",     # libpq quotes the bad token
                    f"postgresql://mg:{PASSWORD}@127.0.0.1:badport/mediagen",
                    f"postgresql://mg:{PASSWORD}@127.0.0.1:{dead}/mediagen",
                    f"postgresql://127.0.0.1:{dead}/mediagen?password={PASSWORD}",
                    f"host=127.0.0.1 port={dead} password='{PASSWORD}",          # unterminated quote
                    f"host=127.0.0.1 port={dead} password={PASSWORD} bogus"):
            for command in (("migrate",), ("serve",), ("admin", "seed-demo")):
                with self.subTest(url=url, command=command):
                    code, output = self.run_binary(*command, MEDIAGEN_DATABASE_URL=url)
                    self.assertNotEqual(code, 0, output)
                    self.assertNotShown(output, url)

    def test_a_redis_that_refuses_the_password_is_logged_without_it(self):
        self.h.migrate()
        redis = urllib.parse.urlsplit(self.h.redis_url)
        # The test Redis has no password: AUTH fails on every connection.
        url = f"redis://:{PASSWORD}@{redis.hostname}:{redis.port}/0"
        server = self.h.start_server({"MEDIAGEN_REDIS_URL": url})
        server.request("GET", "/readyz", admin=True)
        server.request("GET", f"{API}/user")
        server.stop()
        self.assertNotShown("\n".join(server.log_lines() + server.stdout_lines), url)


if __name__ == "__main__":
    unittest.main()
