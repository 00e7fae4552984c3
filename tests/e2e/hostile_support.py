"""Machinery of the hostile-input suite (test_hostile_input, test_hostile_wire, test_hostile_realtime):
raw HTTP exchanges that send any bytes, a minimal WebSocket client, the spec shapes every answer
is judged by, and the base class that runs groups of cases against one server.

A case is data (method, target, headers, body, expected answer), so the same corpus runs once
for its asserts and again, several rounds, for the memory and descriptor check
(test_hostile_input.HostileSoakTests). Every request goes over a fresh TCP connection with a
client timeout; a request that gets no complete answer within it is a hang and fails its case.

Judging an answer (`judge`), for every case:
  - the answer arrives (no hang, no close without a response) unless the case allows a bare
    close (malformed framing may be refused by closing);
  - no 5xx other than 503;
  - the body is valid UTF-8 JSON, no lone surrogate escapes, Content-Type application/json;
    charset=utf-8;
  - the envelope of spec 2.1 for the status: 2xx {success: true, message, data}; 401
    {success: false, message, data: null}; 403 either that or a domain refusal; 422 either
    {message, errors: {field: [str, ...]}} without `success`, or {success: false, message, reason,
    error_code} without `errors`; any other error {success: false, message} with no `errors`
    and reason == error_code when a reason is present;
  - then the case's own expectation (status, exact `errors` keys, reason, 401 message, ...).
"""

from __future__ import annotations

import json
import os
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Callable

from harness import API, MSG, E2ETestCase, RawConn, json_ct_ok
from orders_support import OrderFixtures, ledger_snapshot
from realtime_support import rss_kib  # noqa: F401 (re-exported for the hostile modules)
from ws_client import WsClient, WsClosed, _strings, b, jdump  # noqa: F401 (re-exported)

TIMEOUT = 10.0          # client timeout of one exchange (seconds)
BIG_TIMEOUT = 30.0      # for the megabyte bodies

# Route body caps (bytes), as the server declares them; a body above its route's cap is a 413
# before it is read.
CAP_TEMPLATES = 64 * 1024
CAP_ORDERS = 4 * 1_000_000 + 64 * 1024
CAP_PREVIEW = 4 * 1_000_000 + 64 * 1024
CAP_ACTIONS = 4 * 50_000 + 16 * 1024
CAP_STORAGE = 8 * 1024
CAP_BROADCASTING = 4 * 1024

# The server environment of every hostile class: unknown paths are part of the corpus, so the
# ban ladder must never start; the sweeper stays quiet so metrics move only with the requests.
HOSTILE_ENV = {
    "MEDIAGEN_BAN_THRESHOLD": "1000000",
    "MEDIAGEN_SWEEP_INTERVAL_MS": "600000",
    "MEDIAGEN_WORKERS": "0",
}


# --------------------------------------------------------------------------- bytes helpers


def with_raw(template: bytes, marker: str, raw: bytes) -> bytes:
    """A JSON body with the quoted placeholder string `marker` replaced by raw bytes inside the
    quotes: how invalid UTF-8 and raw control bytes get into a string."""
    needle = b'"' + marker.encode() + b'"'
    assert needle in template, (needle, template[:200])
    return template.replace(needle, b'"' + raw + b'"', 1)


def escaped(template: bytes, marker: str, escape: str) -> bytes:
    """The same, with a JSON escape sequence (e.g. r"\\u0000") written literally into the string."""
    return with_raw(template, marker, escape.encode("ascii"))


# Invalid UTF-8 forms, each a byte string that no strict decoder accepts.
INVALID_UTF8 = {
    "overlong_slash_2": b"\xc0\xaf",
    "overlong_slash_3": b"\xe0\x80\xaf",
    "overlong_slash_4": b"\xf0\x80\x80\xaf",
    "overlong_nul": b"\xc0\x80",
    "surrogate_d800": b"\xed\xa0\x80",
    "surrogate_pair": b"\xed\xa0\xbd\xed\xb8\x80",
    "truncated_2": b"ab\xc3",
    "truncated_3": b"ab\xe2\x82",
    "truncated_4": b"ab\xf0\x9f\x98",
    "five_byte": b"\xf8\x88\x80\x80\x80",
    "six_byte": b"\xfc\x84\x80\x80\x80\x80",
    "lone_continuation": b"a\x80b",
    "byte_ff": b"\xff",
    "byte_fe": b"\xfe\xff",
    "above_10ffff": b"\xf4\x90\x80\x80",
    "latin1": b"caf\xe9",
}

