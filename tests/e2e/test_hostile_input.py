"""Hostile JSON bodies on every route that takes one (reliability anchor T17; spec 2.1, 4.1.1, 4.3,
4.4, 4.9, 8.2.4), and, in HostileSoakTests, the memory and descriptor check after the whole
hostile corpus (this module's, test_hostile_wire's and test_hostile_realtime's) has run.

Routes: POST /templates, PUT and PATCH /templates/{template}, POST /orders (tts, sfx, music),
POST /orders/chunks/preview, POST /orders/{order}/retry, /cancel, /items/retry-failed,
/items/{item}/retry, /items/{item}/regenerate, POST /storage/url and POST /broadcasting/auth
(JSON form). Every base body is valid, so the one hostile part is the only reason to refuse.

Decisions where the spec is silent (asserted here):
  - Invalid UTF-8 anywhere in a body, a lone surrogate escape (\\ud800) and any other string the
    JSON grammar refuses make the body unreadable: 422 with errors.body.
  - A C0 control character other than TAB, LF and CR, escaped (\\u0000, \\u001f...), in any string
    of a JSON body (values and keys, nested, also in fields the route ignores) is 422 naming the
    dotted path of that string (config.tts_settings.voice_id, task_data.prompt, note); inside an
    array or in a key, one field whose name starts with the path of its container. Unescaped
    control bytes are not JSON: errors.body. TAB, LF and CR are accepted.
    DEL (0x7F) is refused like them.
  - JSON null is "absent" for optional fields and "missing" for required ones. A whole body that
    is null, an array, a string or a number is errors.body.
  - A megabyte string is 422 naming its field when the field has a smaller limit (input_text
    1,000,000 characters, prompts 5,000), or 413 when the body is over the route's cap.
  - A body deeper than the parser's nesting limit is errors.body, unless it is larger than the
    route's body cap, which answers 413 first (templates 64 KiB, storage 8 KiB, broadcasting
    4 KiB, order actions about 216 KB).
  - Duplicate keys: the last occurrence is the value (what is stored is that one); a NUL in an
    earlier copy is either refused like any other or dropped with the copy, never stored.
  - A body on the action routes that take none (cancel, retry-failed) is still read: it must be
    JSON, and strings in it follow the same control-character rule.
  - voice_search without audio is source_file_required before any charge; an upload is judged by
    content (source_file_unsupported: a PNG named .wav, a WAV header with nothing after it); a
    form without task_type is a validation error on it; a declared 1 GB body is 413 before it is
    read. test_hostile_uploads has the whole multipart list on both upload routes.
"""

import json
import time
import unittest

import test_hostile_realtime
import test_hostile_wire
from harness import API
from hostile_support import (AUTH, BAD_ESCAPES, BIG_TIMEOUT, CAP_ACTIONS, CAP_BROADCASTING, CAP_STORAGE,
                             CAP_TEMPLATES, CONTROL_ESCAPES, D, E, INVALID_UTF8, OK, V, VP, Case, Group, HostileCase,
                             ANY, escaped, fd_count, jdump, rss_kib, run_case, soak_asan_options, with_raw)
from realtime_support import realtime_env

M = "@@M@@"   # placeholder string replaced by raw bytes or escapes


