"""The operator's view: a live /metrics passes `promtool check metrics`, and every metric the
Grafana dashboard (docker/grafana-dashboard.json) queries is one the server exposes.

The server first serves what an operator would see in a day: orders made and failed by workers,
refusals, unknown paths, and the documentation.
"""

from __future__ import annotations

import json
import os
import re
import subprocess

from harness import E2ETestCase, fresh_ip, parse_metrics
from orders_support import OrderFixtures
from programs import program

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DASHBOARD = os.path.join(ROOT, "docker", "grafana-dashboard.json")
FAIL_MARKER = "zzfailmarkerzz"
METRIC_RE = re.compile(r"\bmediagen_[a-z0-9_]+\b")


def dashboard_exprs(dashboard: dict) -> list[tuple[str, str]]:
    """(panel title, expression) of every query of every panel, rows' nested panels included."""
    out = []

    def walk(panels):
        for p in panels:
            walk(p.get("panels", []))
            for t in p.get("targets", []):
                out.append((p.get("title", ""), t.get("expr", "")))

    walk(dashboard["panels"])
    return out


class MetricsPromtoolTests(OrderFixtures, E2ETestCase):
    server_env = {"MEDIAGEN_WORKERS": "2", "MEDIAGEN_SWEEP_INTERVAL_MS": "200",
                  "MEDIAGEN_ENGINE_FAIL_MARKER": FAIL_MARKER}

    @classmethod
    def prepare(cls):
        cls.seed()

    def serve_a_day(self):
        user, key = self.account(balance=10_000_000)
        template = self.template(key)
        made = self.create(key, template, "Hello there. This order is spoken to the end.")
        self.assertEqual(made.status, 201, made)
        broken = self.create(key, template, f"This one fails in the engine: {FAIL_MARKER}.")
        self.assertEqual(broken.status, 201, broken)
        self.wait_order(key, made.body["data"]["id"], ("completed", "result_delivered"))
        self.wait_order(key, broken.body["data"]["id"], ("failed", "partially_completed"))
        self.assertEqual(self.server.api("GET", "/user", "mg_" + "x" * 43).status, 401)
        self.assertEqual(self.server.api("GET", "/no-such-route", ip=fresh_ip()).status, 404)
        self.assertEqual(self.server.request("GET", "/docs").status, 200)
        self.assertEqual(self.server.api("GET", "/user", key).status, 200)

    def scrape(self) -> str:
        r = self.server.admin_get("/metrics")
        self.assertEqual(r.status, 200, r)
        return r.raw.decode("utf-8")

    def test_live_metrics_pass_promtool_and_feed_the_dashboard(self):
        self.serve_a_day()
        text = self.scrape()
        p = subprocess.run([program("promtool"), "check", "metrics"], input=text, capture_output=True, text=True,
                           timeout=60)
        self.assertEqual((p.returncode, p.stdout + p.stderr), (0, ""), text[:4000])

        samples = parse_metrics(text)
        names = {n for n, _, _ in samples}
        completed = sum(v for n, _, v in samples if n == "mediagen_chunks_completed_total")
        failed = {lab["reason"]: v for n, lab, v in samples if n == "mediagen_chunks_failed_total"}
        self.assertGreaterEqual(completed, 1)
        self.assertGreaterEqual(sum(failed.values()), 1, failed)
        self.assertIn("mediagen_chunks_pending", names)
        self.assertEqual(sum(v for n, _, v in samples if n == "mediagen_workers"), 2)

        with open(DASHBOARD, encoding="utf-8") as f:
            dashboard = json.load(f)
        exprs = dashboard_exprs(dashboard)
        self.assertGreater(len(exprs), 0)
        missing = []
        for title, expr in exprs:
            used = METRIC_RE.findall(expr)
            self.assertNotEqual(used, [], f"panel {title!r} queries no mediagen metric: {expr!r}")
            missing += [f"{title}: {m}" for m in used if m not in names]
        self.assertEqual(missing, [], "metrics the dashboard queries that /metrics does not expose")

    def test_dashboard_is_importable(self):
        with open(DASHBOARD, encoding="utf-8") as f:
            dashboard = json.load(f)
        inputs = {i["name"]: i for i in dashboard["__inputs"]}
        self.assertEqual(inputs["DS_PROMETHEUS"]["type"], "datasource")
        self.assertEqual(inputs["DS_PROMETHEUS"]["pluginId"], "prometheus")
        self.assertGreaterEqual(dashboard["schemaVersion"], 36)  # Grafana 9.x/10.x
        uids = set()
        for p in dashboard["panels"]:
            self.assertNotIn(p["id"], uids)
            uids.add(p["id"])
            if p["type"] == "row":
                continue
            self.assertEqual(p["datasource"], {"type": "prometheus", "uid": "${DS_PROMETHEUS}"}, p["title"])
            for t in p["targets"]:
                self.assertEqual(t["datasource"]["uid"], "${DS_PROMETHEUS}", p["title"])
