"""The rows of the route matrices (route_matrix.py says what each kind means)."""

from route_matrix import (Bearer, Charging, Foreign, Keyed, Keyless, NoForeignId, NotCharging, Refusal, Req,
                          XiKey)

ORDER = "/orders/{order}"
ITEM = "/orders/{order}/items/{item}"
CLONE = "/voices/provider_c/clones/{clone}"
TEMPLATE_BODY = {"service_key": "provider_b", "name": "Matrix template",
                 "config": {"tts_settings": {"mode": "mode_v1", "model_id": "b-standard", "voice_id": "{voice}"}}}
SPEECH = {"model": "provider_b/b-standard", "voice": "{voice}", "input": "Matrix speech."}
TTS = ("", "/stream", "/with-timestamps", "/stream/with-timestamps")


def xi(path, body=None):
    return Req(path, body=body, root=True, xi=True)


def channel(name):
    return Req("/broadcasting/auth", body={"socket_id": "{socket}", "channel_name": name})


# --------------------------------------------------------------------------- T12

PERMISSIONS = {
    "POST /orders/chunks/preview": Keyed(Req("/orders/chunks/preview",
                                             body={"template_id": "{template}", "input_text": "{input_text}"})),
    "GET /orders/chunks/preview": Keyed(Req("/orders/chunks/preview?template_id={template}&text_hash={text_hash}")),
    "GET /orders/chunks/preview/{previewId}": Keyed(Req("/orders/chunks/preview/{preview}")),
    "GET /orders": Keyed(Req("/orders")),
    "POST /orders": Keyed(Req("/orders", body={"template_id": "{template}", "input_text": "Matrix order."})),
    "GET /orders/{order}": Keyed(Req(ORDER)),
    "POST /orders/{order}/cancel": Keyed(Req(ORDER + "/cancel", body={})),
    "POST /orders/{order}/retry": Keyed(Req(ORDER + "/retry", body={})),
    "GET /orders/{order}/items": Keyed(Req(ORDER + "/items")),
    "GET /orders/{order}/webhook-deliveries": Keyed(Req(ORDER + "/webhook-deliveries")),
    "GET /webhooks/secret": Keyed(Req("/webhooks/secret")),
    "POST /orders/{order}/items/retry-failed": Keyed(Req(ORDER + "/items/retry-failed", body={})),
    "GET /orders/{order}/items/{item}": Keyed(Req(ITEM)),
    "GET /orders/{order}/items/{item}/text": Keyed(Req(ITEM + "/text")),
    "POST /orders/{order}/items/{item}/retry": Keyed(Req(ITEM + "/retry", body={})),
    "POST /orders/{order}/items/{item}/regenerate": Keyed(Req(ITEM + "/regenerate", body={})),
    "POST /storage/url": Keyed(Req("/storage/url", body={"path": "{file}"})),
    "GET /storage/download": Keyless(Req("/storage/download?path={file}&expires=1&signature=00"),
                                     "a signed link is the only credential; no key is read"),
    "GET /templates": Keyed(Req("/templates")),
    "POST /templates": Keyed(Req("/templates", body=TEMPLATE_BODY)),
    "GET /templates/browse": Keyed(Req("/templates/browse")),
    "GET /templates/config-options": Keyed(Req("/templates/config-options")),
    "GET /templates/{template}": Keyed(Req("/templates/{template}")),
    "PUT /templates/{template}": Keyed(Req("/templates/{template}", body=TEMPLATE_BODY)),
    "PATCH /templates/{template}": Keyed(Req("/templates/{template}", body={"name": "Matrix renamed"})),
    "DELETE /templates/{template}": Keyed(Req("/templates/{spare_template}")),
    "GET /voices": Keyed(Req("/voices")),
    "GET /voices/library": Keyed(Req("/voices/library")),
    "GET /voices/public": Keyed(Req("/voices/public")),
    "GET /voices/tags": Keyed(Req("/voices/tags")),
    "GET /voices/{voice}": Keyed(Req("/voices/{voice}")),
    "GET /voices/provider_a/library": Keyed(Req("/voices/provider_a/library")),
    "GET /voices/provider_b": Keyed(Req("/voices/provider_b")),
    "GET /voices/provider_b/filters": Keyed(Req("/voices/provider_b/filters")),
    "GET /voices/provider_c": Keyed(Req("/voices/provider_c")),
    "GET /voices/provider_d": Keyed(Req("/voices/provider_d")),
    "POST /voices/{service}/clones": Keyed(Req("/voices/provider_c/clones", form=(("name", "Matrix clone"),))),
    "GET /voices/{service}/clones": Keyed(Req("/voices/provider_c/clones")),
    "GET /voices/{service}/clones/{clone}": Keyed(Req(CLONE)),
    "POST /voices/{service}/clones/{clone}/retry": Keyed(Req(CLONE + "/retry")),
    "POST /voices/{service}/clones/{clone}/archive": Keyed(Req(CLONE + "/archive")),
    "GET /voices/clones/quota": Keyed(Req("/voices/clones/quota")),
    "POST /v1/audio/speech": Bearer("orders.write", Req("/v1/audio/speech", body={**SPEECH, "input": ""}, root=True)),
    "GET /v1/models": Bearer("orders.read", Req("/v1/models", root=True)),
    "GET /v1/audio/voices": Bearer("orders.read", Req("/v1/audio/voices?model=provider_b/b-standard", root=True)),
    # An empty text: a key that may speak gets 422 and no order.
    **{f"POST /v1/text-to-speech/{{voice_id}}{s}": XiKey("orders.write", xi(f"/v1/text-to-speech/{{voice}}{s}",
                                                                            {"text": ""})) for s in TTS},
    "POST /v1/sound-generation": XiKey("orders.write", xi("/v1/sound-generation", {"text": ""})),
    "POST /v1/music": XiKey("orders.write", xi("/v1/music", {"prompt": ""})),
    "GET /v1/voices": XiKey("voices.read", xi("/v1/voices")),
    "GET /v2/voices": XiKey("voices.read", xi("/v2/voices?page_size=5")),
    "GET /v1/voices/{voice_id}": XiKey("voices.read", xi("/v1/voices/{voice}")),
    "GET /v1/user/subscription": XiKey("billing.read", xi("/v1/user/subscription")),
    "GET /healthz": Keyless(Req("/healthz", root=True), "liveness needs no key"),
    "GET /docs": Keyless(Req("/docs", root=True), "the description is public"),
    "GET /docs/ru": Keyless(Req("/docs/ru", root=True), "the description is public"),
    "GET /docs/{file}": Keyless(Req("/docs/openapi.yaml", root=True), "the description is public"),
    "GET /readyz": Keyless(Req("/readyz", root=True, admin=True), "the operator listener takes no key"),
    "GET /metrics": Keyless(Req("/metrics", root=True, admin=True), "the operator listener takes no key"),
    "GET /usage": Keyed(Req("/usage")),
    "GET /usage/{service}": Keyed(Req("/usage/provider_b")),
    "GET /subscriptions": Keyed(Req("/subscriptions")),
    "GET /user": Keyed(Req("/user")),
    "GET /wallets": Keyed(Req("/wallets")),
    "GET /ledger-transactions": Keyed(Req("/ledger-transactions")),
    "GET /key": Keyed(Req("/key")),
    # Its own permission is null; each channel then needs the permission of its table.
    "POST /broadcasting/auth": Keyed(channels=(
        ("orders.read", channel("private-order.task.{order}")),
        ("orders.read", channel("private-chunks.preview.{user_id}")),
        ("voices.read", channel("private-voice-clones.{user_id}")),
        ("reseller.read", channel("private-reseller.codes.{user_id}")),
    )),
    "GET /reseller": Keyed(Req("/reseller")),
    "GET /reseller/settings": Keyed(Req("/reseller/settings")),
    "GET /reseller/stats": Keyed(Req("/reseller/stats")),
    "GET /reseller/codes": Keyed(Req("/reseller/codes")),
    "POST /reseller/codes": Keyed(Req("/reseller/codes", body={"nominal": 100})),
    "GET /reseller/codes/{uuid}": Keyed(Req("/reseller/codes/{gift}")),
    "POST /reseller/codes/{uuid}/cancel": Keyed(Req("/reseller/codes/{gift}/cancel", body={})),
    "GET /ai/models": Keyed(Req("/ai/models")),
    "GET /ai/models/{key}": Keyed(Req("/ai/models/provider_b")),
}