def routes(ctx):
    """name -> (method, path, a valid base body). Accepted as is, except where the order is done
    (retry-failed, cancel, item retry: a domain refusal).
    """
    t = ctx.template_id
    tts = {"mode": "mode_v1", "model_id": "b-standard", "voice_id": ctx.voice_id}
    o, i = ctx.order_id, ctx.item_id
    return {
        "template": ("POST", f"{API}/templates", {"service_key": "provider_b", "name": "n", "config": {"tts_settings": tts}}),
        "template_put": ("PUT", f"{API}/templates/{ctx.other_template_id}", {"name": "renamed"}),
        "template_patch": ("PATCH", f"{API}/templates/{ctx.other_template_id}", {"name": "renamed"}),
        "order": ("POST", f"{API}/orders", {"template_id": t, "input_text": "Hello there."}),
        "sfx": ("POST", f"{API}/orders", {"task_type": "sfx", "task_data": {"text": "rain on a tin roof"}}),
        "music": ("POST", f"{API}/orders", {"task_type": "music", "task_data": {"prompt": "calm piano", "n_variants": 1}}),
        "preview": ("POST", f"{API}/orders/chunks/preview", {"template_id": t, "input_text": "Hello there."}),
        "order_retry": ("POST", f"{API}/orders/{o}/retry", {}),
        "cancel": ("POST", f"{API}/orders/{o}/cancel", {}),
        "retry_failed": ("POST", f"{API}/orders/{o}/items/retry-failed", {}),
        "item_retry": ("POST", f"{API}/orders/{o}/items/{i}/retry", {"text": "Hello again."}),
        "regenerate": ("POST", f"{API}/orders/{o}/items/{i}/regenerate", {"text": "Hello again."}),
        "storage": ("POST", f"{API}/storage/url", {"path": "results/none.mp3", "download": True}),
        "broadcasting": ("POST", f"{API}/broadcasting/auth",
                         {"socket_id": "123.456", "channel_name": f"private-chunks.preview.{ctx.user_id}"}),
    }


def put(obj, path, value):
    """A deep copy of obj with the dotted path set to value (missing objects are created)."""
    obj = json.loads(json.dumps(obj))
    cur = obj
    parts = path.split(".")
    for p in parts[:-1]:
        cur = cur.setdefault(p, {})
    cur[parts[-1]] = value
    return obj


def case(ctx, route, name, body: bytes, expect, key="main", timeout=None, ct=None):
    method, path, _ = routes(ctx)[route]
    return Case(f"{route}:{name}", method, path, expect, body=body, key=key, content_type=ct,
                **({"timeout": timeout} if timeout else {}))


# Text fields of each route (dotted paths); a marker goes into one of them at a time.
TEXT_FIELDS = {
    "template": ["name", "service_key", "config.tts_settings.mode", "config.tts_settings.model_id",
                 "config.tts_settings.voice_id", "config.tts_settings.language_code",
                 "config.tts_settings.voice_settings.stability", "note"],
    "template_put": ["name", "config.tts_settings.voice_id", "note"],
    "template_patch": ["name", "service_key"],
    "order": ["input_text", "template_id", "task_type", "config_override.generation_mode", "quote_token",
              "task_data.note", "note"],
    "sfx": ["task_data.text", "task_data.note"],
    "music": ["task_data.prompt"],
    "preview": ["input_text", "template_id", "task_type", "generation_mode", "text_hash", "previous_preview_id", "note"],
    "order_retry": ["quote_token", "note"],
    "cancel": ["reason"],
    "retry_failed": ["note"],
    "item_retry": ["text"],
    "regenerate": ["text"],
    "storage": ["path", "note"],
    "broadcasting": ["socket_id", "channel_name", "note"],
}


def invalid_utf8_cases(ctx):
    out = []
    everything = ("order", "preview", "template")
    for route, fields in TEXT_FIELDS.items():
        forms = INVALID_UTF8.items() if route in everything else list(INVALID_UTF8.items())[::5]
        base = routes(ctx)[route][2]
        for n, (form, raw) in enumerate(forms):
            fld = fields[n % len(fields)]
            out.append(case(ctx, route, f"utf8:{form}@{fld}", with_raw(jdump(put(base, fld, M)), M, raw), V("body")))
    # in a key, and between tokens
    base = routes(ctx)["order"][2]
    out.append(case(ctx, "order", "utf8:in_key", jdump(base)[:-1] + b',"k\xff":1}', V("body")))
    out.append(case(ctx, "order", "utf8:between_tokens", jdump(base)[:-1] + b'\xc0\xaf}', V("body")))
    out.append(case(ctx, "broadcasting", "utf8:form", b"socket_id=1.2&channel_name=%FF", V("channel_name"),
                    ct="application/x-www-form-urlencoded"))
    return out


