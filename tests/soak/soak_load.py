"""The soak's mix: what one request of each kind does, what answers it expects, and the open-loop
schedule that starts them.

Latency is measured from the moment the schedule meant a request to start, not from when it was
sent: a server that falls behind shows its delay in the figures instead of slowing its own load
(coordinated omission, which every closed-loop bench of this project has)."""

import asyncio
import collections
import json
import random
import time
import urllib.parse

from soak_client import HttpError, PusherSocket, raw_exchange

API = "/api"
SHORT = ["The river keeps its own time.", "Quiet rooms make loud thoughts.",
         "Every map leaves something out.", "Bread tastes better when shared.",
         "The last train leaves at nine.", "Snow fell on the silent harbour."]
LONG = " ".join(SHORT * 60)  # about 11 kB: a chunk preview of several chunks
TERMINAL = {"completed", "result_delivered", "failed", "compensated", "cancelled"}

# kind -> (weight per 1,000 requests, statuses that are right for it)
MIX = {
    "user": (200, {200}),
    "order_get": (190, {200}),
    "order_list": (70, {200}),
    "order_items": (50, {200}),
    "usage": (40, {200}),
    "create": (12, {201}),
    "preview": (60, {200}),
    "download": (40, {200}),
    "openai_speech": (3, {200}),
    "openai_models": (25, {200}),
    "el_tts": (3, {200}),
    "el_voices": (25, {200}),
    "upload": (3, {201}),
    "realtime_auth": (0, {200}),  # follows creates; not drawn
    "hostile": (250, {400, 401, 403, 404, 405, 413, 422, 429, 431}),
}


class Stats:
    """Per-kind latencies and statuses since the last interval, and totals for the whole run."""

    def __init__(self):
        self.interval = collections.defaultdict(list)
        self.statuses = collections.Counter()   # (kind, status) over the run
        self.unexpected = []                      # (kind, status, detail), first 50 kept
        self.unexpected_count = 0
        self.server_errors = 0
        self.transport_errors = 0
        self.requests = 0

    def record(self, kind, status, latency_ms, detail=""):
        self.requests += 1
        self.interval[kind].append((latency_ms, status))
        self.statuses[(kind, status)] += 1
        if status is None:
            self.transport_errors += 1
        elif status >= 500:
            self.server_errors += 1
        if status is None or status not in MIX[kind][1]:
            self.unexpected_count += 1
            if len(self.unexpected) < 50:
                self.unexpected.append((kind, status, detail[:300]))

    def take_interval(self):
        out, self.interval = self.interval, collections.defaultdict(list)
        return out


