"""Hostile bytes outside the body (reliability anchors T16, T17; spec 2.1, 4.1, 4.4, 4.5, 5, 8.2.4):
query strings, path segments, header values, integer parameters, API keys of the wrong shape,
duplicate and conflicting headers, and request smuggling shapes, on every route.

Decisions where the spec is silent (asserted here):
  - A query parameter whose name or percent-decoded value is not valid UTF-8 or holds a control
    character (below 0x20, or 0x7F) is 422 naming the parameter (`query` when the name itself is
    bad), also on routes that take no parameters and on the signed download link.
  - A path whose percent-decoded form is not valid UTF-8 or holds a control character is 400
    {success: false, message}, before any route or ban counting. Valid UTF-8 paths are looked up
    as usual (404).
  - Integer parameters are decimal digits only: a sign, spaces, exponents, hex, fractions and
    full-width digits are 422 naming the parameter; so is a value beyond int64 or outside the
    parameter's range. Leading zeros are allowed ("00001" is page 1). An empty value is the default.
  - An id in a path that is not an id we issue (not a uuid, a 64-hex preview id, ...) is 404,
    whatever number it spells. A uuid in capitals names the same object (as for templates and
    voices): an order cancelled by that spelling returns its locked funds.
  - X-API-KEY must have the shape of our keys (mg_ and 43 characters of [A-Za-z0-9_-]); any other
    value is 401 auth.api_key.invalid without a key lookup (mediagen_key_cache_misses_total and
    mediagen_db_queries_total do not move).
  - Two X-API-KEY fields that differ are never served as either key: 400 or 401 invalid.
    Identical copies may be served. Header values with bytes >= 0x80 are read as opaque:
    X-Locale falls back to en, X-Timezone to UTC (echoed as `UTC`), Idempotency-Key is 422.
    NUL and other control bytes in a header line are 400 (or a close).
  - Request smuggling: a Content-Length beside a Transfer-Encoding, a Transfer-Encoding other than
    `chunked`, a bad chunk size, an obs-fold line (T16), two different Content-Lengths: 400 (or a
    bare close), the connection is closed, and whatever followed on the connection never runs.
"""

import unittest

from harness import API, metric_sum
from hostile_support import (AUTH, OK, V, D, E, ANY, Case, Expect, Group, HostileCase, build_request, data_check, jdump)

# Hostile query values: (name, percent-encoded or raw bytes)
BAD_VALUES = [("nul", b"%00"), ("ff", b"%FF"), ("overlong", b"%C0%AF"), ("surrogate", b"%ED%A0%80"),
              ("five_byte", b"%F8%88%80%80%80"), ("raw_ff", b"\xff"), ("raw_trunc", b"ab\xc3"), ("soh", b"%01"),
              ("us", b"%1F"), ("del", b"%7F"), ("lf", b"%0A"), ("cr", b"%0D"), ("tab", b"%09"),
              ("trunc3", b"%E2%82"), ("raw_cont", b"\x80"), ("nul_inside", b"ok%00ok")]
BAD_PATH = [("nul", b"%00"), ("ff", b"%FF"), ("overlong", b"%C0%AF"), ("surrogate", b"%ED%A0%80"), ("raw_ff", b"\xff"),
            ("raw_cont", b"\x80"), ("soh", b"%01"), ("del", b"%7F"), ("lf", b"%0A"), ("esc", b"%1B"),
            ("five_byte", b"%F8%88%80%80%80")]