def escape_cases(ctx):
    out = []
    for route, fld in (("order", "input_text"), ("preview", "input_text"), ("template", "name"),
                       ("storage", "path"), ("broadcasting", "channel_name"), ("item_retry", "text")):
        base = routes(ctx)[route][2]
        for name, esc in BAD_ESCAPES.items():
            out.append(case(ctx, route, f"escape:{name}@{fld}", escaped(jdump(put(base, fld, M)), M, esc), V("body")))
    return out


def control_cases(ctx):
    out = []
    esc = list(CONTROL_ESCAPES.items())
    n = 0
    for route, fields in TEXT_FIELDS.items():
        base = routes(ctx)[route][2]
        for fld in fields:
            for _ in range(2 if route in ("order", "preview", "template") else 1):
                name, e = esc[n % len(esc)]
                n += 1
                out.append(case(ctx, route, f"control:{name}@{fld}", escaped(jdump(put(base, fld, M)), M, e), V(fld)))
    # inside arrays, in keys, deep inside an ignored object
    order = routes(ctx)["order"][2]
    out += [
        case(ctx, "order", "control:array", escaped(jdump(put(order, "config_override.generation_mode", [M])), M,
                                                    r"\u0001"), VP("config_override.generation_mode")),
        case(ctx, "order", "control:key_nested", jdump(order)[:-1] + rb',"task_data":{"k\u0000":"v"}}', VP("task_data")),
        case(ctx, "order", "control:key_top", jdump(order)[:-1] + rb',"n\u0002ote":"v"}', VP("")),
        case(ctx, "order", "control:deep", escaped(jdump(put(order, "task_data.a.b.c", M)), M, r"\u0003"),
             V("task_data.a.b.c")),
        case(ctx, "template", "control:settings_key",
             jdump(routes(ctx)["template"][2])[:-2] + rb',"extra":{"x\u0010":1}}}', VP("config")),
    ]
    # raw (unescaped) control bytes are not JSON at all
    for route, fld in (("order", "input_text"), ("preview", "input_text"), ("template", "name")):
        base = routes(ctx)[route][2]
        for raw in (b"\x00", b"a\x01b", b"\x1f"):
            out.append(case(ctx, route, f"control:raw{raw!r}@{fld}", with_raw(jdump(put(base, fld, M)), M, raw), V("body")))
    return out


def accepted_cases(ctx):
    """Text that must not be refused: TAB, LF, CR, escaped non-ASCII, surrogate pairs, emoji."""
    p = routes(ctx)["preview"][2]
    out = []
    for name, esc in (("tab", r"a\tb"), ("lf_cr", r"a\r\nb"), ("e_acute", r"caf\u00e9"), ("pair", r"x\ud83d\ude00y"),
                      ("raw_emoji", "x\U0001F600y"), ("cyrillic", "Привет, мир.")):
        body = escaped(jdump(put(p, "input_text", M)), M, esc) if esc.isascii() else jdump(put(p, "input_text", esc))
        out.append(case(ctx, "preview", f"accepted:{name}", body, OK(), key="preview0"))
    # DEL is refused like the C0 controls
    out.append(case(ctx, "preview", "refused:del", escaped(jdump(put(p, "input_text", M)), M, r"a\u007fb"),
                    V("input_text"), key="preview0"))
    t = routes(ctx)["template"][2]
    out.append(case(ctx, "template", "accepted:name_tab", escaped(jdump(put(t, "name", M)), M, r"A\tB"), OK(201)))
    out.append(case(ctx, "template", "accepted:name_emoji", jdump(put(t, "name", "Voice \U0001F600 é")), OK(201)))
    return out


