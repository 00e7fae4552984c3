"""Hostile realtime input (reliability anchor T14; spec 4.9, 6): raw WebSocket frames against the
Pusher endpoint and hostile POST /broadcasting/auth bodies.

WebSocket, spoken by a minimal client (hostile_support.WsClient) that sends any bytes:
  - a text frame that is not valid UTF-8 (also split across fragments) is closed with 1007; a
    character split across fragments is valid;
  - a message of exactly MEDIAGEN_WS_MAX_MESSAGE_BYTES (10,240) is read; one byte more, a 1 MiB
    frame or fragments that add up past the cap are closed with 1009;
  - subscribe frames whose channel names are 1-, 2-, 3- and 4-byte characters of every length
    around the 200-byte cap, and names where a character crosses byte 200 (199 'a' then 'é', and
    the same with 3- and 4-byte characters), answer pusher:subscription_error for that name and
    pusher:error 4009; the name is echoed whole when it is at most 200 bytes, otherwise cut to at
    most 200 bytes at a character boundary;
  - malformed Pusher messages answer pusher:error.
After every case the socket that sent it still answers pusher:ping (except after a close the case
asks for), another socket connected before the case still answers, and HTTP keeps working.

Decisions where the spec is silent (asserted here):
  - A binary frame is not part of the protocol: pusher:error, the socket stays.
  - A handshake to a path that is not valid UTF-8 or holds a control character is refused
    with HTTP 400 or 404 before the upgrade, or accepted and closed with a 40xx code after a
    pusher:error; either way nothing else is affected.
  - POST /broadcasting/auth (form or JSON) reads socket_id and channel_name strictly: a
    percent-decoded value with NUL, invalid UTF-8 or a control character, a user id that does
    not fit in 64 bits or has leading zeros, an uppercase order id: 422 naming the field.
"""

import time
import unittest
import urllib.parse

from harness import API
from hostile_support import (AUTH, BAD_ESCAPES, E, INVALID_UTF8, OK, V, Case, Group, HostileCase, WsClient, WsClosed,
                             build_request, jdump)
from realtime_support import APP_KEY, preview_channel, realtime_env, sign

CAP = 10_240
WS_PATH = f"/app/{APP_KEY}?protocol=7&client=js&version=8.4.0&flash=false"


def connect(server, path=WS_PATH):
    ws = WsClient(server.public[0], server.public[1], path)
    if ws.status != 101:
        raise AssertionError(f"handshake answered {ws.status}")
    ws.socket_id = ws.connected()
    return ws


def padded_ping(total: int) -> bytes:
    """A pusher:ping of exactly `total` bytes."""
    head, tail = b'{"event":"pusher:ping","data":{"pad":"', b'"}}'
    return head + b"a" * (total - len(head) - len(tail)) + tail


class Scenario:
    """Runs WebSocket cases with a bystander socket and collects problems instead of stopping."""

    def __init__(self, server):
        self.server = server
        self.problems: list[str] = []
        self.bystander = connect(server)

    def check_alive(self, label):
        if not (self.server.alive() and self.server.healthy()):
            self.problems.append(f"{label}: server stopped answering (exit code {self.server.proc.returncode})")
            return False
        try:
            self.bystander.round_trip(5)
        except (AssertionError, TimeoutError, OSError) as e:
            self.problems.append(f"{label}: the bystander socket stopped answering ({e})")
            try:
                self.bystander.close()
                self.bystander = connect(self.server)
            except (AssertionError, TimeoutError, OSError) as e2:
                self.problems.append(f"{label}: no new socket either ({e2})")
                return False
        return True

    def case(self, label, fn):
        try:
            with connect(self.server) as ws:
                problem = fn(ws)
                if problem:
                    self.problems.append(f"{label}: {problem}")
                if ws.problems:
                    self.problems.append(f"{label}: {'; '.join(ws.problems)}")
        except (AssertionError, TimeoutError, OSError) as e:
            self.problems.append(f"{label}: {type(e).__name__} {e}")
        return self.check_alive(label)

    def close(self):
        self.bystander.close()
        if self.bystander.problems:
            self.problems.append("bystander: " + "; ".join(self.bystander.problems))