def get_routes(ctx):
    """GET routes: path -> the parameter names they read (a hostile value goes into one of them)."""
    o, i, p, t = ctx.order_id, ctx.item_id, ctx.preview_id, ctx.template_id
    return {
        "/user": ["x"], "/key": ["x"], "/templates": ["x"], "/templates/config-options": ["x"],
        "/templates/browse": ["page", "per_page"], f"/templates/{t}": ["x"],
        "/orders": ["page", "per_page", "template_id", "status", "task_type", "task_type[]"],
        f"/orders/{o}": ["x"], f"/orders/{o}/items": ["x"], f"/orders/{o}/items/{i}": ["x"],
        f"/orders/{o}/items/{i}/text": ["x"], "/orders/chunks/preview": ["template_id", "text_hash", "generation_mode"],
        f"/orders/chunks/preview/{p}": ["page", "per_page"],
        "/voices": ["page", "per_page", "service", "language", "locale", "gender", "tag", "search"],
        "/voices/library": ["search", "page"], "/voices/public": ["language", "per_page"], "/voices/tags": ["x"],
        "/voices/provider_a/library": ["page", "page_size", "search"], "/voices/provider_b": ["page_size", "language"],
        "/voices/provider_b/filters": ["x"], "/voices/provider_c": ["page", "gender"], "/voices/provider_d": ["per_page"],
        f"/voices/{ctx.extra['voice_uuid']}": ["x"],
    }


def key_for(path):
    return "preview2" if path.startswith("/orders/chunks/preview") else "main"


def query_cases(ctx):
    out = []
    n = 0
    for path, names in get_routes(ctx).items():
        for name in names[:3]:
            for _ in range(2):
                label, value = BAD_VALUES[n % len(BAD_VALUES)]
                n += 1
                out.append(Case(f"query:{path}?{name}={label}", "GET", (API + path + "?" + name + "=").encode() + value,
                                V(name.removesuffix("[]") if name == "task_type[]" else name), key=key_for(path)))
    # bad names
    for label, raw in (("ff", b"%FF"), ("nul", b"a%00b"), ("lf", b"%0A"), ("raw_ff", b"\xff"), ("del", b"x%7F")):
        out.append(Case(f"query:name_{label}", "GET", API.encode() + b"/orders?" + raw + b"=1", V("query")))
        out.append(Case(f"query:voices_name_{label}", "GET", API.encode() + b"/voices?page=1&" + raw + b"=1", V("query")))
    # the signed download link's query is a token verified as a whole (open route, no key): any
    # byte that is not the signed one is a bad link, 403
    link = b"/storage/download?path=%FF&expires=1&download=1&signature=x"
    out.append(Case("query:download_path", "GET", API.encode() + link, E(403), key=None))
    out.append(Case("query:download_sig_nul", "GET", API.encode() + b"/storage/download?path=a&expires=1&download=1"
                    b"&signature=%00", E(403), key=None))
    # valid UTF-8 and ordinary escapes pass
    for label, q in (("e_acute", b"search=%C3%A9"), ("raw_utf8", b"search=\xc3\xa9t\xc3\xa9"), ("euro", b"x=%E2%82%AC"),
                     ("plus", b"search=a+b"), ("emoji", b"search=%F0%9F%98%80")):
        out.append(Case(f"query:accepted_{label}", "GET", API.encode() + b"/voices?" + q, OK()))
    return out


INT_VALUES = [("int64_plus_1", "9223372036854775808", False), ("minus_one", "-1", False), ("exp", "1e400", False),
              ("leading_zeros", "00001", True), ("space", "%201", False), ("hex", "0x10", False),
              ("uint64_plus_1", "18446744073709551616", False), ("int64_min_minus_1", "-9223372036854775809", False),
              ("fraction", "1.0", False), ("fullwidth", "%EF%BC%91", False), ("plus_sign", "%2B1", False),
              ("huge", "9" * 40, False), ("empty", "", True), ("trailing_space", "1%20", False)]