def type_cases(ctx):
    r = routes(ctx)
    T = [
        # (route, field, value, expected)
        ("template", "name", None, V("name")), ("template", "name", 0, V("name")), ("template", "name", [], V("name")),
        ("template", "name", "   ", V("name")), ("template", "service_key", None, V("service_key")),
        ("template", "service_key", True, V("service_key")), ("template", "service_key", "nope", V("service_key")),
        ("template", "config", None, V("config")), ("template", "config", [], V("config")),
        ("template", "config", "x", V("config")), ("template", "config.tts_settings", None, V("config.tts_settings")),
        ("template", "config.tts_settings", 1, V("config.tts_settings")),
        ("template", "config.tts_settings.mode", None, V("config.tts_settings.mode")),
        ("template", "config.tts_settings.mode", 7, V("config.tts_settings.mode")),
        ("template", "config.tts_settings.model_id", {}, V("config.tts_settings.model_id")),
        ("template", "config.tts_settings.model_id", "nope", V("config.tts_settings.model_id")),
        ("template", "config.tts_settings.voice_id", 1.5, V("config.tts_settings.voice_id")),
        ("template", "config.tts_settings.language_code", 0, V("config.tts_settings.language_code")),
        ("template", "config.tts_settings.language_code", "EN", V("config.tts_settings.language_code")),
        ("template", "config.tts_settings.advanced_voice_settings", "true", V("config.tts_settings.advanced_voice_settings")),
        ("template", "config.tts_settings.advanced_voice_settings", 1, V("config.tts_settings.advanced_voice_settings")),
        ("template", "config.tts_settings.voice_settings", [], V("config.tts_settings.voice_settings")),
        ("template", "config.tts_settings.voice_settings.stability", "0.5", V("config.tts_settings.voice_settings.stability")),
        ("template", "config.tts_settings.voice_settings.stability", True, V("config.tts_settings.voice_settings.stability")),
        ("template", "config.tts_settings.voice_settings.use_speaker_boost", 1,
         V("config.tts_settings.voice_settings.use_speaker_boost")),
        ("template_put", "name", None, V("name")), ("template_put", "name", 5, V("name")),
        ("template_put", "config", None, V("config")), ("template_put", "config", [1], V("config")),
        ("template_patch", "service_key", [], V("service_key")),
        ("order", "template_id", None, V("template_id", "task_type")), ("order", "template_id", 0, V("template_id")),
        ("order", "template_id", "nope", V("template_id")), ("order", "template_id", [ctx.template_id], V("template_id")),
        ("order", "input_text", None, V("input_text")), ("order", "input_text", 12, V("input_text")),
        ("order", "input_text", "", V("input_text")), ("order", "input_text", ["Hello"], V("input_text")),
        ("order", "input_text", "[only brackets]", V("input_text")), ("order", "task_type", 3, V("task_type")),
        ("order", "task_type", "sfx", V("task_type")), ("order", "task_type", "image", D(422, "service_not_found")),
        ("order", "task_data", [], V("task_data")), ("order", "task_data", "x", V("task_data")),
        ("order", "config_override", [], V("config_override")),
        ("order", "config_override.generation_mode", 1, V("config_override.generation_mode")),
        ("order", "config_override.other", "x", V("config_override.other")),
        ("order", "confirm_payg_topup", "yes", V("confirm_payg_topup")),
        ("order", "confirm_payg_topup", 1, V("confirm_payg_topup")), ("order", "quote_token", 0, V("quote_token")),
        ("order", "quote_token", {}, V("quote_token")),
        ("sfx", "task_data.text", None, V("task_data.text")), ("sfx", "task_data.text", 1, V("task_data.text")),
        ("sfx", "task_data.text", "x" * 5001, V("task_data.text")),
        ("sfx", "task_data.duration_seconds", "5", V("task_data.duration_seconds")),
        ("sfx", "task_data.duration_seconds", 1e300, V("task_data.duration_seconds")),
        ("music", "task_data.prompt", False, V("task_data.prompt")),
        ("music", "task_data.n_variants", "2", V("task_data.n_variants")),
        ("music", "task_data.n_variants", 5, V("task_data.n_variants")),
        ("music", "task_data.n_variants", 1.5, V("task_data.n_variants")),
        ("music", "task_data.n_variants", 9223372036854775808, V("task_data.n_variants")),
        ("music", "task_data.n_variants", -9223372036854775809, V("task_data.n_variants")),
        ("preview", "input_text", None, V("input_text")), ("preview", "input_text", 1, V("input_text")),
        ("preview", "template_id", None, V("template_id")), ("preview", "template_id", 1, V("template_id")),
        ("preview", "task_type", 0, V("task_type")), ("preview", "task_type", "txt2img", D(422, "service_not_found")),
        ("preview", "generation_mode", [], V("generation_mode")), ("preview", "generation_mode", "fast", V("generation_mode")),
        ("preview", "text_hash", 0, V("text_hash")), ("preview", "text_hash", "A" * 64, V("text_hash")),
        ("preview", "text_hash", "0" * 64, V("text_hash")), ("preview", "previous_preview_id", True, V("previous_preview_id")),
        ("item_retry", "text", 5, V("text")), ("item_retry", "text", "", V("text")),
        ("item_retry", "text", "y" * 50_001, V("text")), ("regenerate", "text", [], V("text")),
        ("storage", "path", None, V("path")), ("storage", "path", 1, V("path")), ("storage", "path", "", V("path")),
        ("storage", "path", "../../etc/passwd", V("path")), ("storage", "download", "yes", V("download")),
        ("storage", "download", 0, V("download")),
        ("broadcasting", "socket_id", None, V("socket_id")), ("broadcasting", "socket_id", 1.5, V("socket_id")),
        ("broadcasting", "socket_id", "1.2.3", V("socket_id")), ("broadcasting", "channel_name", [], V("channel_name")),
        ("broadcasting", "channel_name", "public", V("channel_name")),
    ]
    out = [case(ctx, rt, f"type:{fld}={json.dumps(v)[:20]}", jdump(put(r[rt][2], fld, v)), exp, key=
                "preview0" if rt == "preview" else "main") for rt, fld, v, exp in T]
    # whole bodies of the wrong type
    for rt in ("template", "template_put", "order", "preview", "storage", "item_retry", "broadcasting"):
        for body in (b"[]", b'"text"', b"1", b"null"):
            out.append(case(ctx, rt, f"type:body={body.decode()}", body, V("body")))
    # numbers JSON allows but no machine holds
    out.append(case(ctx, "music", "type:n_variants=1e400", jdump(r["music"][2]).replace(b'"n_variants":1', b'"n_variants":1e400'),
                    ANY(V("task_data.n_variants"), V("body"))))
    out.append(case(ctx, "template", "type:stability=-1e400",
                    jdump(put(r["template"][2], "config.tts_settings.voice_settings.stability", 0.5)).replace(b"0.5", b"-1e400"),
                    ANY(V("config.tts_settings.voice_settings.stability"), V("body"))))
    return out