class Load:
    """The account, the servers and what the run has learnt (orders made, files finished)."""

    def __init__(self, ctx, stats, rng):
        self.ctx, self.stats, self.rng = ctx, stats, rng
        self.orders = collections.deque(maxlen=300)      # (instance, order id)
        self.created = {}                                 # order id -> True when it has a webhook
        self.files = collections.deque(maxlen=100)        # result files of finished orders
        self.sockets = []
        self.subscribed = collections.Counter()
        self.hostile_sources = [f"127.0.0.{i}" for i in range(10, 250)]
        self.preview_turn = 0

    def pool(self, i=None):
        pools = self.ctx.pools
        return pools[self.rng.randrange(len(pools))] if i is None else pools[i]

    def auth(self, extra=None):
        h = {"X-API-KEY": self.ctx.key}
        h.update(extra or {})
        return h

    async def run(self, kind, intended):
        status, detail = None, ""
        try:
            status, detail = await getattr(self, "op_" + kind)()
        except HttpError as e:
            detail = str(e)
        except Exception as e:  # a bug in the soak itself is reported, not hidden
            detail = f"soak error {type(e).__name__}: {e}"
        self.stats.record(kind, status, (time.monotonic() - intended) * 1000.0, detail)

    # ------------------------------------------------------------------ reads

    async def get(self, path, headers=None, pool=None):
        r = await (pool or self.pool()).request("GET", path, headers or self.auth())
        return r.status, r.body[:200].decode("utf-8", "replace")

    async def op_user(self):
        return await self.get(f"{API}/user")

    async def op_usage(self):
        return await self.get(f"{API}/usage")

    async def op_order_list(self):
        return await self.get(f"{API}/orders?per_page=20")

    async def op_order_items(self):
        if not self.orders:
            return await self.op_user()
        i, order = self.rng.choice(self.orders)
        return await self.get(f"{API}/orders/{order}/items", pool=self.pool(i))

    async def op_order_get(self):
        if not self.orders:
            return await self.op_user()
        i, order = self.rng.choice(self.orders)
        r = await self.pool(i).request("GET", f"{API}/orders/{order}", self.auth())
        if r.status == 200:
            data = r.json()["data"]
            if data["status"] in ("completed", "result_delivered") and data.get("result"):
                self.files.extend(data["result"].get("files") or [])
        return r.status, r.body[:200].decode("utf-8", "replace")

    async def op_download(self):
        if not self.files:
            return await self.op_usage()
        pool = self.pool()
        r = await pool.request("POST", f"{API}/storage/url", self.auth(),
                               {"path": self.rng.choice(self.files), "download": True})
        if r.status != 200:
            return r.status, r.body[:200].decode("utf-8", "replace")
        link = urllib.parse.urlsplit(r.json()["data"]["url"])
        got = await pool.request("GET", link.path + "?" + link.query)
        return got.status, "" if got.status == 200 else got.body[:200].decode("utf-8", "replace")

    # ------------------------------------------------------------------ orders

    async def op_create(self):
        i = self.rng.randrange(len(self.ctx.pools))
        hooked = self.rng.random() < 0.25
        body = {"template_id": self.ctx.template, "input_text": " ".join(self.rng.sample(SHORT, 2))}
        if hooked:
            body["webhook"] = self.ctx.webhook_url
        r = await self.pool(i).request("POST", f"{API}/orders", self.auth(), body)
        if r.status == 201:
            order = r.json()["data"]["id"]
            self.orders.append((i, order))
            self.created[order] = hooked
            if self.sockets:
                asyncio.get_running_loop().create_task(self.follow(order))
        return r.status, r.body[:200].decode("utf-8", "replace")

    async def op_preview(self):
        # The spec throttles preview POSTs to 30 a minute per key: a dashboard's users each have theirs.
        self.preview_turn += 1
        key = self.ctx.preview_keys[self.preview_turn % len(self.ctx.preview_keys)]
        r = await self.pool().request("POST", f"{API}/orders/chunks/preview", {"X-API-KEY": key},
                                      {"template_id": self.ctx.template, "input_text": LONG[:self.rng.randrange(200, 11000)]})
        return r.status, r.body[:200].decode("utf-8", "replace")

    async def op_upload(self):
        # Uploads in progress are capped per key (spec 8.2): each of the dashboard's users has theirs.
        self.preview_turn += 1
        key = self.ctx.preview_keys[self.preview_turn % len(self.ctx.preview_keys)]
        r = await self.pool().request("POST", f"{API}/orders", {"X-API-KEY": key, "Content-Type": self.ctx.upload[0]},
                                      self.ctx.upload[1])
        if r.status == 201:
            self.created[r.json()["data"]["id"]] = False
        return r.status, r.body[:200].decode("utf-8", "replace")

    # ------------------------------------------------------------------ compatible surfaces

    async def op_openai_speech(self):
        r = await self.pool().request("POST", "/v1/audio/speech", {"Authorization": f"Bearer {self.ctx.key}"},
                                      {"model": "provider_b/b-standard", "voice": self.ctx.openai_voice,
                                       "input": self.rng.choice(SHORT)})
        return r.status, "" if r.status == 200 else r.body[:200].decode("utf-8", "replace")

    async def op_openai_models(self):
        return await self.get("/v1/models", {"Authorization": f"Bearer {self.ctx.key}"})

    async def op_el_tts(self):
        r = await self.pool().request("POST", f"/v1/text-to-speech/{self.ctx.el_voice}?output_format=mp3_22050_32",
                                      {"xi-api-key": self.ctx.key}, {"text": self.rng.choice(SHORT)})
        return r.status, "" if r.status == 200 else r.body[:200].decode("utf-8", "replace")

    async def op_el_voices(self):
        return await self.get("/v1/voices", {"xi-api-key": self.ctx.key})

    # ------------------------------------------------------------------ realtime

    async def follow(self, order):
        """A subscriber picks up the new order's channel (as a dashboard would), through the
        signing route, and drops its oldest channel past 20."""
        sock = self.rng.choice(self.sockets)
        if sock.closed:
            return
        channel = f"private-order.task.{order}"
        started = time.monotonic()
        status, detail = None, ""
        try:
            body = urllib.parse.urlencode({"socket_id": sock.socket_id, "channel_name": channel}).encode()
            r = await self.pool(self.ctx.socket_instance[id(sock)]).request(
                "POST", f"{API}/broadcasting/auth",
                self.auth({"Content-Type": "application/x-www-form-urlencoded"}), body)
            status = r.status
            if r.status == 200:
                await sock.subscribe(channel, r.json()["auth"])
                self.subscribed[id(sock)] += 1
            else:
                detail = r.body[:200].decode("utf-8", "replace")
        except (HttpError, OSError) as e:
            detail = str(e)
        self.stats.record("realtime_auth", status, (time.monotonic() - started) * 1000.0, detail)

    async def open_sockets(self, count):
        for n in range(count):
            i = n % len(self.ctx.pools)
            sock = PusherSocket(self.ctx.pools[i].host, self.ctx.pools[i].port, self.ctx.app_key)
            await sock.connect()
            self.ctx.socket_instance[id(sock)] = i
            self.sockets.append(sock)
            asyncio.get_running_loop().create_task(sock.listen())

    # ------------------------------------------------------------------ hostile clients

    async def op_hostile(self):
        """One of the hostile shapes, from an address of its own (its misses may get it banned;
        the honest clients' address never misses)."""
        source = self.rng.choice(self.hostile_sources)
        pool = self.ctx.hostile_pool(source)
        close = {"Connection": "close"}
        shape = self.rng.randrange(6)
        if shape == 0:
            r = await pool.request("GET", f"{API}/no-such-route-{self.rng.randrange(10**6)}", close)
        elif shape == 1:
            r = await pool.request("GET", f"{API}/user", {"X-API-KEY": "mg_" + "x" * 43, **close})
        elif shape == 2:
            r = await pool.request("POST", f"{API}/orders", {"X-API-KEY": self.ctx.hostile_key, **close},
                                   b'{"template_id": ' + bytes([self.rng.randrange(256)]) * 40)
        elif shape == 3:
            r = await pool.request("POST", f"{API}/orders", {"X-API-KEY": self.ctx.hostile_key, **close},
                                   {"template_id": self.ctx.hostile_template, "input_text": "\ud800" * 3})
        elif shape == 4:
            r = await pool.request("GET", f"{API}/user", {"X-API-KEY": self.ctx.key, "X-Filler": "y" * 9000, **close})
        else:
            status = await raw_exchange(pool.host, pool.port, b"GET /api/user HTTP/1.1\r\nHost: x\r\n"
                                        b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", source)
            return status, "smuggling shape"
        return r.status, r.body[:200].decode("utf-8", "replace")


async def schedule(load, rate, seconds, rng, stop):
    """Starts requests at `rate` a second for `seconds`, each on time whether or not the ones
    before it have finished. Returns the tasks still running at the end."""
    kinds = [k for k, (w, _) in MIX.items() if w > 0]
    weights = [MIX[k][0] for k in kinds]
    started = time.monotonic()
    load.scheduled = 0
    tasks = set()
    n = 0
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        intended = started + n / rate
        if intended - started >= seconds:
            break
        delay = intended - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        kind = rng.choices(kinds, weights)[0]
        task = loop.create_task(load.run(kind, intended))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        n += 1
        load.scheduled = n
    return tasks


def preview_keys_needed(rate):
    """Keys enough that round-robin previews stay at 25 a minute per key, under the spec's 30."""
    per_minute = rate * 60.0 * MIX["preview"][0] / sum(w for w, _ in MIX.values())
    return max(1, int(per_minute / 25.0) + 1)


def new_rng(seed):
    return random.Random(seed)


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"))