def integer_cases(ctx):
    p = ctx.preview_id
    params = [  # (path, name, shape of the page answer, full value list)
        ("/orders", "page", "shape1", True), ("/orders", "per_page", "shape1", True),
        ("/templates/browse", "page", "shape1", True), ("/templates/browse", "per_page", "shape1", False),
        ("/voices", "page", "shape1", False), ("/voices", "per_page", "shape1", True),
        ("/voices/library", "per_page", "shape1", False), ("/voices/public", "page", "shape1", False),
        ("/voices/provider_c", "per_page", "shape1", False), ("/voices/provider_d", "page", "shape1", False),
        ("/voices/provider_a/library", "page", "shape2", False), ("/voices/provider_a/library", "page_size", "shape2", True),
        ("/voices/provider_b", "page", "shape2", True), ("/voices/provider_b", "page_size", "shape2", False),
        (f"/orders/chunks/preview/{p}", "page", "preview", True), (f"/orders/chunks/preview/{p}", "per_page", "preview", False),
    ]
    out = []
    for path, name, shape, full in params:
        values = INT_VALUES if full else [v for v in INT_VALUES if v[0] in ("int64_plus_1", "minus_one", "exp",
                                                                            "leading_zeros", "space", "hex")]
        for label, value, ok in values:
            target = f"{API}{path}?{name}={value}"
            if not ok:
                exp = V(name)
            elif label == "empty":
                exp = OK()
            elif shape == "shape1":
                exp = OK(check=data_check(**{"current_page" if name == "page" else "per_page": 1}))
            elif shape == "shape2":
                exp = OK(check=data_check(**{name: 1}))
            else:
                exp = OK(check=lambda body, n=name: None if body["data"]["page"][
                    "current_page" if n == "page" else "per_page"] == 1 else f"page {body['data']['page']}")
            out.append(Case(f"int:{path}?{name}={label}", "GET", target, exp, key=key_for(path)))
    return out


def path_id_cases(ctx):
    o = ctx.order_id
    ids = ["9223372036854775808", "-1", "1e400", "00001", "%201", "0x10", "1", "0", "x" * 3000, "..", "%2e%2e",
           o + "%20", o[:-1], "{" + o + "}"]
    shapes = [("GET", "/orders/{}"), ("GET", "/orders/{}/items"), ("GET", f"/orders/{o}/items/{{}}"),
              ("GET", f"/orders/{o}/items/{{}}/text"), ("GET", "/templates/{}"), ("GET", "/voices/{}"),
              ("GET", "/orders/chunks/preview/{}"), ("POST", "/orders/{}/cancel"), ("DELETE", "/templates/{}"),
              ("POST", "/orders/{}/retry"), ("PUT", "/templates/{}")]
    out = []
    n = 0
    for method, shape in shapes:
        for _ in range(5):
            value = ids[n % len(ids)]
            n += 1
            body = jdump({"name": "x"}) if method == "PUT" else (b"{}" if method == "POST" else None)
            label = value if len(value) <= 40 else f"{value[:8]}...({len(value)})"
            out.append(Case(f"id:{method} {shape.format(label)}", method, API + shape.format(value), E(404),
                            body=body))
    return out


def path_byte_cases(ctx):
    o, i = ctx.order_id, ctx.item_id
    shapes = [("GET", b"/api/orders/{}"), ("GET", b"/api/orders/" + o.encode() + b"/items/{}"),
              ("GET", b"/api/templates/{}"), ("GET", b"/api/voices/{}"), ("GET", b"/api/orders/chunks/preview/{}"),
              ("POST", b"/api/orders/{}/cancel"), ("DELETE", b"/api/templates/{}"), ("GET", b"/api/nope{}"),
              ("GET", b"/api/{}/user"), ("GET", b"/ap{}i/user"), ("GET", b"/healthz{}"),
              ("GET", b"/api/orders/" + o.encode() + b"/items/" + i.encode() + b"/text{}")]
    out = []
    n = 0
    for method, shape in shapes:
        for _ in range(3):
            label, raw = BAD_PATH[n % len(BAD_PATH)]
            n += 1
            exp = Expect(statuses=(400,), check=lambda body: None if set(body) == {"success", "message"}
                         else f"400 keys {sorted(body)}")
            out.append(Case(f"path:{method} {shape.decode('latin-1')}:{label}", method, shape.replace(b"{}", raw), exp,
                            body=b"{}" if method == "POST" else None))
    # valid UTF-8 paths are ordinary misses; the echoed path stays valid JSON
    out.append(Case("path:utf8_voice", "GET", b"/api/voices/%C3%A9", E(404)))
    out.append(Case("path:utf8_raw_voice", "GET", b"/api/voices/\xc3\xa9t\xc3\xa9", E(404)))
    out.append(Case("path:utf8_unknown", "GET", b"/api/n%C3%A9ant", D(404, "endpoint_not_found")))
    return out