def malformed_cases(ctx):
    order = jdump(routes(ctx)["order"][2])
    out = []
    for name, body in (("truncated", order[:-5]), ("trailing", order + b"}"), ("trailing_text", order + b" x"),
                       ("nan", order[:-1] + b',"x":NaN}'), ("infinity", order[:-1] + b',"x":Infinity}'),
                       ("comment", b"/* c */" + order), ("single_quotes", order.replace(b'"', b"'")),
                       ("unquoted_key", b"{template_id:1}"),
                       ("leading_zero", order[:-1] + b',"x":0012}'), ("lone_minus", order[:-1] + b',"x":-}'),
                       ("two_documents", order + order), ("control_outside", b"\x00" + order)):
        out.append(case(ctx, "order", f"malformed:{name}", body, V("body")))
    preview = jdump(routes(ctx)["preview"][2])
    out.append(case(ctx, "preview", "malformed:bom", b"\xef\xbb\xbf" + preview, ANY(V("body"), OK()), key="preview0"))
    out.append(case(ctx, "order", "malformed:empty", b"", V("template_id", "task_type")))
    out.append(case(ctx, "order", "malformed:spaces", b"   \r\n ", ANY(V("body"), V("template_id", "task_type"))))
    out.append(case(ctx, "template", "malformed:text_plain", jdump(routes(ctx)["template"][2]), E(415), ct="text/plain"))
    out.append(case(ctx, "broadcasting", "malformed:json_garbage", b"{nope", V("body")))
    out.append(case(ctx, "broadcasting", "malformed:xml", b"<a/>", E(415), ct="application/xml"))
    out.append(case(ctx, "order", "malformed:no_key", order, AUTH("missing"), key=None))
    return out