# Lone surrogate escapes and other escapes a strict JSON parser refuses inside strings.
BAD_ESCAPES = {
    "lone_high": r"\ud800",
    "lone_low": r"\udc00",
    "high_then_ascii": r"\ud800\u0041",
    "two_high": r"\ud800\ud800",
    "truncated_escape": r"\u00",
    "bad_hex": r"\uZZZZ",
}

# Control characters item 2 refuses in JSON strings (C0 other than TAB, LF, CR), as escapes.
CONTROL_ESCAPES = {
    "nul": r"\u0000",
    "soh": r"\u0001",
    "bel": r"\u0007",
    "esc": r"\u001b",
    "us": r"\u001f",
    "nul_inside": r"ok\u0000ok",
}


# --------------------------------------------------------------------------- HTTP over raw sockets


@dataclass
class Reply:
    status: int
    headers: dict
    raw: bytes
    head: bytes
    closed_after: bool = False

    def json(self):
        return json.loads(self.raw.decode("utf-8"))

    def __repr__(self):
        return f"<HTTP {self.status} {self.raw[:600]!r}>"


def build_request(method: str, target, headers=(), body: bytes | None = None, *, auto_length: bool = True,
                  close: bool = True) -> bytes:
    lines = [b(method) + b" " + b(target) + b" HTTP/1.1", b"Host: 127.0.0.1"]
    names = set()
    for name, value in headers:
        lines.append(b(name) + b": " + b(value))
        names.add(b(name).lower())
    if body is not None and auto_length and b"content-length" not in names and b"transfer-encoding" not in names:
        lines.append(b"Content-Length: " + str(len(body)).encode())
    if close and b"connection" not in names:
        lines.append(b"Connection: close")
    return b"\r\n".join(lines) + b"\r\n\r\n" + (body or b"")


class Hang(AssertionError):
    pass


def exchange_raw(server, data: bytes, timeout: float = TIMEOUT, head_request: bool = False):
    """Sends bytes on a fresh connection; the first response (None when the server closed
    without one). Raises Hang when nothing complete arrives within the timeout."""
    with RawConn(server.public[0], server.public[1], timeout=timeout) as c:
        c.send(data)
        try:
            r = c.read_response(timeout=timeout, head_request=head_request)
        except TimeoutError:
            raise Hang(f"no answer within {timeout}s") from None
        except AssertionError as e:  # closed inside a body
            raise Hang(str(e)) from None
        if r is None:
            return None
        return Reply(r.status, r.headers, r.body, r.head)


def read_all(server, data: bytes, timeout: float = TIMEOUT, settle: float = 1.5):
    """Sends bytes (possibly several pipelined requests) and collects every response until the
    server closes, or until `settle` seconds pass without a new one. Returns (replies, closed)."""
    replies = []
    with RawConn(server.public[0], server.public[1], timeout=timeout) as c:
        c.send(data)
        deadline = time.monotonic() + timeout
        while True:
            wait = min(settle, max(0.05, deadline - time.monotonic()))
            try:
                r = c.read_response(timeout=wait)
            except TimeoutError:
                return replies, False
            except AssertionError:
                return replies, True
            if r is None:
                return replies, True
            replies.append(Reply(r.status, r.headers, r.body, r.head))
            if time.monotonic() > deadline:
                return replies, False


# --------------------------------------------------------------------------- expectations


