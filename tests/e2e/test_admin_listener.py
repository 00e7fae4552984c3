"""The operator listener: /healthz, /readyz, /metrics."""

import secrets
import unittest

from harness import E2ETestCase, MSG_503, parse_metrics, metric_sum, poll, json_ct_ok

COUNTERS = ["mediagen_http_requests_total", "mediagen_key_cache_hits_total", "mediagen_key_cache_misses_total",
            "mediagen_db_queries_total", "mediagen_redis_commands_total"]
GAUGES = ["mediagen_blocking_pool_threads", "mediagen_blocking_pool_busy", "mediagen_blocking_pool_queued",
          "mediagen_connections_open"]
HISTOGRAMS = ["mediagen_http_request_duration_seconds"]


class AdminListenerTests(E2ETestCase):

    @classmethod
    def prepare(cls):
        cls.user, cls.key = cls.h.user_and_key("full")

    def test_ports_differ(self):
        self.assertNotEqual(self.server.public_port, self.server.admin_port)
        self.assertEqual(self.server.public[0], "127.0.0.1")
        self.assertEqual(self.server.admin[0], "127.0.0.1")

    def test_healthz(self):
        r = self.server.admin_get("/healthz")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.body, {"status": "ok"})
        self.assertTrue(json_ct_ok(r.headers), r)

    def test_readyz(self):
        r = self.server.admin_get("/readyz")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.body, {"status": "ready", "checks": {"postgres": "ok", "redis": "ok"}})

    def test_metrics_names_and_types(self):
        # make sure the request counters have something to show
        self.assertEqual(self.server.api("GET", "/user", self.key["key"]).status, 200)
        self.assertEqual(self.server.api("GET", "/key", self.key["key"]).status, 200)
        self.assertEqual(self.server.api("GET", "/user").status, 401)
        r = self.server.admin_get("/metrics")
        self.assertEqual(r.status, 200, r)
        self.assertTrue(r.headers.get("content-type", "").startswith("text/plain"), r.headers)
        text = r.raw.decode("utf-8")
        for name in COUNTERS:
            self.assertRegex(text, rf"(?m)^# TYPE {name} counter$")
        for name in GAUGES:
            self.assertRegex(text, rf"(?m)^# TYPE {name} gauge$")
        for name in HISTOGRAMS:
            self.assertRegex(text, rf"(?m)^# TYPE {name} histogram$")
            self.assertRegex(text, rf'(?m)^{name}_bucket\{{.*le="\+Inf".*\}} ')
            self.assertRegex(text, rf"(?m)^{name}_sum[{{ ]")
            self.assertRegex(text, rf"(?m)^{name}_count[{{ ]")
        samples = parse_metrics(text)
        present = {n for n, _, _ in samples}
        for name in COUNTERS + GAUGES:
            self.assertIn(name, present)
        self.assertGreaterEqual(metric_sum(samples, "mediagen_blocking_pool_threads"), 1)
        self.assertGreaterEqual(metric_sum(samples, "mediagen_connections_open"), 0)

    def test_request_counter_route_labels(self):
        before = parse_metrics(self.server.admin_get("/metrics").raw.decode())
        for _ in range(3):
            self.assertEqual(self.server.api("GET", "/user", self.key["key"]).status, 200)
        self.assertEqual(self.server.api("GET", "/user").status, 401)
        after = parse_metrics(self.server.admin_get("/metrics").raw.decode())

        def user_route(samples, status):
            return sum(v for n, lab, v in samples
                       if n == "mediagen_http_requests_total" and lab.get("status") == status
                       and "route" in lab and lab["route"].rstrip("/").endswith("user"))

        self.assertGreaterEqual(user_route(after, "200") - user_route(before, "200"), 3,
                                "no mediagen_http_requests_total{route=...user,status=\"200\"} growth")
        self.assertGreaterEqual(user_route(after, "401") - user_route(before, "401"), 1)
        routes = {lab.get("route") for n, lab, _ in after if n == "mediagen_http_requests_total"}
        self.assertNotIn(None, routes, "a request counter sample without a route label")
        durations = [lab for n, lab, _ in after if n == "mediagen_http_request_duration_seconds_bucket"]
        self.assertTrue(any("route" in lab for lab in durations), "duration histogram has no route label")

    def test_unknown_paths_do_not_explode_label_cardinality(self):
        token = secrets.token_hex(8)
        r = self.server.request("GET", f"/api/cardinality-{token}")
        self.assertEqual(r.status, 404)
        text = self.server.admin_get("/metrics").raw.decode()
        self.assertNotIn(token, text, "raw unknown path used as a metric label")

    def test_admin_paths_not_public(self):
        for path in ("/metrics", "/readyz"):
            with self.subTest(path=path):
                r = self.server.request("GET", path)
                self.assertEqual(r.status, 404, r)
                self.assertEqual(r.body["reason"], "endpoint_not_found")

    def test_public_routes_not_on_admin(self):
        r = self.server.request("GET", "/api/user", {"X-API-KEY": self.key["key"]}, admin=True)
        self.assertEqual(r.status, 404, r)

    def test_connections_gauge_tracks_open_connections(self):
        base = metric_sum(self.server.metrics(), "mediagen_connections_open")
        conns = [self.server.raw() for _ in range(5)]
        try:
            grew = poll(lambda: metric_sum(self.server.metrics(), "mediagen_connections_open") >= base + 5, 2.0)
            self.assertTrue(grew, "mediagen_connections_open does not count 5 new connections")
        finally:
            for c in conns:
                c.close()


