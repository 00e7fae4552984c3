"""Every route of openapi/openapi.yaml has its rows in the route matrices (tests/e2e/route_matrix.py):
permission (T12), foreign id (T11) and, for every route that is not a GET, refusal (T6), with every
documented refusal of a charging route provoked or skipped with a reason.

The self-test proves the lint catches what it is meant to, on scratch copies of openapi.yaml (the
real file is never touched): a synthetic route, a new method on a known path, a route a row names
that is gone, a refusal newly documented on a charging route (in a response or in the route's
description), a 402 on a route the matrix calls non-charging, a permission added to a route
whose row says it reads none, and a foreign-id answer the route no longer documents.
"""

from __future__ import annotations

import copy
import os
import re
import sys
import tempfile
import unittest

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
import route_matrix  # noqa: E402

E2E = os.path.join(ROOT, "tests", "e2e")


def refusal_cases() -> set[str]:
    """The refusal cases the matrix modules implement (`def case_<name>(` in test_route_matrix_*)."""
    found = set()
    for name in sorted(os.listdir(E2E)):
        if name.startswith("test_route_matrix_") and name.endswith(".py"):
            with open(os.path.join(E2E, name), encoding="utf-8") as f:
                found |= set(re.findall(r"^    def case_(\w+)\(", f.read(), re.M))
    return found


def load() -> dict:
    with open(route_matrix.OPENAPI, encoding="utf-8") as f:
        return yaml.load(f, Loader=route_matrix.LOADER)


def lint_of(doc: dict) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "openapi.yaml")
        with open(path, "w", encoding="utf-8") as f:
            yaml.dump(doc, f, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), allow_unicode=True,
                      sort_keys=False)
        return route_matrix.lint(path, refusal_cases())


SYNTHETIC = {
    "parameters": [{"name": "thing", "in": "path", "required": True, "schema": {"type": "string"}}],
    "get": {"operationId": "getMatrixSelftest", "x-required-permission": "orders.read",
            "responses": {"200": {"description": "ok"}}},
    "post": {"operationId": "chargeMatrixSelftest", "x-required-permission": "orders.write",
             "responses": {"201": {"description": "ok"},
                           "402": {"description": "Refused: `insufficient_balance`."}}},
}


class RouteMatrixLint(unittest.TestCase):
    maxDiff = None

    def test_every_route_has_its_rows(self):
        self.assertEqual(route_matrix.lint(refusal_cases=refusal_cases()), [])

    def test_the_matrix_counts(self):
        ops = route_matrix.operations()
        permissions, foreign, refusals = route_matrix.matrices()
        foreign_cases = sum(len(r) for r in foreign.values() if isinstance(r, list))
        charging = {k: r for k, r in refusals.items() if isinstance(r, route_matrix.Charging)}
        print(f"FIGURE route matrix: {len(ops)} operations, {len(permissions)} permission rows, "
              f"{sum(isinstance(r, list) for r in foreign.values())} routes with {foreign_cases} foreign-id cases, "
              f"{len(charging)} charging routes with {sum(len(r.cases) for r in charging.values())} refusal cases "
              f"and {sum(len(r.skipped) for r in charging.values())} skipped", file=sys.stderr)
        self.assertEqual(len(ops), len(permissions))

    def test_the_unchanged_copy_passes(self):
        self.assertEqual(lint_of(load()), [])

    def test_a_synthetic_route_fails(self):
        doc = load()
        doc["paths"]["/matrix-selftest/{thing}"] = copy.deepcopy(SYNTHETIC)
        problems = lint_of(doc)
        print("route_matrix self-test, a synthetic route:\n  " + "\n  ".join(problems), file=sys.stderr)
        for method in ("GET", "POST"):
            self.assertIn(f"{method} /matrix-selftest/{{thing}}: no row in the permission (T12) matrix", problems)
            self.assertIn(f"{method} /matrix-selftest/{{thing}}: no row in the foreign-id (T11) matrix", problems)
        self.assertIn("POST /matrix-selftest/{thing}: no row in the refusal (T6) matrix", problems)
        self.assertNotIn("GET /matrix-selftest/{thing}: no row in the refusal (T6) matrix", problems)
        self.assertEqual(len(problems), 5, problems)

    def test_a_new_method_on_a_known_path_fails(self):
        doc = load()
        doc["paths"]["/orders/{order}"]["delete"] = copy.deepcopy(SYNTHETIC["post"])
        problems = lint_of(doc)
        self.assertIn("DELETE /orders/{order}: no row in the permission (T12) matrix", problems)
        self.assertIn("DELETE /orders/{order}: no row in the refusal (T6) matrix", problems)

    def test_a_removed_route_leaves_stale_rows(self):
        doc = load()
        del doc["paths"]["/voices/tags"]
        problems = lint_of(doc)
        self.assertIn("GET /voices/tags: a permission (T12) row for an operation openapi/openapi.yaml does not have",
                      problems)

    def test_a_newly_documented_refusal_of_a_charging_route_fails(self):
        doc = load()
        doc["paths"]["/reseller/codes"]["post"]["responses"]["409"] = {
            "description": "The code was already issued: `quote_mismatch`."}
        problems = lint_of(doc)
        self.assertIn("POST /reseller/codes: the documented refusal 409 quote_mismatch is neither provoked nor "
                      "skipped with a reason", problems)

    def test_a_refusal_named_in_a_charging_routes_description_fails(self):
        doc = load()
        doc["paths"]["/reseller/codes"]["post"]["description"] += "\nAlso 429 `policy_cooldown_active`.\n"
        self.assertIn("POST /reseller/codes: the refusal policy_cooldown_active its description names is neither "
                      "provoked nor skipped with a reason", lint_of(doc))

    def test_a_foreign_id_answer_openapi_does_not_document_fails(self):
        doc = load()
        del doc["paths"]["/orders/{order}"]["get"]["responses"]["404"]
        self.assertIn("GET /orders/{order}: the foreign-id answer 404 is not a response openapi documents",
                      lint_of(doc))

    def test_a_402_on_a_route_called_non_charging_fails(self):
        doc = load()
        doc["paths"]["/templates"]["post"]["responses"]["402"] = {"description": "Pay first."}
        self.assertIn("POST /templates: documents a 402, so it is a charging route and needs refusal cases",
                      lint_of(doc))

    def test_a_permission_on_a_keyless_route_fails(self):
        doc = load()
        doc["paths"]["/healthz"]["get"]["x-required-permission"] = "profile.read"
        self.assertIn("GET /healthz: has x-required-permission, so its T12 row must be Keyed", lint_of(doc))

    def test_a_request_that_misses_its_route_fails(self):
        doc = load()
        doc["paths"]["/orders/{order}/hold"] = doc["paths"].pop("/orders/{order}/cancel")
        problems = lint_of(doc)
        self.assertIn("POST /orders/{order}/hold: no row in the permission (T12) matrix", problems)
        self.assertIn("POST /orders/{order}/cancel: a permission (T12) row for an operation openapi/openapi.yaml "
                      "does not have", problems)


if __name__ == "__main__":
    unittest.main()