@dataclass(frozen=True)
class Expect:
    """What one case must get, beyond the envelope every answer is judged by."""
    statuses: tuple = ()                 # allowed statuses; empty: any non-5xx
    fields: frozenset | None = None      # 422 validation: exactly these `errors` keys
    prefix: str | None = None            # 422 validation: exactly one key, starting with this
    reason: str | None = None            # domain refusal reason
    auth: str | None = None              # 401: MSG['en'] key ("invalid", "missing")
    validation: bool | None = None       # 422: True validation shape, False domain shape
    may_close: bool = False              # a close without any response is acceptable
    bare: bool = False                   # 2xx without the envelope (e.g. {"auth": ...})
    check: Callable | None = None        # extra check of the parsed body: returns a problem or None
    alternatives: tuple = ()             # any one of these expectations is enough
    header: tuple | None = None          # (name, value) the answer must carry
    note: str = ""


def V(*fields, check=None) -> Expect:
    """422 validation naming exactly these fields."""
    return Expect(statuses=(422,), fields=frozenset(fields), validation=True, check=check)


def VP(prefix: str) -> Expect:
    """422 validation naming exactly one field that starts with prefix (arrays, bad keys)."""
    return Expect(statuses=(422,), prefix=prefix, validation=True)


def E(*statuses, reason=None, may_close=False) -> Expect:
    """An error with the plain envelope."""
    return Expect(statuses=tuple(statuses), reason=reason, may_close=may_close)


def D(status, reason) -> Expect:
    """A domain refusal with this reason."""
    return Expect(statuses=(status,), reason=reason, validation=False if status == 422 else None)


def AUTH(kind="invalid") -> Expect:
    return Expect(statuses=(401,), auth=kind)


def OK(*statuses, check=None, bare=False, header=None) -> Expect:
    return Expect(statuses=statuses or (200,), check=check, bare=bare, header=header)


def ANY(*alternatives, note="") -> Expect:
    return Expect(alternatives=alternatives, note=note)


def body_problems(reply: Reply, method: str = "GET"):
    """Envelope problems of an answer, per spec 2.1; [] when it is well formed."""
    p = []
    s = reply.status
    if s >= 500 and s != 503:
        p.append(f"server error {s}")
    if s in (204, 304) or method == "HEAD":
        return p
    if not json_ct_ok(reply.headers):
        p.append(f"Content-Type {reply.headers.get('content-type')!r}")
    try:
        text = reply.raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return p + [f"body is not valid UTF-8: {e}"]
    try:
        body = json.loads(text)
    except ValueError as e:
        return p + [f"body is not JSON: {e}"]
    for st in _strings(body):
        try:
            st.encode("utf-8")
        except UnicodeEncodeError:
            p.append(f"body carries a lone surrogate escape in {st!r}")
            break
    if not isinstance(body, dict):
        return p + ["body is not an object"]
    if 200 <= s < 300:
        return p
    if body.get("success") is not False and not (s == 422 and "errors" in body):
        p.append("error without success: false")
    if not isinstance(body.get("message"), str) or not body.get("message"):
        p.append("error without a message")
    if s == 401:
        if set(body) != {"success", "message", "data"} or body.get("data", 0) is not None:
            p.append("401 is not {success: false, message, data: null}")
    elif s == 403:
        if "errors" in body or ("data" in body and body["data"] is not None):
            p.append("403 with errors or with data that is not null")
    elif s == 422:
        if "errors" in body:
            if set(body) != {"message", "errors"}:
                p.append(f"validation 422 keys {sorted(body)} (expected message, errors)")
            errors = body.get("errors")
            if not isinstance(errors, dict) or not errors:
                p.append("validation 422 with empty errors")
            else:
                for k, v in errors.items():
                    if not isinstance(v, list) or not v or not all(isinstance(m, str) and m for m in v):
                        p.append(f"errors[{k!r}] is not a list of messages")
        elif set(body) != {"success", "message", "reason", "error_code"}:
            p.append(f"domain 422 keys {sorted(body)}")
    else:
        if "errors" in body:
            p.append(f"`errors` on a {s}")
        if "data" in body:
            p.append(f"`data` on a {s}")
    if "reason" in body and body.get("error_code") != body.get("reason"):
        p.append("reason and error_code differ")
    return p