def header_cases(ctx):
    user = API + "/user"
    out = []
    for label, value in (("ff", b"\xff\xfe"), ("latin1", b"fran\xe7ais"), ("long", b"e" * 6000), ("truncated", b"r\xd1")):
        out.append(Case(f"header:x_locale_{label}", "GET", user, OK(check=lambda b: None if b["message"] == "OK."
                                                                      else f"message {b['message']!r}"),
                        headers=(("X-Locale", value),)))
    for label, value in (("ff", b"\xff"), ("overlong", b"Europe/Mosc\xc0\xaf"), ("traversal", b"../../etc/passwd"),
                         ("offset", b"+03:00"), ("utc_offset", b"UTC+3"), ("long", b"Z" * 6000), ("cont", b"\x80\x80")):
        out.append(Case(f"header:x_timezone_{label}", "GET", user, OK(header=("X-Timezone", "UTC")),
                        headers=(("X-Timezone", value),)))
    for zone, offset in (("Europe/Moscow", "+03:00"), ("Asia/Kathmandu", "+05:45"), ("Etc/GMT+3", "-03:00")):
        out.append(Case(f"header:x_timezone_{zone}", "GET", user, OK(header=("X-Timezone", zone), check=lambda body, o=offset: (
            None if body["data"]["created_at"].endswith(o) else f"created_at {body['data']['created_at']}")),
            headers=(("X-Timezone", zone),)))
    order = jdump({"template_id": ctx.template_id, "input_text": "Hello there."})
    for label, value in (("ff", b"\xff"), ("space", b"a b"), ("long", b"k" * 300), ("utf8", b"cl\xc3\xa9"),
                         ("empty_like", b"\x80")):
        out.append(Case(f"header:idempotency_{label}", "POST", API + "/orders", V("Idempotency-Key"), body=order,
                        headers=(("Idempotency-Key", value),)))
    for label, value in (("xff_ff", b"\xff"), ("xff_mixed", b"1.2.3.4\x80, 5.6.7.8")):
        out.append(Case(f"header:{label}", "GET", user, OK(), headers=(("X-Forwarded-For", value),)))
    preview = jdump({"template_id": ctx.template_id, "input_text": "Hello there."})
    out.append(Case("header:content_type_ff", "POST", API + "/orders/chunks/preview", E(415), body=preview,
                    content_type=b"\xff", key="preview2"))
    # control bytes in a header line are not HTTP
    for label, line in (("nul_value", b"X-Foo: a\x00b"), ("soh_value", b"X-Foo: \x01"), ("del_value", b"X-Foo: \x7f"),
                        ("ff_name", b"X-F\xffoo: 1"), ("nul_name", b"X-\x00: 1"), ("nul_key", b"X-API-KEY: mg_\x00"),
                        ("esc_key", b"X-API-KEY: mg_\x1b[2J")):
        raw = build_request("GET", user, [("X-API-KEY", ctx.keys["main"])]).replace(b"Host:", line + b"\r\nHost:")
        out.append(Case(f"header:{label}", "GET", user, E(400, may_close=True), raw=raw))
    # a bare LF may end a line (RFC 9112 2.2); a bare CR may not be taken as one
    for label, line in (("lf_in_value", b"X-Foo: a\nX-Bar: c"), ("bare_cr", b"X-Foo: a\rb")):
        raw = build_request("GET", user, [("X-API-KEY", ctx.keys["main"])]).replace(b"Host:", line + b"\r\nHost:")
        out.append(Case(f"header:{label}", "GET", user, ANY(E(400, may_close=True), OK()), raw=raw))
    return out