# --------------------------------------------------------------------------- T11

NOT_OWNER = "Access to this object is denied."
CATALOGUE = NoForeignId("a shared catalogue: nothing in it belongs to an account")
OWN = NoForeignId("names no object: it reads or writes the caller's own account only")

FOREIGN = {
    "POST /orders/chunks/preview": [Foreign(Req("/orders/chunks/preview",
                                                body={"template_id": "{template}", "input_text": "Foreign text."}),
                                            403, reason="template_access_denied")],
    "GET /orders/chunks/preview": [Foreign(Req("/orders/chunks/preview?template_id={template}&text_hash={text_hash}"),
                                           403, reason="template_access_denied")],
    "GET /orders/chunks/preview/{previewId}": [Foreign(Req("/orders/chunks/preview/{preview}"))],
    "GET /orders": [Foreign(Req("/orders?template_id={template}"), 200)],
    "POST /orders": [Foreign(Req("/orders", body={"template_id": "{template}", "input_text": "Foreign order."}),
                             403, reason="template_access_denied")],
    "GET /orders/{order}": [Foreign(Req(ORDER))],
    "POST /orders/{order}/cancel": [Foreign(Req(ORDER + "/cancel", body={}))],
    "POST /orders/{order}/retry": [Foreign(Req(ORDER + "/retry", body={}))],
    "GET /orders/{order}/items": [Foreign(Req(ORDER + "/items"))],
    "GET /orders/{order}/webhook-deliveries": [Foreign(Req(ORDER + "/webhook-deliveries"))],
    "GET /webhooks/secret": OWN,
    "POST /orders/{order}/items/retry-failed": [Foreign(Req(ORDER + "/items/retry-failed", body={}))],
    "GET /orders/{order}/items/{item}": [Foreign(Req(ITEM))],
    "GET /orders/{order}/items/{item}/text": [Foreign(Req(ITEM + "/text"))],
    "POST /orders/{order}/items/{item}/retry": [Foreign(Req(ITEM + "/retry", body={}))],
    "POST /orders/{order}/items/{item}/regenerate": [Foreign(Req(ITEM + "/regenerate", body={}))],
    "POST /storage/url": [Foreign(Req("/storage/url", body={"path": "{file}"}))],
    "GET /storage/download": NoForeignId("a signed link is a bearer credential for one file; links are issued "
                                         "only by POST /storage/url, whose foreign case is above"),
    "GET /templates": OWN,
    "POST /templates": OWN,
    "GET /templates/browse": OWN,
    "GET /templates/config-options": CATALOGUE,
    "GET /templates/{template}": [Foreign(Req("/templates/{template}"), 403, reason="template_access_denied")],
    "PUT /templates/{template}": [Foreign(Req("/templates/{template}", body=TEMPLATE_BODY), 403,
                                          reason="template_access_denied")],
    "PATCH /templates/{template}": [Foreign(Req("/templates/{template}", body={"name": "Foreign"}), 403,
                                            reason="template_access_denied")],
    "DELETE /templates/{template}": [Foreign(Req("/templates/{template}"), 403, reason="template_access_denied")],
    "GET /voices": CATALOGUE,
    "GET /voices/library": CATALOGUE,
    "GET /voices/public": CATALOGUE,
    "GET /voices/tags": CATALOGUE,
    "GET /voices/{voice}": CATALOGUE,
    "GET /voices/provider_a/library": CATALOGUE,
    "GET /voices/provider_b": CATALOGUE,
    "GET /voices/provider_b/filters": CATALOGUE,
    "GET /voices/provider_c": CATALOGUE,
    "GET /voices/provider_d": CATALOGUE,
    "POST /voices/{service}/clones": OWN,
    "GET /voices/{service}/clones": OWN,
    "GET /voices/{service}/clones/{clone}": [Foreign(Req(CLONE))],
    "POST /voices/{service}/clones/{clone}/retry": [Foreign(Req(CLONE + "/retry"))],
    "POST /voices/{service}/clones/{clone}/archive": [Foreign(Req(CLONE + "/archive"))],
    "GET /voices/clones/quota": OWN,
    # A template is the account's: another account's is 403 as on /templates (spec 7.1).
    "POST /v1/audio/speech": [Foreign(Req("/v1/audio/speech", body={**SPEECH, "model": "{template}"}, root=True), 403)],
    "GET /v1/models": OWN,
    "GET /v1/audio/voices": [Foreign(Req("/v1/audio/voices?model={template}", root=True), 403)],
    # Another account's ready clone is no voice of this one.
    **{f"POST /v1/text-to-speech/{{voice_id}}{s}": [
        Foreign(xi(f"/v1/text-to-speech/{{clone_voice}}{s}", {"text": "Foreign clone."}), 404)]
       for s in TTS},
    "POST /v1/sound-generation": OWN,
    "POST /v1/music": OWN,
    "GET /v1/voices": OWN,
    "GET /v2/voices": OWN,
    "GET /v1/voices/{voice_id}": [Foreign(xi("/v1/voices/{clone_voice}"), 404)],
    "GET /v1/user/subscription": OWN,
    "GET /healthz": NoForeignId("no account"),
    "GET /docs": NoForeignId("no account"),
    "GET /docs/ru": NoForeignId("no account"),
    "GET /docs/{file}": NoForeignId("no account: {file} names a file of the description"),
    "GET /readyz": NoForeignId("the operator listener"),
    "GET /metrics": NoForeignId("the operator listener"),
    "GET /usage": OWN,
    "GET /usage/{service}": NoForeignId("{service} names a catalogue service"),
    "GET /subscriptions": OWN,
    "GET /user": OWN,
    "GET /wallets": OWN,
    "GET /ledger-transactions": [Foreign(Req("/ledger-transactions?order_id={order}"), 200)],
    "GET /key": OWN,
    "POST /broadcasting/auth": [
        Foreign(channel("private-order.task.{order}"), 403, message=NOT_OWNER),
        Foreign(channel("private-chunks.preview.{user_id}"), 403, message=NOT_OWNER),
        Foreign(channel("private-voice-clones.{user_id}"), 403, message=NOT_OWNER),
        Foreign(channel("private-reseller.codes.{user_id}"), 403, message=NOT_OWNER),
    ],
    "GET /reseller": OWN,
    "GET /reseller/settings": OWN,
    "GET /reseller/stats": OWN,
    "GET /reseller/codes": OWN,
    "POST /reseller/codes": OWN,
    "GET /reseller/codes/{uuid}": [Foreign(Req("/reseller/codes/{gift}"), reason="gift_code_not_found")],
    "POST /reseller/codes/{uuid}/cancel": [Foreign(Req("/reseller/codes/{gift}/cancel", body={}),
                                                   reason="gift_code_not_found")],
    "GET /ai/models": CATALOGUE,
    "GET /ai/models/{key}": NoForeignId("{key} names a catalogue model"),
}