def expect_problems(reply: Reply, expect: Expect):
    """Problems of an answer against the case's own expectation."""
    if expect.alternatives:
        all_p = []
        for alt in expect.alternatives:
            p = expect_problems(reply, alt)
            if not p:
                return []
            all_p.append("; ".join(p))
        return ["none of the accepted answers: " + " | ".join(all_p)]
    p = []
    if expect.statuses and reply.status not in expect.statuses:
        return [f"status {reply.status}, expected {expect.statuses}"]
    if expect.header is not None:
        name, value = expect.header
        if reply.headers.get(name.lower()) != value:
            p.append(f"header {name}: {reply.headers.get(name.lower())!r}, expected {value!r}")
    try:
        body = reply.json()
    except ValueError:
        return p  # reported by body_problems
    if not isinstance(body, dict):
        return p
    if 200 <= reply.status < 300 and not expect.bare:
        if set(body) != {"success", "message", "data"} or body.get("success") is not True:
            p.append("2xx is not {success: true, message, data}")
    if expect.validation is True and "errors" not in body:
        p.append("expected a validation 422 with errors")
    if expect.validation is False and "errors" in body:
        p.append("expected a domain refusal without errors")
    if expect.fields is not None:
        got = set(body.get("errors") or {})
        if got != set(expect.fields):
            p.append(f"errors keys {sorted(got)}, expected {sorted(expect.fields)}")
    if expect.prefix is not None:
        got = list(body.get("errors") or {})
        if len(got) != 1 or not got[0].startswith(expect.prefix):
            p.append(f"errors keys {got}, expected one starting with {expect.prefix!r}")
    if expect.reason is not None and body.get("reason") != expect.reason:
        p.append(f"reason {body.get('reason')!r}, expected {expect.reason!r}")
    if expect.auth is not None and body.get("message") != MSG["en"][expect.auth]:
        p.append(f"401 message {body.get('message')!r}, expected {MSG['en'][expect.auth]!r}")
    if expect.check is not None:
        extra = expect.check(body)
        if extra:
            p.append(extra)
    return p


def may_close(expect: Expect) -> bool:
    return expect.may_close or any(a.may_close for a in expect.alternatives)


def data_check(**wanted):
    """A check that data[k] == v for each given pair."""
    def check(body):
        data = body.get("data") or {}
        for k, v in wanted.items():
            if data.get(k) != v:
                return f"data.{k} = {data.get(k)!r}, expected {v!r}"
        return None
    return check


# --------------------------------------------------------------------------- cases


@dataclass
class Case:
    name: str
    method: str
    target: object                       # str or bytes, below nothing: the full target
    expect: Expect
    body: bytes | None = None
    headers: tuple = ()
    key: str | None = "main"             # fixture key to send; None: no X-API-KEY
    content_type: str | None = None      # default: application/json when a body is sent
    timeout: float = TIMEOUT
    raw: bytes | None = None             # a complete hand-made request instead of the fields above
    sequence: tuple | None = None        # raw pipelines: the expectation of each answer, in order; no
                                         # more answers than these may come (a smuggled request never runs)
    closes: bool = False                 # the server must close the connection after the answers

    def request_bytes(self, keys: dict) -> bytes:
        if self.raw is not None:
            return self.raw
        headers = []
        if self.key is not None:
            headers.append(("X-API-KEY", keys[self.key]))
        if self.body is not None:
            ct = self.content_type or "application/json"
            if ct:
                headers.append(("Content-Type", ct))
        headers += list(self.headers)
        return build_request(self.method, self.target, headers, self.body)


def run_case(server, keys, case: Case):
    """(reply or None, problems)."""
    if case.sequence is not None:
        return run_pipeline(server, keys, case)
    try:
        reply = exchange_raw(server, case.request_bytes(keys), case.timeout, head_request=case.method == "HEAD")
    except Hang as e:
        return None, [f"hang: {e}"]
    except OSError as e:
        return None, [f"connection failed: {e!r}"]
    if reply is None:
        return None, [] if may_close(case.expect) else ["connection closed without an answer"]
    problems = body_problems(reply, case.method)
    problems += expect_problems(reply, case.expect)
    return reply, problems