def api_key_cases(ctx):
    good = ctx.keys["main"]
    body = good[3:]
    bad = [("short", "mg_" + "A" * 42), ("long", "mg_" + "A" * 44), ("dot", "mg_" + "A" * 42 + "."),
           ("plus", "mg_" + "A" * 42 + "+"), ("slash", "mg_" + "/" + "A" * 42), ("equals", "mg_" + "A" * 42 + "="),
           ("inner_space", "mg_" + "A" * 20 + " " + "A" * 22), ("upper_prefix", "MG_" + body), ("dash_prefix", "mg-" + body),
           ("no_prefix", body + "abc"), ("prefix_only", "mg_"), ("e_acute", "mg_" + "A" * 42 + "é"),
           ("bearer", "Bearer " + good), ("k257", "mg_" + "A" * 254), ("k5000", "mg_" + "A" * 4997),
           ("good_plus_char", good + "x"), ("good_minus_char", good[:-1]), ("quoted", '"' + good + '"'),
           ("comma_list", good + ", " + good)]
    out = [Case(f"key:{label}", "GET", API + "/user", AUTH("invalid"), headers=(("X-API-KEY", value.encode()),), key=None)
           for label, value in bad]
    for label, raw in (("raw_ff", b"\xff" * 46), ("raw_tail", b"mg_" + b"A" * 42 + b"\xff"), ("raw_cont", b"mg_" + b"\x80" * 43)):
        out.append(Case(f"key:{label}", "GET", API + "/user", AUTH("invalid"), headers=(("X-API-KEY", raw),), key=None))
    for route in ("/templates", "/orders", "/voices/tags", f"/orders/{ctx.order_id}"):
        out.append(Case(f"key:short_on{route}", "GET", API + route, AUTH("invalid"),
                        headers=(("X-API-KEY", "mg_short"),), key=None))
    out.append(Case("key:short_on_post", "POST", API + "/orders", AUTH("invalid"), body=b"{}",
                    headers=(("X-API-KEY", "mg_short"),), key=None))
    return out


def metrics_before(test):
    return test.server.metrics()


def metrics_unchanged(test, before):
    after = test.server.metrics()
    for name in ("mediagen_key_cache_misses_total", "mediagen_db_queries_total"):
        if metric_sum(after, name) != metric_sum(before, name):
            return f"{name} moved from {metric_sum(before, name)} to {metric_sum(after, name)}: a malformed key was looked up"
    return None


def duplicate_header_cases(ctx):
    good, other = ctx.keys["main"], ctx.keys["read_only"]
    # X-API-KEY more than once is ambiguous: invalid, whatever the copies hold.
    refused = AUTH("invalid")
    user = API + "/user"
    out = [
        Case("dup:key_same", "GET", user, refused,
             headers=(("X-API-KEY", good), ("X-API-KEY", good)), key=None),
        Case("dup:key_good_then_bad", "GET", user, refused, headers=(("X-API-KEY", good), ("X-API-KEY", "mg_x")), key=None),
        Case("dup:key_bad_then_good", "GET", user, refused, headers=(("X-API-KEY", "mg_x"), ("X-API-KEY", good)), key=None),
        Case("dup:key_two_accounts_keys", "GET", user, refused, headers=(("X-API-KEY", other), ("X-API-KEY", good)), key=None),
        Case("dup:key_good_then_empty", "GET", user, refused,
             headers=(("X-API-KEY", good), ("X-API-KEY", "")), key=None),
        Case("dup:key_case_variants", "GET", user, refused, headers=(("X-API-KEY", good), ("x-api-key", "mg_y")), key=None),
        Case("dup:timezone", "GET", user, OK(), headers=(("X-Timezone", "Europe/Moscow"), ("X-Timezone", "\xff"))),
        Case("dup:locale", "GET", user, OK(), headers=(("X-Locale", "ru"), ("X-Locale", "\xff"))),
    ]
    return out