def nesting_cases(ctx):
    """100,000 levels, whole body or inside a field: refused by depth, or by size first."""
    deep = b"[" * 100_000 + b"]" * 100_000
    open_only = b"[" * 100_000
    objects = b'{"a":' * 100_000 + b"1" + b"}" * 100_000
    caps = {"template": CAP_TEMPLATES, "template_put": CAP_TEMPLATES, "storage": CAP_STORAGE,
            "broadcasting": CAP_BROADCASTING, "order_retry": CAP_ACTIONS, "item_retry": CAP_ACTIONS,
            "cancel": CAP_ACTIONS}
    out = []
    for rt in ("order", "preview", "template", "template_put", "storage", "broadcasting", "order_retry",
               "item_retry", "cancel"):
        for name, body in (("arrays", deep), ("open", open_only), ("objects", objects)):
            exp = E(413, may_close=True) if len(body) > caps.get(rt, 1 << 40) else V("body")
            out.append(case(ctx, rt, f"deep:{name}", body, exp, timeout=BIG_TIMEOUT))
    inner = jdump(routes(ctx)["order"][2])[:-1] + b',"config_override":' + deep + b"}"
    out.append(case(ctx, "order", "deep:in_field", inner, V("body"), timeout=BIG_TIMEOUT))
    return out