def run_pipeline(server, keys, case: Case):
    try:
        replies, closed = read_all(server, case.request_bytes(keys), case.timeout)
    except OSError as e:
        return None, [f"connection failed: {e!r}"]
    problems = []
    if not replies and not may_close(case.sequence[0]):
        problems.append("connection closed without an answer")
    if len(case.sequence) > 1 and len(replies) < len(case.sequence):
        problems.append(f"{len(replies)} answers to {len(case.sequence)} well-framed requests")
    if len(replies) > len(case.sequence):
        problems.append(f"{len(replies)} answers to {len(case.sequence)} request(s): "
                        f"{[r.status for r in replies]} (a smuggled request ran)")
    for i, (reply, expect) in enumerate(zip(replies, case.sequence)):
        p = body_problems(reply, "GET") + expect_problems(reply, expect)
        problems += [f"answer {i + 1}: {x}" for x in p]
    if case.closes and not closed:
        problems.append("connection left open after a request whose framing cannot be trusted")
    return (replies[0] if replies else None), problems


@dataclass
class Group:
    name: str
    cases: list
    money: bool = False                  # True: accepted cases may create orders (charged)
    before: Callable | None = None       # called with the test case before the group; its value goes to after
    after: Callable | None = None        # extra check after the group: after(test, state) -> problem or None


# --------------------------------------------------------------------------- process resources


def _service_ports() -> set[int]:
    ports = set()
    for var, default in (("MEDIAGEN_TEST_PG_ADMIN_URL", 5432), ("MEDIAGEN_TEST_REDIS_URL", 6379)):
        url = os.environ.get(var)
        if url:
            ports.add(urllib.parse.urlsplit(url).port or default)
    return ports


def _service_socket_inodes(ports: set[int]) -> set[str]:
    """Inodes of TCP sockets whose remote end is one of the ports (PostgreSQL, Redis)."""
    out = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii") as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if int(f[2].rsplit(":", 1)[1], 16) in ports:
                out.add(f[9])
    return out