# --------------------------------------------------------------------------- T6

LIMITS = "the 429 family is provoked on POST /orders, which shares its checks (spec 8.1); not repeated here"
CONFIRM = "the explicit-confirmation mode is provoked on POST /orders, which shares its quote code"
RETENTION = "needs the retention sweep to have removed the order's texts; test_orders_flow's retention test"
STITCH = "a race with the stitch of the result; test_order_items and test_chaos_money provoke it"
UNKNOWN_KEYS = ("refused before any key is read, so no account is named and nothing can move; "
                "test_address_budgets floods unknown keys and shows no lookup past the budget")
IDEMPOTENCY = "the key's first use changes state by design; test_lost_commits replays and refuses reused keys"
BAN = Refusal(429, "ip_banned", "ip_banned")
RATE = Refusal(429, "rate_limit_exceeded", "rate_limited")

REFUSALS = {
    "POST /orders/chunks/preview": Charging(
        (Refusal(403, "template_access_denied", "preview_foreign_template"), BAN, RATE),
        skipped={"too_many_unknown_keys": UNKNOWN_KEYS}),
    "POST /orders": Charging((
        Refusal(402, "insufficient_balance", "order_empty_balance"),
        Refusal(402, "payg_topup_required", "order_topup_required"),
        Refusal(403, "template_access_denied", "order_foreign_template"),
        Refusal(409, "idempotency_key_reused", "order_idempotency_reused"),
        Refusal(409, "quote_mismatch", "order_quote_mismatch"),
        Refusal(422, "source_file_required", "order_voice_search_without_file"),
        Refusal(422, "source_file_unsupported", "order_voice_search_png"),
        Refusal(429, "concurrency_limit_exceeded", "order_concurrency"),
        Refusal(429, "limit_exceeded", "order_service_ceiling"),
        Refusal(429, "token_quota_exceeded", "order_token_window"),
        Refusal(503, "service_maintenance", "order_maintenance"),
        BAN, RATE),
        skipped={"policy_cooldown_active": "needs five orders flagged by the content policy and a cooldown "
                                           "ladder of its own; test_policy_cooldown provokes it and checks that "
                                           "nothing is written"}),
    "POST /orders/{order}/cancel": NotCharging("gives locked money back and takes none"),
    "POST /orders/{order}/retry": Charging((
        Refusal(400, "retry_config_outdated", "order_retry_config_outdated"),
        Refusal(402, "insufficient_balance", "order_retry_empty_balance"),
        Refusal(409, "idempotency_key_reused", "order_retry_idempotency_reused"),
        Refusal(503, "service_maintenance", "order_retry_maintenance"),
        Refusal(429, "token_quota_exceeded", "order_retry_token_window"),
        BAN, RATE),
        skipped={"input_expired": RETENTION, "payg_topup_required": CONFIRM, "quote_mismatch": CONFIRM,
                 "concurrency_limit_exceeded": LIMITS, "limit_exceeded": LIMITS, "policy_cooldown_active": LIMITS}),
    "POST /orders/{order}/items/retry-failed": Charging((
        Refusal(422, "nothing_to_retry", "retry_failed_nothing"),
        Refusal(422, "invalid_order_status", "retry_failed_completed"),
        Refusal(503, "service_maintenance", "retry_failed_maintenance"), BAN, RATE),
        skipped={"stitch_in_progress": STITCH, "too_many_unknown_keys": UNKNOWN_KEYS}),
    "POST /orders/{order}/items/{item}/retry": Charging((
        Refusal(402, "insufficient_balance", "item_retry_surcharge_unpaid"),
        Refusal(409, "idempotency_key_reused", "item_retry_idempotency_reused"),
        Refusal(503, "service_maintenance", "item_retry_maintenance"),
        Refusal(409, "active_retry_exists", "item_retry_active"),
        Refusal(422, "retry_config_outdated", "item_retry_config_outdated"),
        BAN, RATE),
        skipped={"max_attempts_reached": "needs five failed attempts of one position; test_order_items makes them",
                 "input_expired": RETENTION, "stitch_in_progress": STITCH,
                 "concurrency_limit_exceeded": LIMITS, "limit_exceeded": LIMITS,
                 "token_quota_exceeded": LIMITS, "policy_cooldown_active": LIMITS}),
    "POST /orders/{order}/items/{item}/regenerate": Charging((
        Refusal(402, "insufficient_balance", "regenerate_empty_balance"),
        Refusal(409, "active_retry_exists", "regenerate_active"),
        Refusal(422, "retry_config_outdated", "regenerate_config_outdated"),
        Refusal(503, "service_maintenance", "regenerate_maintenance"),
        BAN, RATE),
        skipped={"idempotency_key_reused": "regenerate takes no Idempotency-Key (its parameters); the reason is "
                                           "in the 409 text it shares with item retry",
                 "input_expired": RETENTION, "stitch_in_progress": STITCH,
                 "concurrency_limit_exceeded": LIMITS, "limit_exceeded": LIMITS,
                 "token_quota_exceeded": LIMITS, "policy_cooldown_active": LIMITS}),
    "POST /storage/url": NotCharging("signs a link; moves no money"),
    "POST /templates": NotCharging("stores settings; moves no money"),
    "PUT /templates/{template}": NotCharging("stores settings; moves no money"),
    "PATCH /templates/{template}": NotCharging("stores settings; moves no money"),
    "DELETE /templates/{template}": NotCharging("removes settings; moves no money"),
    # A clone moves no money, but its limits are the account's: refused, nothing may be stored.
    "POST /voices/{service}/clones": Charging((
        Refusal(402, "no_subscription", "clone_third_without_subscription"),
        Refusal(422, "source_file_required", "clone_without_file"),
        Refusal(422, "source_file_unsupported", "clone_png"),
        Refusal(429, "limit_exceeded", "clone_plan_limit"), BAN, RATE),
        skipped={"idempotency_key_reused": IDEMPOTENCY}),
    "POST /voices/{service}/clones/{clone}/retry": Charging((BAN, RATE), skipped={
        "no_subscription": "needs a failed clone of an account past its free clones whose subscription ended "
                           "meanwhile; the create case above runs the same check",
        "source_file_required": "a retry reuses the samples accepted on create",
        "source_file_unsupported": "a retry reuses the samples accepted on create",
        "limit_exceeded": "the create case above runs the same check"}),
    "POST /voices/{service}/clones/{clone}/archive": NotCharging("hides a clone; moves no money"),
    # OpenAI's shape: `code` instead of `reason` (openapi documents the codes in prose).
    "POST /v1/audio/speech": Charging((
        Refusal(400, "content_blocked", "speech_first_chunk_blocked"),
        Refusal(402, "insufficient_balance", "speech_empty_balance"),
        Refusal(403, "missing_scope", "speech_without_orders_write"),
        Refusal(429, "token_quota_exceeded", "speech_token_window"))),
    # ElevenLabs' shape: `detail.status` instead of `reason`.
    **{f"POST /v1/text-to-speech/{{voice_id}}{s}": Charging((
        Refusal(402, "insufficient_balance", "el_speech_empty_balance"),
        Refusal(429, "token_quota_exceeded", "el_speech_token_window"))) for s in TTS},
    "POST /v1/sound-generation": Charging((
        Refusal(402, "insufficient_balance", "el_sound_empty_balance"),)),
    "POST /v1/music": Charging((
        Refusal(402, "insufficient_balance", "el_music_empty_balance"),)),
    "POST /broadcasting/auth": NotCharging("signs a subscription; moves no money"),
    "POST /reseller/codes": Charging((
        Refusal(402, "insufficient_balance", "gift_empty_balance"),
        Refusal(404, "not_reseller", "gift_not_reseller"), BAN, RATE),
        skipped={"too_many_unknown_keys": UNKNOWN_KEYS, "idempotency_key_reused": IDEMPOTENCY}),
    "POST /reseller/codes/{uuid}/cancel": NotCharging("gives the cost back and takes none"),
}