def expect_close(code):
    def fn(ws):
        got = ws.wait_close()
        return None if got == code else f"close code {got}, expected {code}"
    return fn


def send_then(payload: bytes, then, opcode=0x1):
    def fn(ws):
        ws.send_frame(opcode, payload)
        return then(ws)
    return fn


def still_answers(ws):
    try:
        ws.round_trip()
    except WsClosed as e:
        return f"socket closed with {e.code}"
    return None


def error_then_pong(ws):
    try:
        frames = ws.round_trip()
    except WsClosed as e:
        return f"socket closed with {e.code}"
    if not any(f.get("event") == "pusher:error" for f in frames):
        return f"no pusher:error before the pong: {frames}"
    return None


def utf8_scenarios(server, ctx):
    s = Scenario(server)
    for name, raw in INVALID_UTF8.items():
        frame = b'{"event":"pusher:ping","data":"' + raw + b'"}'
        s.case(f"ws:utf8_{name}", send_then(frame, expect_close(1007)))
    s.case("ws:utf8_bare_ff", send_then(b"\xff", expect_close(1007)))
    s.case("ws:utf8_in_channel", send_then(b'{"event":"pusher:subscribe","data":{"channel":"private-\xed\xa0\x80"}}',
                                           expect_close(1007)))

    def split(parts, then):
        def fn(ws):
            for i, part in enumerate(parts):
                ws.send_frame(0x1 if i == 0 else 0x0, part, fin=i == len(parts) - 1)
            return then(ws)
        return fn
    euro = "€".encode()
    s.case("ws:fragments_split_char", split([b'{"event":"pusher:ping","data":"' + euro[:1], euro[1:] + b'"}'], still_answers))
    s.case("ws:fragments_split_4byte", split([b'{"event":"pusher:ping","data":"\xf0\x9f', b"\x98", b'\x80"}'], still_answers))
    s.case("ws:fragments_bad_tail", split([b'{"event":"pusher:ping","data":"ok', b'\xc0\xaf"}'], expect_close(1007)))
    s.case("ws:fragments_truncated_end", split([b'{"event":"pusher:ping","data":"x"}', b"\xe2\x82"], expect_close(1007)))
    s.close()
    return s.problems


def size_scenarios(server, ctx):
    s = Scenario(server)
    s.case("ws:size_at_cap", send_then(padded_ping(CAP), still_answers))
    s.case("ws:size_cap_plus_1", send_then(padded_ping(CAP + 1), expect_close(1009)))
    s.case("ws:size_1mib", send_then(padded_ping(1 << 20), expect_close(1009)))
    s.case("ws:size_binary_over", send_then(b"\x00" * (CAP + 1), expect_close(1009), opcode=0x2))

    def fragments(ws):
        ws.send_frame(0x1, b'{"event":"pusher:ping","data":"' + b"a" * 6000, fin=False)
        ws.send_frame(0x0, b"a" * 6000 + b'"}')
        return expect_close(1009)(ws)
    s.case("ws:size_fragments_over", fragments)
    sub = jdump({"event": "pusher:subscribe", "data": {"channel": "private-chunks.preview.1", "auth": ""}})
    long_auth = sub.replace(b'"auth":""', b'"auth":"' + b"x" * (CAP - len(sub)) + b'"')
    s.case("ws:size_subscribe_at_cap", send_then(long_auth, lambda ws: subscription_refused(
        ws, "private-chunks.preview.1", codes=(4009,))))
    s.case("ws:binary_frame", send_then(b"\xff\xfe\x00", error_then_pong, opcode=0x2))
    s.case("ws:binary_json", send_then(b'{"event":"pusher:ping","data":{}}', error_then_pong, opcode=0x2))
    s.close()
    return s.problems