def fd_count(pid: int) -> int:
    """Open descriptors of the process, not counting its connections to PostgreSQL and Redis: the
    pools open those lazily (one per pool thread at first use) and keep them, which is no leak."""
    service = _service_socket_inodes(_service_ports())
    n = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:[") and target[8:-1] in service:
            continue
        n += 1
    return n


def soak_asan_options() -> str:
    """The environment's ASAN_OPTIONS with a small quarantine, so that freed memory is reused and
    RSS reflects what the server holds, not what ASan keeps for use-after-free detection."""
    opts = [o for o in os.environ.get("ASAN_OPTIONS", "").split(":") if o and not o.startswith("quarantine_size_mb=")]
    opts.append("quarantine_size_mb=8")
    return ":".join(opts)


# --------------------------------------------------------------------------- base class


class HostileCase(OrderFixtures, E2ETestCase):
    """One server with a seeded catalogue, a funded account with the full preset, a template, a
    completed-or-created order and its first item, a cached preview; groups of cases run against
    it and after each group the server must be alive, answer /healthz and an authenticated
    request, and the ledger must be as before (unless the group may create orders)."""

    server_env = dict(HOSTILE_ENV)
    complete_order = False   # True: one order is produced to completion (workers run)

    @classmethod
    def prepare(cls):
        cls.seed()
        cls.ctx = build_fixtures(cls)

    def setUp(self):
        # A case that killed the server (or its listener) must not hide the others: the next test
        # gets a new one. The broken one stays in the harness, whose teardown reports its exit.
        if not (self.server.alive() and self.server.healthy()):
            if self.server.alive():
                self.server.proc.kill()
                self.server.proc.wait(10)
            type(self).server = self.h.start_server(self.server_env)
            self.ctx.server = type(self).server

    # -- running cases

    def run_group(self, group: Group):
        ctx = self.ctx
        before = ledger_snapshot(self.h)
        state = group.before(self) if group.before else None
        failures = []
        for case in group.cases:
            if not self.server.alive():
                failures.append(f"{case.name}: server process is gone (exit {self.server.proc.returncode})")
                break
            reply, problems = run_case(self.server, ctx.keys, case)
            if problems:
                failures.append(f"{case.name}: {'; '.join(problems)}; answer {reply!r}")
        if group.after is not None:
            extra = group.after(self, state)
            if extra:
                failures.append(extra)
        failures += self.alive_problems()
        if not group.money:
            after = ledger_snapshot(self.h)
            if after != before:
                failures.append(f"ledger/orders changed by refused requests: {before} -> {after}")
        if failures:
            self.fail(f"group {group.name}: {len(failures)} of {len(group.cases)} failed\n  " + "\n  ".join(failures))

    def alive_problems(self):
        p = []
        if not self.server.alive():
            return [f"server process exited with {self.server.proc.returncode}"]
        try:
            r = exchange_raw(self.server, build_request("GET", "/healthz"), 5)
            if r is None or r.status != 200:
                p.append(f"/healthz answered {r!r}")
            r = exchange_raw(self.server, build_request("GET", API + "/user", [("X-API-KEY", self.ctx.keys["main"])]), 5)
            if r is None or r.status != 200:
                p.append(f"authenticated GET /api/user answered {r!r}")
        except (Hang, OSError) as e:
            p.append(f"server does not answer: {e!r}")
        return p


@dataclass
class Fixtures:
    server: object
    keys: dict
    user_id: int
    template_id: str
    order_id: str
    item_id: str
    preview_id: str
    voice_id: str
    other_template_id: str = ""
    extra: dict = field(default_factory=dict)


def build_fixtures(cls) -> Fixtures:
    """The account and objects every hostile corpus refers to."""
    h, server = cls.h, cls.server
    user = h.create_user(email=f"hostile-{os.urandom(4).hex()}@example.com", balance="1000000000")
    keys = {"main": h.create_key(user["id"], preset="full")["key"]}
    # Previews are throttled per key (30 POSTs, 120 reads a minute): each round of preview cases
    # uses its own key.
    for i in range(4):
        keys[f"preview{i}"] = h.create_key(user["id"], preset="full")["key"]
    keys["read_only"] = h.create_key(user["id"], preset="read_only")["key"]
    # (no query string: the fixtures must not depend on what the corpus attacks)
    voice = server.api("GET", "/voices/provider_b", keys["main"]).body["data"]["voices"][0]["voice_id"]
    body = {"service_key": "provider_b", "name": "hostile",
            "config": {"tts_settings": {"mode": "mode_v1", "model_id": "b-standard", "voice_id": voice}}}
    r = server.api("POST", "/templates", keys["main"], body=body)
    assert r.status == 201, r
    template_id = r.body["data"]["id"]
    r = server.api("POST", "/templates", keys["main"], body=dict(body, name="hostile second"))
    assert r.status == 201, r
    second = r.body["data"]["id"]
    r = server.api("POST", "/orders", keys["main"], body={"template_id": template_id, "input_text": "Hello there."})
    assert r.status == 201, r
    order_id = r.body["data"]["id"]
    if cls.complete_order:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            st = server.api("GET", f"/orders/{order_id}", keys["main"]).body["data"]["status"]
            if st in ("completed", "failed", "partially_completed"):
                break
            time.sleep(0.2)
    items = server.api("GET", f"/orders/{order_id}/items", keys["main"]).body["data"]
    r = server.api("POST", "/orders/chunks/preview", keys["main"],
                   body={"template_id": template_id, "input_text": "A preview of a short text."})
    assert r.status == 200, r
    return Fixtures(server=server, keys=keys, user_id=user["id"], template_id=template_id, order_id=order_id,
                    item_id=items[0]["id"], preview_id=r.body["data"]["preview_id"], voice_id=voice,
                    other_template_id=second)
