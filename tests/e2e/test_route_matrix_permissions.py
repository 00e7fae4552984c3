"""T12: every route of openapi/openapi.yaml x every permission (spec 5.5-5.10).

The routes and their permissions are read from openapi.yaml (`x-required-permission`), so a new
route is called here without anyone adding it (and route_matrix.lint() fails until it has a
row). Keys holding exactly one of the 11 permissions, `*`, no permission, and the presets
read_only, automation and full call every route with real objects of their own account: only
the keys the permission opens get past the check; every other gets 403 {success: false,
message, data: null} and nothing runs (spec 5.6): no row of any table changes and no Redis key,
the key's request-rate windows included (a 403 spends nothing). No key, an unknown key and a
disabled key get 401 alike and write no row. The OpenAI-compatible routes read the key from
`Authorization: Bearer` and refuse in OpenAI's shape, the ElevenLabs-compatible ones read `xi-api-key`
and refuse in its shape; keyless routes answer every key alike.
"""

import secrets
import unittest

from harness import MSG, E2ETestCase
from matrix_support import AccountFixtures, call, db_fingerprint, redis_state, redis_unchanged, table_diff
from realtime_support import realtime_env
from route_matrix import KEY_PRESETS, KEY_SCOPES, Bearer, Keyed, Keyless, XiKey, operations, opens
from route_matrix_rows import PERMISSIONS


class PermissionMatrixTests(AccountFixtures, E2ETestCase):
    server_env = realtime_env(MEDIAGEN_WORKERS=2, MEDIAGEN_SWEEP_INTERVAL_MS=200)

    @classmethod
    def prepare(cls):
        cls.seed_catalogue()
        cls.fx = cls.make_account("owner")
        uid = cls.fx["user_id"]
        # name -> (key, scopes); each with a request window, so a call that got past the
        # permission check would leave a counter in Redis.
        cls.keys = {}
        for name, scopes in KEY_SCOPES.items():
            k = cls.h.create_key(uid, scopes=",".join(scopes) if scopes else None, rate_per_minute=100000)
            cls.keys[name] = (k["key"], set(scopes))
        for name, scopes in KEY_PRESETS.items():
            k = cls.h.create_key(uid, preset=name, rate_per_minute=100000)
            assert set(k["scopes"]) == scopes, k
            cls.keys[name] = (k["key"], scopes)
        disabled = cls.h.create_key(uid, preset="full")
        cls.h.disable_key(disabled["id"])
        cls.unauthorized = {"missing": None, "unknown": "mg_" + secrets.token_urlsafe(32), "disabled": disabled["key"]}
        for key, _ in cls.keys.values():  # resolved once, so that no call below is a first lookup
            assert cls.server.api("GET", "/key", key).status == 200

    # -- state

    def assertNothingRan(self, route, before_db, before_redis):
        self.assertEqual(table_diff(before_db, db_fingerprint(self.h)), [], f"{route}: a refused call wrote rows")
        self.assertEqual(redis_unchanged(before_redis, redis_state(self.h)), [],
                         f"{route}: a refused call changed Redis")

    # -- one route

    def check_keyed(self, method, req, permission):
        label = f"{method} {req.path} ({permission or 'any key'})"
        before_db, before_redis = self.settled(), redis_state(self.h)
        allowed, cases = [], 0
        for name, (key, scopes) in self.keys.items():
            if opens(permission, scopes):
                allowed.append((name, key))
                continue
            r = call(self.server, req, self.fx, key, method=method)
            self.assert403(r, permission)
            self.assertNotIn("x-ratelimit-remaining", r.headers, f"{label} {name}: a 403 spent a request")
            cases += 1
        self.assertNothingRan(label, before_db, before_redis)
        # 401s after the Redis comparison: what an unknown key may count per address is not
        # this matrix's business; that it writes no row is.
        for kind, key in self.unauthorized.items():
            self.assert401(call(self.server, req, self.fx, key, method=method),
                           "missing" if kind == "missing" else "invalid")
            cases += 1
        self.assertEqual(table_diff(before_db, db_fingerprint(self.h)), [], f"{label}: a 401 wrote rows")
        for name, key in allowed:
            r = call(self.server, req, self.fx, key, method=method)
            self.assertNotIn(r.status, (401, 403), f"{label}: the key {name} was refused: {r!r}")
            cases += 1
        return cases

    def check_compat(self, method, row):
        """A compatible surface's route: the key in its own header (Bearer or xi-api-key), the
        refusals in that API's shape."""
        xi = isinstance(row, XiKey)
        label = f"{method} {row.req.path} ({'xi-api-key' if xi else 'Bearer'}, {row.permission})"
        before_db, before_redis = self.settled(), redis_state(self.h)
        allowed, cases = [], 0
        for name, (key, scopes) in self.keys.items():
            if opens(row.permission, scopes):
                allowed.append((name, key))
                continue
            r = call(self.server, row.req, self.fx, key, bearer=not xi, method=method)
            self.assertEqual(r.status, 403, f"{label} {name}: {r!r}")
            if xi:
                self.assertEqual(r.body["detail"]["status"], "missing_permissions", r)
            else:
                self.assertEqual((r.body["error"]["type"], r.body["error"]["code"]), ("permission_error", "missing_scope"))
            cases += 1
        self.assertNothingRan(label, before_db, before_redis)
        for kind, key in self.unauthorized.items():
            r = call(self.server, row.req, self.fx, key, bearer=not xi, method=method)
            self.assertEqual(r.status, 401, f"{label} {kind}: {r!r}")
            if xi:
                self.assertEqual(r.body["detail"]["status"], "invalid_api_key", r)
            cases += 1
        self.assertEqual(table_diff(before_db, db_fingerprint(self.h)), [], f"{label}: a 401 wrote rows")
        for name, key in allowed:
            r = call(self.server, row.req, self.fx, key, bearer=not xi, method=method)
            self.assertNotIn(r.status, (401, 403), f"{label}: the key {name} was refused: {r!r}")
            cases += 1
        return cases

    def check_keyless(self, method, row):
        every = [("no key", None)] + [(n, k) for n, (k, _) in self.keys.items()] + list(self.unauthorized.items())
        statuses = {name: call(self.server, row.req, self.fx, key, method=method).status for name, key in every}
        self.assertEqual(set(statuses.values()), {statuses["no key"]},
                         f"{method} {row.req.path} reads no key ({row.why}), yet: {statuses}")
        return len(every)

    def test_every_route_with_every_permission(self):
        ops = operations()
        total, routes = 0, 0
        for name, op in ops.items():
            row = PERMISSIONS[name]
            with self.subTest(route=name):
                if isinstance(row, Keyed):
                    pairs = row.channels or [(op.permission, row.req)]
                    for permission, req in pairs:
                        total += self.check_keyed(op.method, req, permission)
                elif isinstance(row, (Bearer, XiKey)):
                    total += self.check_compat(op.method, row)
                else:
                    self.assertIsInstance(row, Keyless)
                    total += self.check_keyless(op.method, row)
                routes += 1
        self.assertEqual(routes, len(ops))
        print(f"FIGURE route x permission: {routes} routes, {total} calls", flush=True)

    def test_forbidden_message_in_russian(self):
        key, _ = self.keys["orders.read"]
        r = self.server.api("GET", "/user", key, locale="ru")
        self.assertEqual(r.body, {"success": False, "message": MSG["ru"]["forbidden"].format(scope="profile.read"),
                                  "data": None})


if __name__ == "__main__":
    unittest.main()