class ReadinessTests(E2ETestCase):
    """PostgreSQL going away turns /readyz to 503 and requests into 503; it recovers afterwards."""

    # Without the profile cache GET /user reads PostgreSQL on every call, so it shows the outage
    # (with it, a cached profile would still be served until a change or the TTL dropped it).
    server_env = {"MEDIAGEN_PROFILE_CACHE_TTL_SECONDS": "0"}

    @classmethod
    def prepare(cls):
        cls.user, cls.key = cls.h.user_and_key("full")

    def set_db_reachable(self, on: bool):
        name = self.h.db_name
        if on:
            self.h.admin_psql(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        else:
            self.h.admin_psql(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
            self.h.admin_psql(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                              f"WHERE datname = '{name}' AND pid <> pg_backend_pid()")

    def test_postgres_outage(self):
        self.assertEqual(self.server.admin_get("/readyz").status, 200)
        self.assertSuccess(self.server.api("GET", "/user", self.key["key"]))
        self.set_db_reachable(False)
        try:
            failed = poll(lambda: self.server.admin_get("/readyz").status == 503, timeout=10, interval=0.2)
            self.assertTrue(failed, "/readyz still 200 with the database unreachable")
            r = self.server.admin_get("/readyz")
            self.assertEqual(r.status, 503, r)
            self.assertIsInstance(r.body, dict, r)
            self.assertNotEqual(r.body.get("status"), "ready", r)
            self.assertEqual(r.body.get("checks"), {"postgres": "fail", "redis": "ok"}, r)
            # the profile needs the database: 503 with the fixed body
            r = self.server.api("GET", "/user", self.key["key"])
            self.assertEqual(r.status, 503, r)
            self.assertEqual(r.body, {"success": False, "message": MSG_503})
            self.assertEqual(self.server.admin_get("/healthz").status, 200, "liveness must not depend on the db")
        finally:
            self.set_db_reachable(True)
        ok = poll(lambda: self.server.admin_get("/readyz").status == 200, timeout=15, interval=0.2)
        self.assertTrue(ok, "/readyz did not recover after the database came back")
        recovered = poll(lambda: self.server.api("GET", "/user", self.key["key"]).status == 200, timeout=10,
                         interval=0.2)
        self.assertTrue(recovered, "GET /user did not recover after the database came back")


if __name__ == "__main__":
    unittest.main()