def subscription_refused(ws, echo, codes=(4009,)):
    """subscription_error naming `echo` (None: any name) and pusher:error with one of `codes`, then a pong."""
    seen = {}

    def done(f, _):
        if f.get("event") == "pusher:subscription_error":
            seen["error"] = f
        if f.get("event") == "pusher:error":
            seen["code"] = (f.get("data") or {}).get("code")
        return "error" in seen and "code" in seen
    try:
        ws.events_until(done)
        ws.round_trip()
    except WsClosed as e:
        return f"socket closed with {e.code} (seen {seen})"
    except (AssertionError, TimeoutError) as e:
        return f"{type(e).__name__}: {e}"
    err = seen["error"]
    p = []
    if echo is not None and err.get("channel") != echo and not (echo == "" and err.get("channel") is None):
        p.append(f"subscription_error channel {err.get('channel')!r} ({len(str(err.get('channel')).encode())} bytes), "
                 f"expected {echo!r} ({len(echo.encode())} bytes)")
    if not isinstance(err.get("data"), dict) or not isinstance(err["data"].get("status"), int):
        p.append(f"subscription_error data {err.get('data')!r}")
    if seen["code"] not in codes:
        p.append(f"pusher:error code {seen['code']}, expected {codes}")
    return "; ".join(p) or None


def channel_names():
    out = []
    chars = {1: "a", 2: "é", 3: "€", 4: "\U0001F600"}
    for w, ch in chars.items():
        n0 = 200 // w
        for n in range(n0 - 2, n0 + 3):
            out.append((f"{w}byte_x{n}", ch * n))
    for w, ch in list(chars.items())[1:]:
        for k in range(200 - w - 1, 201):
            out.append((f"a{k}+{w}byte", "a" * k + ch))
    out += [("order_prefix_cut", "private-order.task." + "a" * 180 + "é" + "x"),
            ("preview_prefix_cut", "private-chunks.preview." + "1" * 176 + "€"),
            ("euro_400", "€" * 134), ("emoji_5000", "\U0001F600" * 1250), ("empty", ""),
            ("nul_inside", "private-chunks.preview.1\u0000"), ("control", "private-\u0001\u001f"),
            ("user_overflow", "private-chunks.preview.9223372036854775808"),
            ("user_leading_zero", "private-chunks.preview.00001"),
            ("presence", "presence-x"), ("public", "public-channel")]
    return out


