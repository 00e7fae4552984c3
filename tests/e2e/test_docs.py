"""The contract served: GET /docs in a real browser, the raw descriptions, and the 404 links.

Headless Chromium (Debian's `chromium`) is driven through playwright-core by
docs_browser/check_docs.mjs: the page must render every operation of the description the server
serves (read from that YAML, not listed here), and no request of the page may leave the server.
A full-page screenshot is kept under the build folder (its path is printed).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import urllib.parse

from harness import E2ETestCase, fresh_ip
from programs import program

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
BROWSER_DIR = os.path.join(HERE, "docs_browser")
PUBLIC_URL = "https://docs-e2e.example:8443"
YAML_CT = "application/yaml; charset=utf-8"


def repo_file(name: str) -> bytes:
    with open(os.path.join(ROOT, "openapi", name), "rb") as f:
        return f.read()


# The OpenAPI descriptions the build embeds: English and Russian.
DESCRIPTIONS = ["openapi.yaml", "openapi.ru.yaml"]


def artifact_dir() -> str:
    """Beside the binary under test (the build folder), so a CI run keeps it with the build."""
    d = os.path.join(os.path.dirname(os.path.abspath(os.environ["MEDIAGEN_BIN"])), "test-artifacts", "docs")
    os.makedirs(d, exist_ok=True)
    return d


class DocsTests(E2ETestCase):
    server_env = {"MEDIAGEN_PUBLIC_URL": PUBLIC_URL}

    @classmethod
    def prepare(cls):
        p = subprocess.run([program("bash"), os.path.join(BROWSER_DIR, "ensure.sh")], capture_output=True,
                           text=True, timeout=600, stdin=subprocess.DEVNULL)
        if p.returncode != 0:
            raise AssertionError(f"docs_browser/ensure.sh failed ({p.returncode}): {p.stderr[-2000:]}")

    def base(self) -> str:
        host, port = self.server.public
        return f"http://{host}:{port}"

    def browse(self, page: str, spec: str, shot_name: str) -> dict:
        profile = tempfile.mkdtemp(prefix="mg-docs-chromium-")
        try:
            shot = os.path.join(artifact_dir(), shot_name)
            p = subprocess.run(
                [program("node"), os.path.join(BROWSER_DIR, "check_docs.mjs"), "--base", self.base(),
                 "--page", page, "--spec", spec, "--screenshot", shot, "--profile", profile,
                 "--chromium", program("chromium")],
                capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL, cwd=BROWSER_DIR)
            self.assertEqual(p.returncode, 0, p.stderr[-4000:])
            result = json.loads(p.stdout)
            print(f"docs screenshot: {result['screenshot']}")
            return result
        finally:
            shutil.rmtree(profile, ignore_errors=True)

    def assert_rendered(self, result: dict):
        self.assertEqual(result["status"], 200)
        ops = result["operations"]
        self.assertGreater(len(ops), 0)
        ids = [o["operationId"] for o in ops]
        self.assertNotIn(None, ids, "every operation of the description has an operationId")
        self.assertEqual(len(set(ids)), len(ids))
        # Every operation the YAML describes has its section in the DOM, and none other.
        self.assertEqual(sorted(set(result["rendered"])), sorted(ids))
        self.assertEqual(result["paths_missing"], [])
        self.assertEqual(result["errors"], [])
        self.assertEqual(result["failed"], [])
        self.assertGreater(os.path.getsize(result["screenshot"]), 10_000)

    def assert_stays_local(self, result: dict):
        host, port = self.server.public
        self.assertGreater(len(result["requests"]), 0)
        foreign = []
        for url in result["requests"]:
            u = urllib.parse.urlsplit(url)
            if u.scheme in ("data", "blob"):
                continue  # made in the page, not fetched
            if (u.scheme, u.hostname, u.port) != ("http", host, port):
                foreign.append(url)
        self.assertEqual(foreign, [], "requests that left the server")

    # ------------------------------------------------------------------ the page in a browser

    def test_page_renders_every_operation_without_leaving_the_machine(self):
        result = self.browse("/docs", "/docs/openapi.yaml", "docs.png")
        self.assert_rendered(result)
        self.assert_stays_local(result)
        paths = [urllib.parse.urlsplit(u).path for u in result["requests"]]
        self.assertIn("/docs/redoc.standalone.js", paths)
        self.assertIn("/docs/openapi.yaml", paths)
        # The 404 body's developers link lands on a section the page has.
        r = self.server.request("GET", "/api/no-such-route", {"X-Forwarded-For": fresh_ip()})
        fragment = urllib.parse.urlsplit(r.body["developers"]).fragment
        self.assertIn(fragment, result["sections"])

    def test_each_language_renders(self):
        for name in DESCRIPTIONS:
            with self.subTest(description=name):
                page = "/docs" if name == "openapi.yaml" else "/docs/ru"
                result = self.browse(page, "/docs/" + name, name.replace(".yaml", ".png"))
                self.assert_rendered(result)
                self.assert_stays_local(result)

    # ------------------------------------------------------------------ raw files and page

    def test_raw_descriptions_are_the_repository_files(self):
        for name in DESCRIPTIONS + ["asyncapi.yaml"]:
            with self.subTest(name=name):
                r = self.server.request("GET", "/docs/" + name)
                self.assertEqual(r.status, 200, r)
                self.assertEqual(r.headers["content-type"], YAML_CT)
                self.assertEqual(r.raw, repo_file(name))
                self.assertEqual(r.headers["cache-control"], "no-cache")
                tag = r.headers["etag"]
                again = self.server.request("GET", "/docs/" + name, {"If-None-Match": tag})
                self.assertEqual(again.status, 304, again)
                self.assertEqual(again.raw, b"")
                head = self.server.request("HEAD", "/docs/" + name)
                self.assertEqual(head.status, 200)
                self.assertEqual(head.raw, b"")
                self.assertEqual(int(head.headers["content-length"]), len(repo_file(name)))
                self.assertEqual(head.headers["etag"], tag)

    def test_page_links_the_other_descriptions(self):
        r = self.server.request("GET", "/docs")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.headers["content-type"], "text/html; charset=utf-8")
        page = r.raw.decode("utf-8")
        self.assertIn('href="/docs/asyncapi.yaml"', page)
        self.assertIn('href="/docs/openapi.ru.yaml"', page)
        ru = self.server.request("GET", "/docs/ru")
        self.assertEqual(ru.status, 200, ru)
        self.assertIn('/docs/openapi.ru.yaml', ru.raw.decode("utf-8"))

    def test_no_key_no_rate_window_and_405(self):
        # Far more than a key's window would allow: the routes are open and count toward nothing.
        for _ in range(30):
            self.assertEqual(self.server.request("HEAD", "/docs").status, 200)
        r = self.server.request("POST", "/docs/openapi.yaml", body="x")
        self.assertEqual(r.status, 405, r)
        self.assertEqual(r.headers["allow"], "GET, HEAD")

    def test_404_links_point_at_this_servers_documentation(self):
        r = self.server.request("GET", "/api/no-such-route", {"X-Forwarded-For": fresh_ip()})
        self.assertEqual(r.status, 404, r)
        self.assertEqual(r.body["docs"], PUBLIC_URL + "/docs")
        self.assertEqual(r.body["developers"], PUBLIC_URL + "/docs#section/Conventions")


class ExplicitDocsLinksTests(E2ETestCase):
    server_env = {"MEDIAGEN_PUBLIC_URL": PUBLIC_URL, "MEDIAGEN_DOCS_URL": "https://elsewhere.example/api-docs",
                  "MEDIAGEN_DEVELOPERS_URL": "https://elsewhere.example/developers"}

    def test_explicit_links_win(self):
        r = self.server.request("GET", "/nope", {"X-Forwarded-For": fresh_ip()})
        self.assertEqual(r.status, 404, r)
        self.assertEqual(r.body["docs"], "https://elsewhere.example/api-docs")
        self.assertEqual(r.body["developers"], "https://elsewhere.example/developers")