def smuggle(ctx, name, head: bytes, body: bytes, expect=None, sequence=None, closes=True):
    """A hostile request, then a request that creates a template named after the case: it must never run."""
    follow = build_request("POST", API + "/templates", [("X-API-KEY", ctx.keys["main"]), ("Content-Type", "application/json")],
                           jdump({"service_key": "provider_b", "name": f"smuggled-{name}", "config": {"tts_settings": {
                               "mode": "mode_v1", "model_id": "b-standard", "voice_id": ctx.voice_id}}}))
    raw = head + b"\r\n\r\n" + body + follow
    return Case(f"smuggle:{name}", "POST", "", expect, raw=raw,
                sequence=sequence or (expect or E(400, 413, 501, may_close=True),), closes=closes)


def smuggling_cases(ctx):
    key = ctx.keys["main"].encode()
    pv = b"POST /api/orders/chunks/preview HTTP/1.1\r\nHost: x\r\nX-API-KEY: " + key + b"\r\nContent-Type: application/json"
    inner = b"GET /api/user HTTP/1.1\r\nHost: x\r\nX-API-KEY: " + key + b"\r\n\r\n"
    out = [
        smuggle(ctx, "cl_te", pv + b"\r\nContent-Length: " + str(5 + len(inner)).encode() + b"\r\nTransfer-Encoding: chunked",
                b"0\r\n\r\n" + inner),
        smuggle(ctx, "te_cl", pv + b"\r\nTransfer-Encoding: chunked\r\nContent-Length: 4",
                hex(len(inner))[2:].encode() + b"\r\n" + inner + b"\r\n0\r\n\r\n"),
        smuggle(ctx, "te_xchunked", pv + b"\r\nTransfer-Encoding: xchunked\r\nContent-Length: 5", b"0\r\n\r\n"),
        smuggle(ctx, "te_space_before_colon", pv + b"\r\nTransfer-Encoding : chunked", b"0\r\n\r\n"),
        smuggle(ctx, "te_two_fields", pv + b"\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity", b"0\r\n\r\n"),
        smuggle(ctx, "te_vtab", pv + b"\r\nTransfer-Encoding: \x0bchunked", b"0\r\n\r\n"),
        smuggle(ctx, "te_obs_fold", pv + b"\r\nTransfer-Encoding:\r\n chunked\r\nContent-Length: 5", b"0\r\n\r\n"),
        smuggle(ctx, "te_gzip_chunked", pv + b"\r\nTransfer-Encoding: gzip, chunked", b"0\r\n\r\n"),
        smuggle(ctx, "cl_plus", pv + b"\r\nContent-Length: +5", b"{}   "),
        smuggle(ctx, "cl_list_differ", pv + b"\r\nContent-Length: 5, 6", b"{}    "),
        smuggle(ctx, "cl_two_differ", pv + b"\r\nContent-Length: 2\r\nContent-Length: 40", b"{}" + b" " * 38),
        smuggle(ctx, "cl_hex", pv + b"\r\nContent-Length: 0x2", b"{}"),
        smuggle(ctx, "obs_fold_key", b"GET /api/user HTTP/1.1\r\nHost: x\r\nX-API-KEY: " + key + b"\r\n extra", b""),
        smuggle(ctx, "bare_lf_lines", b"GET /api/user HTTP/1.1\nHost: x\nX-API-KEY: " + key + b"\nContent-Length: 0", b"",
                expect=ANY(E(400, may_close=True), OK()), closes=False),
    ]
    for label, size in (("zz", b"ZZ"), ("negative", b"-1"), ("hex_prefix", b"0x10"), ("overflow", b"f" * 17),
                        ("plus", b"+5"), ("space_inside", b"1 0")):
        out.append(smuggle(ctx, f"chunk_{label}", pv + b"\r\nTransfer-Encoding: chunked", size + b"\r\n{}   \r\n0\r\n\r\n"))
    out.append(smuggle(ctx, "chunk_short", pv + b"\r\nTransfer-Encoding: chunked", b"10\r\n{}\r\n0\r\n\r\n"))
    out.append(smuggle(ctx, "chunk_no_crlf", pv + b"\r\nTransfer-Encoding: chunked", b"2\r\n{}XX0\r\n\r\n"))
    # an oversized declaration is refused before the body, and the body is never read as requests
    out.append(smuggle(ctx, "declared_too_large", pv.replace(b"/orders/chunks/preview", b"/storage/url")
                       + b"\r\nContent-Length: 10485760", inner))
    # well-framed refusals keep the connection usable: both requests are answered in order
    bad_json = pv + b"\r\nContent-Length: 5\r\n\r\n{nope"
    out.append(Case("pipeline:422_then_200", "POST", "", None, raw=bad_json + inner.replace(
        b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"), sequence=(V("body"), OK())))
    out.append(Case("pipeline:401_then_200", "GET", "", None,
                    raw=b"GET /api/user HTTP/1.1\r\nHost: x\r\nX-API-KEY: mg_bad\r\n\r\n" + inner.replace(
                        b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"), sequence=(AUTH("invalid"), OK())))
    return out


def smuggled_none(test, _state):
    n = test.h.psql_value("SELECT count(*) FROM templates WHERE name LIKE 'smuggled-%'")
    return None if n == "0" else f"{n} smuggled request(s) created templates"


def groups(ctx):
    return [
        Group("query_bytes", query_cases(ctx)),
        Group("integer_parameters", integer_cases(ctx)),
        Group("path_ids", path_id_cases(ctx)),
        Group("path_bytes", path_byte_cases(ctx)),
        Group("header_values", header_cases(ctx)),
        Group("api_key_shapes", api_key_cases(ctx), before=metrics_before, after=metrics_unchanged),
        Group("duplicate_headers", duplicate_header_cases(ctx)),
        Group("smuggling", smuggling_cases(ctx), after=smuggled_none),
    ]


def wire_fixtures(ctx):
    """The one extra fixture of this corpus: a catalogue voice's uuid."""
    listing = ctx.server.api("GET", "/voices", ctx.keys["main"]).body["data"]["items"]
    ctx.extra["voice_uuid"] = listing[0]["id"]


class HostileWireTests(HostileCase):

    @classmethod
    def prepare(cls):
        super().prepare()
        wire_fixtures(cls.ctx)

    def tearDown(self):
        self.assertInvariants()

    def test_uppercase_uuid_names_the_same_order(self):
        """An uppercase spelling of an issued uuid is the same order: read and cancelled as that
        one, with its locked funds returned (the escrow is keyed by the lowercase id)."""
        key = self.ctx.keys["main"]
        created = self.assertSuccess(self.server.api("POST", "/orders", key, body={
            "template_id": self.ctx.template_id, "input_text": "Cancel me by another spelling."}), 201)
        upper = created["id"].upper()
        self.assertEqual(self.assertSuccess(self.server.api("GET", f"/orders/{upper}", key))["id"], created["id"])
        cancelled = self.assertSuccess(self.server.api("POST", f"/orders/{upper}/cancel", key, body={}))
        self.assertEqual((cancelled["id"], cancelled["status"]), (created["id"], "cancelled"))
        left = self.h.psql_value("SELECT coalesce(sum(balance), 0) FROM ledger_accounts WHERE kind IN "
                                 f"('escrow', 'quota_escrow') AND order_id = '{created['id']}'")
        self.assertEqual(left, "0", "the cancelled order's escrow still holds funds")


for _g in ("query_bytes", "integer_parameters", "path_ids", "path_bytes", "header_values", "api_key_shapes",
           "duplicate_headers", "smuggling"):
    def _test(self, n=_g):
        self.run_group(next(g for g in groups(self.ctx) if g.name == n))
    _test.__name__ = f"test_{_g}"
    setattr(HostileWireTests, _test.__name__, _test)


if __name__ == "__main__":
    unittest.main()
