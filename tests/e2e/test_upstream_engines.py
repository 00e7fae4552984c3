"""Upstream provider engines end to end (issue 19; ARCHITECTURE "Engines"; spec 3.2 chunk
outcomes): services put behind a stand-in provider (tests/e2e/upstream_standin.py) of the
openai shape (provider_a, Kokoro-style voices) and of the ElevenLabs shape (provider_c, sfx)
make real stitched tracks with subtitles; the voices come from the upstream with the spec's id
formats; every injected failure gives its documented chunk outcome with the money of the chunk
rules; a dead upstream trips the breaker and later chunks fail without reaching it; a refused key
is named to the operator; the keys appear in no log, response, metric or database row.
The ledger invariants run after every test."""

import re
import subprocess

from compat_support import bearer, decoded_samples
from harness import E2ETestCase, metric_sum, poll
from orders_support import OrderFixtures, decoded_duration_ms, download
from programs import program
from upstream_standin import ELEVEN_VOICES, StandIn

SECRET = "sk-upstream-Secret-7f3a9c1e5d"       # the right key, in UPSTREAM_TEST_KEY
WRONG = "sk-wrong-Key-0b1d2e3f4a5c"           # a refused key, in UPSTREAM_WRONG_KEY
PARAGRAPH = {"generation_mode": "paragraph"}
FILLER = "and then the reader goes on for a while to make the sentence long enough"

# (marker, chunk status, failure_reason) in the order the one worker takes the paragraphs.
# The failures that count toward the breaker (unavailable) never come twice in a row.
INJECTED = [
    ("", "completed", None),
    ("RATE429", "failed", "upstream_unavailable"),
    ("NOTAUDIO", "failed", "upstream_bad_audio"),
    ("FAIL500", "failed", "upstream_unavailable"),
    ("TOOSHORT", "failed", "upstream_bad_audio"),
    ("SLOWREPLY", "failed", "upstream_unavailable"),
    ("REFUSE400", "policy_flagged", "content_policy"),
    ("RESETCONN", "failed", "upstream_unavailable"),
    ("FLAKY500", "completed", None),
]