def big_cases(ctx):
    mb = 1 << 20
    r = routes(ctx)
    a, e = "a" * mb, "é" * (mb // 2)
    big = [
        ("order", "input_text", a, V("input_text")), ("preview", "input_text", a, V("input_text")),
        ("sfx", "task_data.text", e, V("task_data.text")),
        ("order", "config_override.generation_mode", e, V("config_override.generation_mode")),
        ("template", "name", a, E(413, may_close=True)), ("template_put", "name", e, E(413, may_close=True)),
        ("storage", "path", a, E(413, may_close=True)), ("broadcasting", "channel_name", a, E(413, may_close=True)),
        ("order_retry", "quote_token", a, E(413, may_close=True)), ("item_retry", "text", a, E(413, may_close=True)),
    ]
    out = [case(ctx, rt, f"big:{fld}", jdump(put(r[rt][2], fld, v)), exp, timeout=BIG_TIMEOUT,
                key="preview1" if rt == "preview" else "main") for rt, fld, v, exp in big]
    out.append(case(ctx, "order", "big:key_in_override", jdump(put(r["order"][2], "config_override." + e, "x")),
                    VP("config_override."), timeout=BIG_TIMEOUT))
    return out


def duplicate_cases(ctx):
    r = routes(ctx)
    order = jdump(r["order"][2])[:-1]
    t = jdump(r["template_put"][2])[:-1]
    return [
        case(ctx, "template_put", "dup:name_last_wins", t + b',"name":"second copy"}',
             OK(check=lambda body: None if body["data"]["name"] == "second copy" else f"name {body['data']['name']!r}")),
        case(ctx, "preview", "dup:text_hash_bad_then_good", jdump(r["preview"][2])[:-1] + b',"text_hash":"x","text_hash":null}',
             OK(), key="preview0"),
        case(ctx, "order", "dup:bad_type_last", order + b',"input_text":5}', V("input_text")),
        case(ctx, "storage", "dup:path_bad_last", jdump(r["storage"][2])[:-1] + rb',"path":"..\/x"}', V("path")),
        case(ctx, "order", "dup:nul_last", order + rb',"input_text":"\u0000"}', V("input_text")),
        case(ctx, "template_put", "dup:nul_first", rb'{"name":"x\u0000","name":"clean"}',
             ANY(V("name"), OK(check=lambda body: None if body["data"]["name"] == "clean" else "NUL copy stored"))),
    ]


def multipart(fields, boundary=b"hostile-boundary"):
    """A multipart/form-data body: fields are (name, filename or None, content type, bytes)."""
    out = b""
    for name, filename, ctype, data in fields:
        disposition = b'form-data; name="' + name + b'"' + (b'; filename="' + filename + b'"' if filename else b"")
        out += b"--" + boundary + b"\r\nContent-Disposition: " + disposition + b"\r\nContent-Type: " + ctype
        out += b"\r\n\r\n" + data + b"\r\n"
    return out + b"--" + boundary + b"--\r\n"


def upload_cases(ctx):
    """voice_search input (spec 4.1.1): the audio is judged by content; without one, source_file_required.
    Nothing is created either way."""
    ct = "multipart/form-data; boundary=hostile-boundary"
    task = (b"task_type", None, b"text/plain", b"voice_search")
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
    wav_head = b"RIFF\xff\xff\xff\x7fWAVEfmt "
    unsupported, required = D(422, "source_file_unsupported"), D(422, "source_file_required")
    out = [case(ctx, "order", "upload:none_json", jdump({"task_type": "voice_search"}), D(422, "source_file_required")),
           case(ctx, "order", "upload:none_json_top", jdump({"task_type": "voice_search", "task_data": {"top": 5}}),
                D(422, "source_file_required"))]
    for label, parts, refused in (
            ("png_named_wav", [task, (b"input_files[]", b"voice.wav", b"audio/wav", png)], unsupported),
            ("empty_file", [task, (b"input_files[]", b"voice.wav", b"audio/wav", b"")], required),
            ("truncated_wav", [task, (b"input_files[]", b"voice.wav", b"audio/wav", wav_head)], unsupported),
            ("nul_filename", [task, (b"input_files[]", b"v\x00.wav", b"audio/wav", wav_head)], unsupported),
            ("only_a_task", [task], required)):
        out.append(case(ctx, "order", f"upload:{label}", multipart(parts), refused, ct=ct))
    # A form without parts names no task_type: the JSON body's rule, 422 on both fields.
    out.append(case(ctx, "order", "upload:no_parts", multipart([]), V("template_id", "task_type"), ct=ct))
    out.append(Case("order:upload:declared_1gb", "POST", API + "/orders", E(413, may_close=True), raw=(
        b"POST " + API.encode() + b"/orders HTTP/1.1\r\nHost: x\r\nX-API-KEY: " + ctx.keys["main"].encode() +
        b"\r\nContent-Type: " + ct.encode() + b"\r\nContent-Length: 1073741824\r\nConnection: close\r\n\r\n")))
    return out


def groups(ctx):
    return [
        Group("invalid_utf8", invalid_utf8_cases(ctx)),
        Group("bad_escapes", escape_cases(ctx)),
        Group("control_characters", control_cases(ctx)),
        Group("accepted_text", accepted_cases(ctx)),
        Group("wrong_types_and_nulls", type_cases(ctx)),
        Group("malformed_json", malformed_cases(ctx)),
        Group("deep_nesting", nesting_cases(ctx)),
        Group("megabyte_strings", big_cases(ctx)),
        Group("duplicate_keys", duplicate_cases(ctx)),
        Group("uploads", upload_cases(ctx)),
    ]


class HostileJsonBodyTests(HostileCase):
    server_env = dict(HostileCase.server_env, MEDIAGEN_WORKERS="1")
    complete_order = True   # order retry and regenerate would move money if a hostile body got through

    def tearDown(self):
        self.assertInvariants()


def _add_group_tests(cls, names):
    for n in names:
        def test(self, n=n):
            self.run_group(next(g for g in groups(self.ctx) if g.name == n))
        test.__name__ = f"test_{n}"
        setattr(cls, test.__name__, test)


_add_group_tests(HostileJsonBodyTests, [g for g in ("invalid_utf8", "bad_escapes", "control_characters", "accepted_text",
                                                    "wrong_types_and_nulls", "malformed_json", "deep_nesting",
                                                    "megabyte_strings", "duplicate_keys", "uploads")])


class HostileSoakTests(HostileCase):
    """The whole hostile corpus (this module's, test_hostile_wire's and test_hostile_realtime's,
    HTTP and WebSocket) against one server: a warm-up round, then the measured rounds. Afterwards
    the server's RSS is within 10% of the RSS after the warm-up, and its open descriptors are back
    at their count after the warm-up. ASan keeps freed memory in quarantine (256 MB by default),
    which would hide what the server really holds: this server runs with an 8 MB quarantine.
    The answers themselves are judged by the other classes; here the server only has to stay up."""

    server_env = dict(HostileCase.server_env, **realtime_env(), ASAN_OPTIONS=soak_asan_options())
    MEASURED_ROUNDS = 2
    RSS_TOLERANCE = 0.10

    @classmethod
    def prepare(cls):
        super().prepare()
        test_hostile_wire.wire_fixtures(cls.ctx)

    def one_round(self, n):
        ctx = self.ctx
        # the preview throttles count per key and minute: every round brings fresh keys
        for i in range(4):
            ctx.keys[f"preview{i}"] = self.h.create_key(ctx.user_id, preset="full")["key"]
        cases = hard = 0
        for corpus in (groups, test_hostile_wire.groups, test_hostile_realtime.groups):
            for group in corpus(ctx):
                for c in group.cases:
                    cases += 1
                    _, problems = run_case(self.server, ctx.keys, c)
                    hard += any(p.startswith(("hang", "server error", "connection failed")) for p in problems)
                self.assertTrue(self.server.alive() and self.server.healthy(),
                                f"round {n}: the server stopped answering during {group.name}")
        for name, scenario in test_hostile_realtime.WS_SCENARIOS:
            scenario(self.server, ctx)
            cases += 1
            self.assertTrue(self.server.alive() and self.server.healthy(),
                            f"round {n}: the server stopped answering during the WebSocket {name} cases")
        return cases, hard

    def settled_fds(self, target=None, timeout=10.0):
        """The descriptor count once closed connections are gone (at most `target` when given)."""
        pid = self.server.proc.pid
        deadline = time.monotonic() + timeout
        last = fd_count(pid)
        while time.monotonic() < deadline:
            time.sleep(0.5)
            now = fd_count(pid)
            if (target is not None and now <= target) or (target is None and now == last):
                return now
            last = now
        return last

    def test_rss_and_descriptors_return_to_baseline(self):
        pid = self.server.proc.pid
        started = time.monotonic()
        cases, hard = self.one_round(0)
        fds_base = self.settled_fds()
        rss_base = rss_kib(pid)
        rounds = []
        for n in range(1, self.MEASURED_ROUNDS + 1):
            self.one_round(n)
            rounds.append(rss_kib(pid))
        fds_after = self.settled_fds(target=fds_base)
        rss_after = rss_kib(pid)
        print(f"\nhostile soak: {cases} cases a round ({hard} hard failures in the warm-up), "
              f"RSS after warm-up {rss_base} KiB, after each measured round {rounds} KiB; "
              f"fds {fds_base} -> {fds_after}; {time.monotonic() - started:.1f}s", flush=True)
        self.assertLessEqual(rss_after, rss_base * (1 + self.RSS_TOLERANCE),
                             f"RSS grew from {rss_base} KiB to {rss_after} KiB over {self.MEASURED_ROUNDS} rounds")
        self.assertLessEqual(fds_after, fds_base, f"open descriptors {fds_base} -> {fds_after}")


if __name__ == "__main__":
    unittest.main()