def echo_of(name: str):
    """The name a refusal echoes: whole up to 200 bytes, else cut at a character boundary. How a
    name with control characters is echoed is not pinned (only that the frame is valid JSON)."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in name):
        return None
    return name.encode("utf-8")[:200].decode("utf-8", "ignore")


def channel_scenarios(server, ctx):
    s = Scenario(server)
    for label, name in channel_names():
        frame = jdump({"event": "pusher:subscribe", "data": {"channel": name, "auth": f"{APP_KEY}:00"}})
        if not s.case(f"ws:channel_{label}", send_then(frame, lambda ws, n=name: subscription_refused(ws, echo_of(n)))):
            break
    s.close()
    return s.problems


def message_scenarios(server, ctx):
    s = Scenario(server)
    payloads = [("not_json", b"hello"), ("array", b"[]"), ("empty_object", b"{}"), ("event_number", b'{"event":1}'),
                ("subscribe_no_data", b'{"event":"pusher:subscribe"}'),
                ("data_bad_json_string", b'{"event":"pusher:subscribe","data":"{nope"}'),
                ("channel_number", b'{"event":"pusher:subscribe","data":{"channel":5}}'),
                ("channel_null", b'{"event":"pusher:subscribe","data":{"channel":null}}'),
                ("auth_number", b'{"event":"pusher:subscribe","data":{"channel":"private-chunks.preview.1","auth":5}}'),
                ("deep", b"[" * 5000 + b"]" * 5000), ("unknown_event", b'{"event":"pusher:nope","data":{}}'),
                ("client_event", b'{"event":"client-x","channel":"private-chunks.preview.1","data":{}}'),
                ("nul_event", b'{"event":"pusher:\\u0000","data":{}}'),
                ("lone_surrogate", b'{"event":"pusher:ping","data":"\\ud800"}'),
                ("unsubscribe_unknown", b'{"event":"pusher:unsubscribe","data":{"channel":"\\u0000"}}')]
    for label, payload in payloads:
        then = still_answers if label == "unsubscribe_unknown" else error_then_pong
        s.case(f"ws:message_{label}", send_then(payload, then))
    for label, esc in BAD_ESCAPES.items():
        s.case(f"ws:escape_{label}", send_then(b'{"event":"pusher:subscribe","data":{"channel":"' + esc.encode() + b'"}}',
                                               error_then_pong))
    # a refused subscription does not spoil a good one on the same socket
    def good_after_bad(ws):
        ws.send_json({"event": "pusher:subscribe", "data": {"channel": "a" * 199 + "é"}})
        channel = preview_channel(ctx.user_id)
        ws.send_json({"event": "pusher:subscribe", "data": {"channel": channel, "auth": sign(ws.socket_id, channel)}})
        try:
            ws.events_until(lambda f, _: f.get("event") == "pusher_internal:subscription_succeeded"
                            and f.get("channel") == channel)
        except (AssertionError, TimeoutError, WsClosed) as e:
            return f"no subscription_succeeded after a refused name: {e}"
        return None
    s.case("ws:good_after_bad", good_after_bad)
    s.close()
    return s.problems


def handshake_scenarios(server, ctx):
    problems = []
    for label, path in (("nul", f"/app/{APP_KEY}%00"), ("ff", "/app/%FF"), ("raw_ff", b"/app/\xff"),
                        ("protocol_ff", f"/app/{APP_KEY}?protocol=%FF"), ("protocol_huge", f"/app/{APP_KEY}?protocol=" + "9" * 30),
                        ("control", f"/app/{APP_KEY}%01"), ("long", "/app/" + "k" * 5000)):
        try:
            ws = WsClient(server.public[0], server.public[1], path)
        except (AssertionError, TimeoutError, OSError) as e:
            problems.append(f"ws:handshake_{label}: {e}")
            continue
        with ws:
            if ws.status == 101:
                try:
                    code = ws.wait_close()
                except (TimeoutError, OSError) as e:
                    problems.append(f"ws:handshake_{label}: accepted and never closed ({e})")
                    continue
                if not 4000 <= code < 4100:
                    problems.append(f"ws:handshake_{label}: close code {code}")
            elif ws.status not in (400, 404, 414, 431):
                problems.append(f"ws:handshake_{label}: HTTP {ws.status}")
            problems += [f"ws:handshake_{label}: {p}" for p in ws.problems]
        if not server.alive():
            problems.append(f"ws:handshake_{label}: server process exited")
            break
    return problems


WS_SCENARIOS = [("utf8", utf8_scenarios), ("sizes", size_scenarios), ("channels", channel_scenarios),
                ("messages", message_scenarios), ("handshakes", handshake_scenarios)]


def broadcasting_cases(ctx):
    form = "application/x-www-form-urlencoded"
    own = preview_channel(ctx.user_id)

    def f(label, body: bytes, expect):
        return Case(f"bauth:{label}", "POST", API + "/broadcasting/auth", expect, body=body, content_type=form)

    enc = lambda s: urllib.parse.quote(s, safe="").encode()  # noqa: E731
    out = [f("valid", b"socket_id=1.2&channel_name=" + enc(own), OK(bare=True)),
           f("socket_nul", b"socket_id=%00&channel_name=" + enc(own), V("socket_id")),
           f("socket_ff", b"socket_id=%FF.1&channel_name=" + enc(own), V("socket_id")),
           f("socket_tail_nul", b"socket_id=1.2%00&channel_name=" + enc(own), V("socket_id")),
           f("socket_21_digits", b"socket_id=" + b"1" * 21 + b".1&channel_name=" + enc(own), V("socket_id")),
           f("socket_20_digits", b"socket_id=" + b"9" * 20 + b".1&channel_name=" + enc(own), OK(bare=True)),
           f("socket_negative", b"socket_id=-1.2&channel_name=" + enc(own), V("socket_id")),
           f("channel_nul", b"socket_id=1.2&channel_name=%00", V("channel_name")),
           f("channel_tail_nul", b"socket_id=1.2&channel_name=" + enc(own) + b"%00", V("channel_name")),
           f("channel_overlong", b"socket_id=1.2&channel_name=" + enc(own) + b"%C0%AF", V("channel_name")),
           f("channel_cut_e", b"socket_id=1.2&channel_name=" + enc("a" * 199 + "é"), V("channel_name")),
           f("channel_cut_emoji", b"socket_id=1.2&channel_name=" + enc("a" * 198 + "\U0001F600"), V("channel_name")),
           f("channel_user_overflow", b"socket_id=1.2&channel_name=private-chunks.preview.9223372036854775808",
             V("channel_name")),
           f("channel_user_zeros", b"socket_id=1.2&channel_name=private-chunks.preview.0000" + str(ctx.user_id).encode(),
             V("channel_name")),
           f("channel_upper_order", b"socket_id=1.2&channel_name=private-order.task." + ctx.order_id.upper().encode(),
             V("channel_name")),
           f("channel_other_user", b"socket_id=1.2&channel_name=" + enc(preview_channel(ctx.user_id + 1000)), E(403)),
           f("both_bad", b"socket_id=x&channel_name=y", V("socket_id", "channel_name")),
           f("empty", b"", V("socket_id", "channel_name")),
           f("raw_ff_form", b"socket_id=1.2&channel_name=\xff", V("channel_name")),
           f("plus_and_percent", b"socket_id=1.2&channel_name=%%%", V("channel_name")),
           Case("bauth:multipart", "POST", API + "/broadcasting/auth", E(415), body=b"--x--",
                content_type="multipart/form-data; boundary=x"),
           Case("bauth:no_key", "POST", API + "/broadcasting/auth", AUTH("missing"), body=b"socket_id=1.2", key=None,
                content_type=form)]
    return out


def aborted_bodies(test, _state):
    """Declared bodies that never fully arrive, then a close: the server stays (soketi's CVE-2022-21667)."""
    from harness import RawConn
    for declared, sent in ((100, b"socket_id="), (4000, b""), (10, b"{")):
        with RawConn(test.server.public[0], test.server.public[1], timeout=5) as c:
            c.send(build_request("POST", API + "/broadcasting/auth", [("X-API-KEY", test.ctx.keys["main"]),
                                                                      ("Content-Length", str(declared))]) + sent)
    time.sleep(0.2)
    return None if test.server.alive() else "server exited after aborted bodies"


def groups(ctx):
    return [Group("broadcasting_auth", broadcasting_cases(ctx), after=aborted_bodies)]


class HostileRealtimeTests(HostileCase):
    server_env = dict(HostileCase.server_env, **realtime_env())

    def run_ws(self, fn):
        problems = fn(self.server, self.ctx)
        problems += self.alive_problems()
        if problems:
            self.fail(f"{len(problems)} problem(s):\n  " + "\n  ".join(problems))

    def test_broadcasting_auth(self):
        self.run_group(groups(self.ctx)[0])


for _name, _fn in WS_SCENARIOS:
    def _test(self, fn=_fn):
        self.run_ws(fn)
    _test.__name__ = f"test_ws_{_name}"
    setattr(HostileRealtimeTests, _test.__name__, _test)


if __name__ == "__main__":
    unittest.main()