class UpstreamEngineTests(OrderFixtures, E2ETestCase):
    server_env = {
        "MEDIAGEN_WORKERS": "1",  # the injected failures' order is the paragraphs' order
        "MEDIAGEN_UPSTREAM_TIMEOUT_MS": "6000",  # ample for the stand-in's answers on a loaded machine
        "MEDIAGEN_UPSTREAM_ATTEMPTS": "2",
        "MEDIAGEN_UPSTREAM_BACKOFF_MS": "20",
        "MEDIAGEN_UPSTREAM_BREAKER_FAILURES": "2",
        "MEDIAGEN_UPSTREAM_BREAKER_OPEN_MS": "600000",
        "UPSTREAM_TEST_KEY": SECRET,
        "UPSTREAM_WRONG_KEY": WRONG,
    }

    @classmethod
    def prepare(cls):
        cls.seed()
        cls.up = StandIn(SECRET, slow_seconds=9.0)  # past the timeout
        cls.dead = StandIn(SECRET)
        cls.outputs = []  # every CLI answer, searched for the keys at the end
        env = {"UPSTREAM_TEST_KEY": SECRET, "UPSTREAM_WRONG_KEY": WRONG}
        cls.env = env
        for service, kind, url, model in [("provider_a", "openai", cls.up.openai_url, "kokoro"),
                                          ("provider_c", "elevenlabs", cls.up.elevenlabs_url, "eleven_multilingual_v2"),
                                          ("provider_b", "openai", cls.up.openai_url, "kokoro"),
                                          ("provider_d", "openai", cls.dead.openai_url, "kokoro"),
                                          ("sfx", "elevenlabs", cls.up.elevenlabs_url, "")]:
            cls.outputs.append(cls.h.cli("admin", "service", "engine", "--service", service, "--kind", kind,
                                         "--url", url, "--model", model, "--api-key-env", "UPSTREAM_TEST_KEY",
                                         extra_env=env))
            if service != "sfx":
                cls.outputs.append(cls.h.cli("admin", "service", "sync", "--service", service, extra_env=env))
        # provider_b's key is then refused; provider_d's upstream dies.
        cls.outputs.append(cls.h.cli("admin", "service", "engine", "--service", "provider_b", "--kind", "openai",
                                     "--url", cls.up.openai_url, "--model", "kokoro",
                                     "--api-key-env", "UPSTREAM_WRONG_KEY", extra_env=env))
        cls.dead.set_down(True)
        cls.responses = []

    @classmethod
    def tearDownClass(cls):
        for s in ("up", "dead"):
            if hasattr(cls, s):
                getattr(cls, s).close()
        super().tearDownClass()

    def tearDown(self):
        self.assertInvariants()

    # -- helpers

    def api(self, *args, **kw):
        r = self.server.api(*args, **kw)
        type(self).responses.append(r.raw)
        return r

    def voice_of(self, key, service, upstream_id):
        path = "/voices/provider_a/library?page_size=50" if service == "provider_a" else f"/voices/{service}?per_page=100"
        data = self.api("GET", path, key).body["data"]
        ids = [v["voice_id"] for v in data.get("voices") or data.get("items")]
        voice = self.h.psql_value(f"SELECT v.voice_id FROM voices v JOIN services s ON s.id = v.service_id"
                                  f" WHERE s.key = '{service}' AND v.upstream_voice_id = '{upstream_id}' AND v.is_active")
        self.assertIn(voice, ids)
        return voice

    def finished(self, key, template, text, **extra):
        created = self.assertSuccess(self.create(key, template, text, **extra), 201)
        return self.wait_order(key, created["id"], {"completed", "partially_completed", "failed"}, timeout=180)

    def assertTrack(self, key, order):
        self.assertEqual(order["status"], "completed", order)
        mp3 = download(self.server, key, order["result"]["files"][0])
        self.assertGreater(decoded_duration_ms(mp3), 1500)
        srt = [p for p in order["result"]["service_files"] if p.endswith(".srt")][0]
        vtt = [p for p in order["result"]["service_files"] if p.endswith(".vtt")][0]
        srt_text = download(self.server, key, srt).decode()
        self.assertRegex(srt_text, r"00:00:0\d,\d{3} --> 00:00:\d\d,\d{3}\n\w")
        return download(self.server, key, vtt).decode()

    # -- the tests

    def test_0_the_engine_command_refuses_what_does_not_fit_and_seed_demo_keeps_the_choice(self):
        for args, said in [(["--service", "nope", "--kind", "openai", "--url", "http://x"], "no service"),
                           (["--service", "provider_a", "--kind", "openai"], "--url is required"),
                           (["--service", "music", "--kind", "openai", "--url", "http://x"], "cannot serve"),
                           (["--service", "provider_a", "--kind", "openai", "--url", "ftp://x"], "http"),
                           (["--service", "provider_a", "--kind", "openai", "--url", "http://x",
                             "--api-key-env", "A", "--api-key-file", "/k"], "not both")]:
            with self.subTest(args=args):
                p = self.h.run_cli("admin", "service", "engine", *args)
                self.assertNotEqual(p.returncode, 0)
                self.assertIn(said, p.stderr)
        self.assertEqual(self.h.psql_value("SELECT engine FROM services WHERE key = 'provider_a'"), "openai")
        before = self.h.psql_value("SELECT string_agg(voice_id, ',' ORDER BY voice_id) FROM voices v"
                                   " JOIN services s ON s.id = v.service_id WHERE s.key = 'provider_a' AND v.is_active")
        out = self.h.cli("admin", "seed-demo", "--skip-voice-features", extra_env=self.env)
        type(self).outputs.append(out)
        self.assertEqual(self.h.psql_rows("SELECT key, engine FROM services WHERE key IN ('provider_a', 'sfx')"
                                          " ORDER BY key"), [["provider_a", "openai"], ["sfx", "elevenlabs"]])
        after = self.h.psql_value("SELECT string_agg(voice_id, ',' ORDER BY voice_id) FROM voices v"
                                  " JOIN services s ON s.id = v.service_id WHERE s.key = 'provider_a' AND v.is_active")
        self.assertEqual(after, before)
        self.assertEqual(len(after.split(",")), 2)  # the upstream's two voices, not espeak's
        self.assertIn("error", out["upstream_voices"]["provider_b"])  # its key is refused: voices kept

    def test_a_openai_shape_order_completes_with_a_track_and_estimated_subtitles(self):
        user, key = self.account(balance=100_000)
        voice = self.voice_of(key, "provider_a", "af_bella")
        self.assertRegex(voice, r"^[A-Za-z0-9]{20}$")  # Kokoro's id did not fit: derived
        template = self.template(key, "provider_a", voice=voice)
        before = self.balance(user["id"])
        order = self.finished(key, template, "Hello from an upstream voice. It speaks two sentences.")
        vtt = self.assertTrack(key, order)
        self.assertIn("NOTE word timings: estimated", vtt)
        self.assertEqual(before - self.balance(user["id"]), order["price_units"])
        calls = [r for r in self.up.seen("/v1/audio/speech") if "upstream voice" in r["body"]["input"]]
        self.assertEqual(len(calls), 1)
        self.assertTrue(calls[0]["auth_ok"])
        self.assertEqual((calls[0]["body"]["voice"], calls[0]["body"]["model"]), ("af_bella", "kokoro"))

    def test_b_elevenlabs_shape_order_completes_with_aligned_subtitles(self):
        user, key = self.account(balance=100_000)
        voice = self.voice_of(key, "provider_c", ELEVEN_VOICES[0]["voice_id"])
        self.assertRegex(voice, r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
        template = self.template(key, "provider_c", voice=voice)
        order = self.finished(key, template, "An aligned voice speaks here. Its words carry their own times.")
        vtt = self.assertTrack(key, order)
        self.assertNotIn("estimated", vtt)
        calls = self.up.seen(f"/v1/text-to-speech/{ELEVEN_VOICES[0]['voice_id']}/with-timestamps")
        self.assertEqual(len(calls), 1)
        self.assertEqual(calls[0]["body"]["model_id"], "eleven_multilingual_v2")

    def test_bb_each_chunk_hears_its_neighbours(self):
        _, key = self.account(balance=100_000)
        voice = self.voice_of(key, "provider_c", ELEVEN_VOICES[0]["voice_id"])
        template = self.template(key, "provider_c", voice=voice)
        paragraphs = ["Neighbour one opens the text.", "Neighbour two sits in the middle.", "Neighbour three ends it."]
        order = self.finished(key, template, "\n\n".join(paragraphs), config_override=PARAGRAPH)
        self.assertEqual(order["status"], "completed", order)
        calls = {r["body"]["text"]: r["body"] for r in
                 self.up.seen(f"/v1/text-to-speech/{ELEVEN_VOICES[0]['voice_id']}/with-timestamps")
                 if r["body"]["text"] in paragraphs}
        self.assertEqual(set(calls), set(paragraphs))
        first, middle, last = (calls[p] for p in paragraphs)
        self.assertEqual((middle["previous_text"], middle["next_text"]), (paragraphs[0], paragraphs[2]))
        self.assertNotIn("previous_text", first)
        self.assertEqual(first["next_text"], paragraphs[1])
        self.assertEqual(last["previous_text"], paragraphs[1])
        self.assertNotIn("next_text", last)

    def test_c_a_sound_effect_through_elevenlabs_completes(self):
        _, key = self.account(balance=100_000)
        created = self.assertSuccess(self.api("POST", "/orders", key, body={
            "task_type": "sfx", "task_data": {"text": "a door creaks open slowly", "duration_seconds": 3}}), 201)
        done = self.wait_order(key, created["id"], {"completed", "failed"}, timeout=120)
        self.assertEqual(done["status"], "completed", done)
        mp3 = download(self.server, key, done["result"]["files"][0])
        self.assertAlmostEqual(decoded_duration_ms(mp3), 3000, delta=300)
        self.assertEqual(len(self.up.seen("/v1/sound-generation")), 1)

    def test_d_each_injected_failure_gives_its_chunk_outcome(self):
        user, key = self.account(balance=100_000)
        template = self.template(key, "provider_a", voice=self.voice_of(key, "provider_a", "am_adam"))
        paragraphs = [f"Paragraph {i} {marker} {FILLER}." for i, (marker, _, _) in enumerate(INJECTED)]
        before = self.balance(user["id"])
        order = self.finished(key, template, "\n\n".join(paragraphs), config_override=PARAGRAPH)
        self.assertEqual(order["status"], "partially_completed", order)
        charged = 0
        for i, (marker, status, reason) in enumerate(INJECTED):
            item = [x for x in order["items"] if x["chunk_index"] == i][0]
            with self.subTest(marker=marker):
                self.assertEqual((item["status"], item["failure_reason"]), (status, reason))
                if status == "completed":
                    self.assertEqual(item["consumed_units"], item["price_units"])
                    charged += item["price_units"]
                else:  # kept locked for a free retry, nothing charged
                    self.assertEqual((item["consumed_units"], item["remaining_locked"]), (0, item["price_units"]))
        # The flaky one was asked twice (a retry), the refused one once (no retry).
        self.assertEqual(len([r for r in self.up.seen("/audio/speech") if "FLAKY500" in r["body"]["input"]]), 2)
        self.assertEqual(len([r for r in self.up.seen("/audio/speech") if "REFUSE400" in r["body"]["input"]]), 1)
        self.assertEqual(len([r for r in self.up.seen("/audio/speech") if "RATE429" in r["body"]["input"]]), 2)
        # Cancelling gives back exactly what was not spent.
        self.assertSuccess(self.api("POST", f"/orders/{order['id']}/cancel", key), 200)
        self.assertEqual(before - self.balance(user["id"]), self.money_for(order, charged))

    def money_for(self, order, tokens):
        """The money of `tokens` of this order (its price per token)."""
        total = sum(i["price_units"] for i in order["items"])
        return order["price_units"] * tokens // total

    def test_e_a_dead_upstream_trips_the_breaker_and_later_chunks_fail_fast(self):
        _, key = self.account(balance=100_000)
        voice = self.h.psql_value("SELECT v.voice_id FROM voices v JOIN services s ON s.id = v.service_id"
                                  " WHERE s.key = 'provider_d' AND v.upstream_voice_id = 'af_bella'")
        template = self.template(key, "provider_d", voice=voice)
        for n in range(2):  # two chunks unavailable in a row (threshold 2) open the breaker
            order = self.finished(key, template, f"Nobody answers this {n} time, {FILLER}.")
            self.assertEqual(order["items"][0]["failure_reason"], "upstream_unavailable")
        reached = len(self.dead.seen("/audio/speech"))
        self.assertEqual(reached, 2 * 2)  # two attempts each
        order = self.finished(key, template, f"The breaker is open now, {FILLER}.")
        self.assertEqual((order["items"][0]["status"], order["items"][0]["failure_reason"]),
                         ("failed", "upstream_unavailable"))
        self.assertEqual(len(self.dead.seen("/audio/speech")), reached, "an open breaker sent a request")
        samples = self.server.metrics()
        self.assertEqual(metric_sum(samples, "mediagen_upstream_circuit_open", service="provider_d"), 1)
        self.assertGreaterEqual(
            metric_sum(samples, "mediagen_upstream_requests_total", service="provider_d", outcome="circuit_open"), 1)

    def test_f_a_refused_key_is_named_to_the_operator(self):
        _, key = self.account(balance=100_000)
        template = self.template(key, "provider_b", voice=self.voice_of(key, "provider_b", "af_bella"))
        order = self.finished(key, template, f"This key is refused, {FILLER}.")
        self.assertEqual((order["items"][0]["status"], order["items"][0]["failure_reason"]),
                         ("failed", "upstream_unauthorized"))
        # The log is read from the server's stderr by another thread: it may trail the API a little.
        self.assertTrue(poll(lambda: any("upstream refused the key" in line for line in self.server.log_lines()),
                             timeout=10.0))
        samples = self.server.metrics()
        self.assertGreaterEqual(
            metric_sum(samples, "mediagen_upstream_requests_total", service="provider_b", outcome="unauthorized"), 1)

    def test_g_the_openai_compatible_surface_speaks_through_the_upstream(self):
        # One path whatever made the chunk: OpenAI's request shape in, the provider's voice out.
        user, key = self.account(balance=100_000)
        voice = self.voice_of(key, "provider_a", "af_bella")
        models = bearer(self.server, "GET", "/v1/models", key)
        type(self).responses.append(models.raw)
        model = [m["id"] for m in models.body["data"] if m["id"].startswith("provider_a/")][0]
        before = self.balance(user["id"])
        r = bearer(self.server, "POST", "/v1/audio/speech", key,
                   body={"model": model, "voice": voice, "input": "Compatible clients reach the provider too.",
                         "response_format": "wav"})
        type(self).responses.append(r.raw)
        self.assertEqual(r.status, 200, r)
        self.assertGreater(decoded_samples(r.raw, "wav"), 24000)
        order = self.wait_order(key, r.headers["x-order-id"], {"completed", "result_delivered"})
        self.assertEqual(before - self.balance(user["id"]), order["price_units"])
        calls = [c for c in self.up.seen("/v1/audio/speech") if "Compatible clients" in c["body"]["input"]]
        self.assertEqual(len(calls), 1)
        self.assertEqual((calls[0]["body"]["voice"], calls[0]["auth_ok"]), ("af_bella", True))

    def test_z_the_keys_appear_nowhere(self):
        _, key = self.account(balance=100_000)
        for path in ("/orders?per_page=100", "/voices/provider_a/library", "/voices/provider_c", "/templates"):
            self.api("GET", path, key)
        for oid in self.h.psql_value("SELECT string_agg(id::text, ',') FROM orders").split(","):
            self.api("GET", f"/orders/{oid}", key)
        places = {
            "log": "\n".join(self.server.log_lines()),
            "responses": "\n".join(r.decode(errors="replace") for r in type(self).responses),
            "metrics": self.server.admin_get("/metrics").raw.decode(),
            "cli": "\n".join(str(o) for o in type(self).outputs),
            "database": subprocess.run([program("pg_dump"), "--data-only", self.h.db_url], capture_output=True, text=True,
                                       timeout=120, check=True).stdout,
        }
        self.assertIn("upstream refused the key", places["log"])  # the refusal was logged: searched where it is
        for secret in (SECRET, WRONG):
            for name, text in places.items():
                with self.subTest(place=name, secret=secret[:8]):
                    self.assertNotIn(secret, text)
                    self.assertIsNone(re.search(re.escape(secret[-12:]), text))
