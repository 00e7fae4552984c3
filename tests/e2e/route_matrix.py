"""The route matrices of issue 30, as data read against openapi/openapi.yaml.

Three matrices, one row per operation (`"METHOD /path"` exactly as openapi.yaml spells it):
  PERMISSIONS (T12)  how to call the route with the caller's own objects; which permission opens
                     it is read from the operation's `x-required-permission` (rows only say it for
                     operations that have none: the OpenAI-compatible, keyless and operator routes);
  FOREIGN (T11)      the calls that name another account's object, and the documented answer, or
                     why the route names none;
  REFUSALS (T6)      for every route that can move money: how each documented refusal is provoked,
                     or why it cannot be in a test; for the others, why they move none.
`lint()` fails for an operation without a row in a matrix, a row for no operation, a row of the
wrong kind, a request that does not match its route, and a documented refusal of a charging route
that no case provokes and no entry skips. tests/tools/route_matrix_test.py runs it and proves it
fails for a synthetic route. The e2e modules test_route_matrix_*.py run the rows.

Request texts name the caller's fixtures in braces (see FIXTURES), filled by `fill()`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import yaml

# libyaml's loader when python3-yaml has it: ten times faster on the 8,000-line description.
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OPENAPI = os.path.join(ROOT, "openapi", "openapi.yaml")
METHODS = ("get", "put", "post", "patch", "delete")

# What a request template may name: one account's objects, made by the e2e fixtures.
FIXTURES = {
    "user_id", "template", "spare_template", "order", "item", "file", "input_text", "preview", "text_hash",
    "clone", "clone_voice", "voice", "gift", "socket",
}

ALL_SCOPES = ["orders.read", "orders.write", "orders.download", "templates.read", "templates.write",
              "voices.read", "voices.write", "billing.read", "profile.read", "reseller.read", "reseller.write"]
RESELLER = {"reseller.read", "reseller.write"}
READ_ONLY = {"orders.read", "orders.download", "templates.read", "voices.read", "billing.read", "profile.read"}
# Every key the permission matrix calls with, by name: its scopes as the CLI takes them.
KEY_SCOPES = {**{s: [s] for s in ALL_SCOPES}, "*": ["*"], "no_scope": []}
KEY_PRESETS = {"read_only": READ_ONLY, "automation": READ_ONLY | {"orders.write"},
               "full": set(ALL_SCOPES) - RESELLER}


def opens(permission: str | None, scopes: set[str]) -> bool:
    """Spec 5.7: whether a key holding `scopes` passes the check of `permission` (None: any key)."""
    if permission is None or permission in scopes:
        return True
    return "*" in scopes and permission not in RESELLER


# --------------------------------------------------------------------------- requests


@dataclass(frozen=True)
class Req:
    """One call: a path below the API prefix (or from the root with `root=True`), a JSON body or
    form fields for multipart. Texts may name fixtures in braces."""
    path: str
    body: object = None
    form: tuple = ()
    root: bool = False
    admin: bool = False
    xi: bool = False  # the key in xi-api-key (the ElevenLabs-compatible surface)


def fill(value, fx: dict):
    """`value` with every `{fixture}` replaced by the caller's object."""
    if isinstance(value, str):
        return re.sub(r"\{(\w+)\}", lambda m: str(fx[m.group(1)]), value)
    if isinstance(value, dict):
        return {fill(k, fx): fill(v, fx) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(fill(v, fx) for v in value)
    return value


# --------------------------------------------------------------------------- T12 rows


@dataclass(frozen=True)
class Keyed:
    """An X-API-KEY route whose permission is its `x-required-permission`. `channels` splits a
    route whose permission depends on the body (the realtime channels) into one call each."""
    req: Req | None = None
    channels: tuple = ()  # (permission, Req) pairs


@dataclass(frozen=True)
class Bearer:
    """An OpenAI-compatible route: the key in `Authorization: Bearer`, the permission stated in
    its description (openapi has no `x-required-permission` there)."""
    permission: str
    req: Req


@dataclass(frozen=True)
class XiKey:
    """An ElevenLabs-compatible route: the key in `xi-api-key`, refusals in ElevenLabs' shape
    ({detail: {status, message}}), the permission stated in its description."""
    permission: str
    req: Req


@dataclass(frozen=True)
class Keyless:
    """A route that reads no key: every key, and none, gets the same answer."""
    req: Req
    why: str


# --------------------------------------------------------------------------- T11 rows


@dataclass(frozen=True)
class Foreign:
    """Calls naming another account's objects and the documented answer: status, and `reason`
    or the exact message when the route documents one."""
    req: Req
    status: int = 404
    reason: str | None = None
    message: str | None = None


@dataclass(frozen=True)
class NoForeignId:
    why: str


# --------------------------------------------------------------------------- T6 rows


@dataclass(frozen=True)
class Refusal:
    """A documented refusal, provoked by the test method `case_<case>` of
    test_route_matrix_refusals.py."""
    status: int
    reason: str
    case: str


@dataclass(frozen=True)
class Charging:
    cases: tuple
    skipped: dict = field(default_factory=dict)  # reason -> why it is not provoked here


@dataclass(frozen=True)
class NotCharging:
    why: str


# --------------------------------------------------------------------------- openapi


@dataclass
class Operation:
    key: str
    method: str
    path: str
    has_permission: bool
    permission: str | None
    reasons: dict  # status -> set of documented reasons
    described: set  # reasons the operation's description names, at whatever status


def _resolve(doc, node):
    while isinstance(node, dict) and "$ref" in node:
        target = doc
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


def _reason_vocabulary(doc) -> set[str]:
    """Every value a `reason` takes anywhere in the description (enums, consts, examples)."""
    found: set[str] = set()

    def walk(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "reason":
                    if isinstance(v, str):
                        found.add(v)
                    elif isinstance(v, dict):
                        found.update(x for x in v.get("enum") or [] if isinstance(x, str))
                        if isinstance(v.get("const"), str):
                            found.add(v["const"])
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(doc)
    return found


def _documented_reasons(doc, response, vocabulary) -> set[str]:
    """The reasons a response documents: its examples' `reason`, and the reason codes its
    description names in backticks."""
    response = _resolve(doc, response)
    found = set()
    text = str(response.get("description", ""))
    for content in (response.get("content") or {}).values():
        examples = [content.get("example")]
        examples += [_resolve(doc, e).get("value") for e in (content.get("examples") or {}).values()]
        for e in examples:
            if isinstance(e, dict) and isinstance(e.get("reason"), str):
                found.add(e["reason"])
    found.update(w for w in re.findall(r"`([a-z_]+)`", text) if w in vocabulary)
    return found


def operations(path: str = OPENAPI) -> dict[str, Operation]:
    with open(path, encoding="utf-8") as f:
        doc = yaml.load(f, Loader=LOADER)
    vocabulary = _reason_vocabulary(doc)
    out = {}
    for route, item in (doc.get("paths") or {}).items():
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            key = f"{method.upper()} {route}"
            reasons = {}
            for status, response in (op.get("responses") or {}).items():
                if str(status).startswith("4"):
                    reasons[int(status)] = _documented_reasons(doc, response, vocabulary)
            described = {w for w in re.findall(r"`([a-z_]+)`", str(op.get("description", ""))) if w in vocabulary}
            out[key] = Operation(key, method.upper(), route, "x-required-permission" in op,
                                 op.get("x-required-permission"), reasons, described)
    return out


def route_regex(route: str) -> re.Pattern:
    parts = re.split(r"(\{[^}]+\})", route)
    return re.compile("^" + "".join("[^/?]+" if p.startswith("{") else re.escape(p) for p in parts) + "(\\?.*)?$")


def matrices():
    from route_matrix_rows import FOREIGN, PERMISSIONS, REFUSALS
    return PERMISSIONS, FOREIGN, REFUSALS


def _requests_of(row):
    if isinstance(row, Keyed):
        return ([row.req] if row.req else []) + [req for _, req in row.channels]
    if isinstance(row, (Bearer, XiKey, Keyless, Foreign)):
        return [row.req]
    if isinstance(row, list):
        return [r for x in row for r in _requests_of(x)]
    return []


def lint(path: str = OPENAPI, refusal_cases: set[str] | None = None) -> list[str]:
    """Every problem of the matrices against the description at `path`, one line each.
    `refusal_cases`: the case names the refusal module implements (checked when given)."""
    ops = operations(path)
    permissions, foreign, refusals = matrices()
    problems = []
    for name, table in (("permission (T12)", permissions), ("foreign-id (T11)", foreign),
                        ("refusal (T6)", refusals)):
        for key in ops:
            if key not in table and not (table is refusals and ops[key].method == "GET"):
                problems.append(f"{key}: no row in the {name} matrix")
        for key in table:
            if key not in ops:
                problems.append(f"{key}: a {name} row for an operation openapi/openapi.yaml does not have")
    for key, op in ops.items():
        row = permissions.get(key)
        if row is not None:
            if op.has_permission and not isinstance(row, Keyed):
                problems.append(f"{key}: has x-required-permission, so its T12 row must be Keyed")
            if not op.has_permission and isinstance(row, Keyed):
                problems.append(f"{key}: has no x-required-permission; its T12 row must say how it is opened")
            if isinstance(row, Keyed) and bool(row.channels) == bool(row.req):
                problems.append(f"{key}: a Keyed row has either one request or per-channel requests")
        fr = foreign.get(key)
        if isinstance(fr, list) and not fr:
            problems.append(f"{key}: an empty foreign-id row (say NoForeignId and why)")
        for r in _requests_of(row) + _requests_of(fr):
            if not route_regex(op.path).match(r.path):
                problems.append(f"{key}: the request path {r.path!r} does not match the route")
            names = set(re.findall(r"\{(\w+)\}", repr((r.path, r.body, r.form))))
            if names - FIXTURES:
                problems.append(f"{key}: the request names unknown fixtures {sorted(names - FIXTURES)}")
        for case in fr if isinstance(fr, list) else []:
            if case.status >= 400 and case.status not in op.reasons:
                problems.append(f"{key}: the foreign-id answer {case.status} is not a response openapi documents")
            elif case.reason and case.reason not in op.reasons.get(case.status, ()):
                problems.append(f"{key}: the foreign-id answer {case.status} {case.reason} is not documented")
        rr = refusals.get(key)
        if rr is None:
            continue
        if op.reasons.get(402) is not None and not isinstance(rr, Charging):
            problems.append(f"{key}: documents a 402, so it is a charging route and needs refusal cases")
        if isinstance(rr, Charging):
            documented = {(s, r) for s, rs in op.reasons.items() for r in rs}
            covered = {(c.status, c.reason) for c in rr.cases}
            skipped = set(rr.skipped)
            for status, reason in sorted(documented):
                if (status, reason) not in covered and reason not in skipped:
                    problems.append(f"{key}: the documented refusal {status} {reason} is neither provoked "
                                    "nor skipped with a reason")
            for reason in sorted(op.described - {r for _, r in covered} - skipped - {r for _, r in documented}):
                problems.append(f"{key}: the refusal {reason} its description names is neither provoked "
                                "nor skipped with a reason")
            for c in rr.cases:
                if refusal_cases is not None and c.case not in refusal_cases:
                    problems.append(f"{key}: refusal case {c.case!r} has no case_{c.case} in a matrix module")
            for reason, why in rr.skipped.items():
                if not why.strip():
                    problems.append(f"{key}: skipped refusal {reason} without a reason")
    return problems
