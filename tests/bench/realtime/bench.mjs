// Measures one Pusher server (mediagen or the stand-in) for realtime_bench.sh and prints one JSON
// line with the results. Client sockets live in clients.mjs processes.
//
//   node bench.mjs '<json options>'
// Options: name, host, port, appKey, secret, pid (the server's, for its resident size),
//   trigger: {kind: "redis", host, port, channel, secret} (PUBLISH "bench <frame>", signed like
//            the server's own fan-out messages with the key derived from secret, the server's
//            MEDIAGEN_SECRET) or {kind: "tcp", host, port} (one frame per line),
//   connectCount (1000), fanoutSubscribers (1000), fanoutEvents (200), fanoutWarmup (20 events),
//   latencySubscribers (500), latencySeconds (20), idleSockets (50000), idleWarmup (300 sockets),
//   settleMs (1000: pause before the idle sockets, twice that after), perProcess (10000: sockets per
//   client process), procs (2: client processes for the throughput parts), addressBase (2:
//   127.0.0.<n> onwards), waitMs (the longest wait for a client process's answer; default 300 s
//   for opening sockets, 120 s for events: a lost event shows as a client that does not answer),
//   metricsUrl (the server's Prometheus text, whose *_fanout_seconds histogram gives the server's
//   own share of the delay part).
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const o = JSON.parse(process.argv[2] || '{}');
const url = `ws://${o.host}:${o.port}/app/${o.appKey}?protocol=7`;
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (msg) => process.stderr.write(`realtime_bench[${o.name}]: ${msg}\n`);
let nextAddress = o.addressBase ?? 2;

// CPU seconds the server has used so far, summed in nanoseconds from each thread's schedstat:
// /proc/PID/stat counts 10 ms ticks, coarse beside a part that costs the server a tenth of a
// second. Both servers keep their threads for the whole run, so no thread's time leaves the sum.
function cpuSeconds() {
  let ns = 0;
  for (const tid of fs.readdirSync(`/proc/${o.pid}/task`)) {
    try {
      ns += Number(fs.readFileSync(`/proc/${o.pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return ns / 1e9;
}

function rssKib() {
  const text = fs.readFileSync(`/proc/${o.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(text)[1]);
}

class Clients {
  constructor(options) {
    this.lines = [];
    this.waiters = [];
    this.proc = spawn(process.execPath, [path.join(here, 'clients.mjs'), JSON.stringify(options)], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    readline.createInterface({ input: this.proc.stdout }).on('line', (line) => {
      const msg = JSON.parse(line);
      const w = this.waiters.shift();
      if (w) w(msg);
      else this.lines.push(msg);
    });
    this.exited = new Promise((r) => this.proc.on('exit', r));
  }

  send(cmd) {
    this.proc.stdin.write(JSON.stringify(cmd) + '\n');
  }

  next(timeoutMs = o.waitMs ?? 300000) {
    if (this.lines.length) return Promise.resolve(this.lines.shift());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('a client process did not answer in time')), timeoutMs);
      this.waiters.push((m) => {
        clearTimeout(timer);
        resolve(m);
      });
    });
  }

  async exit() {
    this.send({ cmd: 'exit' });
    await this.exited;
  }
}

// Spreads `total` sockets over processes of at most `per` sockets, each from its own address.
function spawnClients(total, per, extra) {
  const out = [];
  for (let left = total, k = 0; left > 0; k += 1) {
    const count = Math.min(per, left);
    left -= count;
    out.push(new Clients({
      url, appKey: o.appKey, secret: o.secret, count, parallel: 64,
      localAddress: `127.0.0.${nextAddress++}`, ...extra(k, total - left - count),
    }));
  }
  return out;
}

async function openAll(clients) {
  for (const c of clients) c.send({ cmd: 'open' });
  const results = await Promise.all(clients.map((c) => c.next()));
  const opened = results.reduce((a, r) => a + r.opened, 0);
  const failed = results.reduce((a, r) => a + r.failed, 0);
  if (failed) log(`${failed} sockets failed: ${results.flatMap((r) => r.errors).slice(0, 3).join('; ')}`);
  return {
    opened, failed,
    start: Math.min(...results.map((r) => r.start)),
    end: Math.max(...results.map((r) => r.end)),
  };
}

// --- triggers

// The server drops fan-out messages not signed with the key every instance derives from
// MEDIAGEN_SECRET (src/realtime/fanout_signature.hpp, src/core/signed_message.cpp):
//   key     = hex(HMAC-SHA256(secret, "mediagen realtime fan-out v1"))  (the hex text is the key)
//   payload = hex(HMAC-SHA256(key, message)) + " " + message             (lower-case hex)
const FANOUT_KEY_LABEL = 'mediagen realtime fan-out v1';
const fanoutKey = (secret) => crypto.createHmac('sha256', secret).update(FANOUT_KEY_LABEL).digest('hex');
const signFanout = (key, message) => `${crypto.createHmac('sha256', key).update(message).digest('hex')} ${message}`;

class Trigger {
  static async open(spec) {
    const t = new Trigger();
    t.spec = spec;
    if (spec.kind === 'redis') {
      if (!spec.secret) throw new Error('the redis trigger needs the server\'s secret to sign its messages');
      t.key = fanoutKey(spec.secret);
    }
    t.sock = net.createConnection({ host: spec.host, port: spec.port });
    t.sock.setNoDelay(true);
    t.replies = 0;
    t.receivers = [];
    let buf = '';
    t.sock.on('data', (chunk) => {
      buf += chunk.toString('latin1');
      let nl;
      while ((nl = buf.indexOf('\r\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 2);
        t.replies += 1;
        if (line.startsWith(':')) t.receivers.push(Number(line.slice(1)));
        else if (line.startsWith('-')) log(`redis: ${line}`);
      }
    });
    await new Promise((resolve, reject) => {
      t.sock.once('connect', resolve);
      t.sock.once('error', reject);
    });
    return t;
  }

  send(frame) {
    if (this.spec.kind === 'redis') {
      const args = ['PUBLISH', this.spec.channel, signFanout(this.key, `bench ${frame}`)];
      let cmd = `*${args.length}\r\n`;
      for (const a of args) cmd += `$${Buffer.byteLength(a)}\r\n${a}\r\n`;
      this.sock.write(cmd);
    } else {
      this.sock.write(`${frame}\n`);
    }
  }

  close() {
    this.sock.end();
  }
}

const orderId = crypto.randomUUID();
const orderChannel = `private-order.task.${orderId}`;
const FRAME_BYTES = 164;

// An order.updated frame of about FRAME_BYTES bytes whose data ends with its send time ("t").
// The seq grows across every part of the run: a socket drops an event whose seq it has passed.
let lastSeq = 0;
function eventFrame() {
  const seq = ++lastSeq;
  const frame = (pad) => JSON.stringify({
    event: 'order.updated',
    channel: orderChannel,
    data: JSON.stringify({ seq, p: pad, t: Number(now().toFixed(3)) }),
  });
  const bare = frame('');
  return frame('x'.repeat(Math.max(0, FRAME_BYTES - bare.length)));
}

function percentile(sorted, q) {
  if (!sorted.length) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

// --- the four measurements

async function idle() {
  // Warm-up: a few hundred sockets opened and dropped, so that lazily made pools exist.
  const warmCount = o.idleWarmup ?? 300;
  const settle = o.settleMs ?? 1000;
  const warm = spawnClients(warmCount, warmCount, () => ({ channelPrefix: 'private-chunks.preview.' }));
  await openAll(warm);
  await Promise.all(warm.map((c) => c.exit()));
  await sleep(settle);
  const before = rssKib();
  const clients = spawnClients(o.idleSockets, o.perProcess ?? 10000,
    (k, first) => ({ channelPrefix: 'private-chunks.preview.', offset: 1 + first }));
  const r = await openAll(clients);
  await sleep(2 * settle);
  const after = rssKib();
  log(`idle: ${r.opened} sockets held, RSS ${before} -> ${after} KiB`);
  for (const c of clients) c.send({ cmd: 'close' });
  await Promise.all(clients.map((c) => c.next()));
  await Promise.all(clients.map((c) => c.exit()));
  return { held: r.opened, failed: r.failed, rss_before_kib: before, rss_after_kib: after,
           kib_per_socket: r.opened ? (after - before) / r.opened : null };
}

async function connectRate() {
  const n = o.connectCount ?? 1000;
  const procs = o.procs ?? 2;
  const clients = spawnClients(n, Math.ceil(n / procs),
    (k, first) => ({ channelPrefix: 'private-chunks.preview.', offset: 1000000 + first }));
  await sleep(500); // the client processes are loaded
  const cpu0 = cpuSeconds();
  const r = await openAll(clients);
  const cpu = cpuSeconds() - cpu0;
  await Promise.all(clients.map((c) => c.exit()));
  const seconds = (r.end - r.start) / 1000;
  log(`connect: ${r.opened} in ${seconds.toFixed(3)} s`);
  return { opened: r.opened, failed: r.failed, seconds, per_second: r.opened / seconds, server_cpu_s: cpu };
}

async function fanout(trigger) {
  const subs = o.fanoutSubscribers ?? 1000;
  const events = o.fanoutEvents ?? 200;
  const procs = o.procs ?? 2;
  const clients = spawnClients(subs, Math.ceil(subs / procs), () => ({ channel: orderChannel }));
  const r = await openAll(clients);
  const round = async (count) => {
    for (const c of clients) c.send({ cmd: 'expect', events: count });
    await sleep(100);
    const cpu0 = cpuSeconds();
    const t0 = now();
    for (let i = 1; i <= count; i += 1) trigger.send(eventFrame());
    const results = await Promise.all(clients.map((c) => c.next(o.waitMs ?? 120000)));
    const cpu = cpuSeconds() - cpu0;
    const deliveries = results.reduce((a, x) => a + x.deliveries, 0);
    const end = Math.max(...results.map((x) => x.last));
    return { deliveries, seconds: (end - t0) / 1000, cpu };
  };
  await round(o.fanoutWarmup ?? 20);
  const m = await round(events);
  await Promise.all(clients.map((c) => c.exit()));
  log(`fan-out: ${m.deliveries} deliveries to ${r.opened} sockets in ${m.seconds.toFixed(3)} s`);
  return { subscribers: r.opened, events, deliveries: m.deliveries, seconds: m.seconds,
           per_second: m.deliveries / m.seconds, server_cpu_s: m.cpu };
}

// The cumulative buckets of the server's *_fanout_seconds histogram: [[upper bound s, count], ..].
async function fanoutBuckets() {
  const text = await (await fetch(o.metricsUrl)).text();
  const buckets = [...text.matchAll(/_fanout_seconds_bucket\{le="([^"]+)"\} (\d+)/g)]
    .map((m) => [m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2])]);
  if (buckets.length === 0) throw new Error(`no *_fanout_seconds histogram at ${o.metricsUrl}`);
  return buckets;
}

// What the server observed between two reads of its histogram: the events, the quantile q by
// linear interpolation inside its bucket (as Prometheus' histogram_quantile), and the share
// within `limit` seconds (exact when limit is a bucket bound).
function bucketFigures(before, after, q, limit) {
  const cum = after.map(([le, n], i) => [le, n - before[i][1]]);
  const total = cum[cum.length - 1][1];
  if (total === 0) return { events: 0, quantile_ms: null, within_share: null };
  const rank = q * total;
  let quantile = null;
  for (let i = 0; i < cum.length; i += 1) {
    if (cum[i][1] < rank) continue;
    const lower = i === 0 ? 0 : cum[i - 1][0];
    const prev = i === 0 ? 0 : cum[i - 1][1];
    quantile = cum[i][0] === Infinity ? lower : lower + ((cum[i][0] - lower) * (rank - prev)) / (cum[i][1] - prev);
    break;
  }
  const within = cum.find(([le]) => le === limit);
  return { events: total, quantile_ms: quantile * 1000, within_share: within ? within[1] / total : null };
}

async function startFloor() {
  const proc = spawn(process.execPath, [path.join(here, 'floor.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
  const { port } = JSON.parse((await lines.next()).value);
  const sock = net.createConnection({ host: '127.0.0.1', port });
  sock.setNoDelay(true);
  await new Promise((resolve, reject) => {
    sock.once('connect', resolve);
    sock.once('error', reject);
  });
  return {
    send: () => sock.write(`${now()}\n`),
    report: async () => {
      sock.end();
      proc.stdin.write('report\n');
      return JSON.parse((await lines.next()).value).delays;
    },
  };
}

async function latency(trigger) {
  const subs = o.latencySubscribers ?? 500;
  const seconds = o.latencySeconds ?? 20;
  const procs = o.procs ?? 2;
  const clients = spawnClients(subs, Math.ceil(subs / procs), () => ({ channel: orderChannel }));
  const r = await openAll(clients);
  const floor = await startFloor();
  for (const c of clients) c.send({ cmd: 'expect', events: seconds, delays: true });
  await sleep(500);
  const before = await fanoutBuckets();
  // Half a second after each event, a timestamp to the floor process: the machine's own wake-up
  // delay, measured in the same minutes, with the same sockets held, away from the events.
  for (let i = 1; i <= seconds; i += 1) {
    trigger.send(eventFrame());
    await sleep(500);
    floor.send();
    await sleep(500);
  }
  const results = await Promise.all(clients.map((c) => c.next(o.waitMs ?? 120000)));
  const after = await fanoutBuckets();
  const floorDelays = (await floor.report()).sort((a, b) => a - b);
  await Promise.all(clients.map((c) => c.exit()));
  const delays = results.flatMap((x) => x.delays).sort((a, b) => a - b);
  // The first receipt of each event by any subscriber: the server's own share of the delay, with
  // little of the clients' queueing (they read 500 frames per event one after the other).
  const first = new Map();
  for (const [t, d] of results.flatMap((x) => x.firsts)) first.set(t, Math.min(first.get(t) ?? Infinity, d));
  const firsts = [...first.values()].sort((a, b) => a - b);
  const internal = bucketFigures(before, after, 0.95, 0.005);
  log(`latency: ${delays.length} receipts from ${r.opened} sockets; the server counted ${internal.events} events`);
  return {
    subscribers: r.opened, samples: delays.length,
    p50_ms: percentile(delays, 0.5), p95_ms: percentile(delays, 0.95), p99_ms: percentile(delays, 0.99),
    first_p50_ms: percentile(firsts, 0.5), first_max_ms: firsts.length ? firsts[firsts.length - 1] : null,
    internal_events: internal.events, internal_p95_ms: internal.quantile_ms, internal_within_5ms: internal.within_share,
    floor_samples: floorDelays.length, floor_p50_ms: percentile(floorDelays, 0.5),
    floor_p95_ms: percentile(floorDelays, 0.95),
  };
}

const result = { name: o.name, frame_bytes: eventFrame(1).length };
result.idle = await idle();
result.connect = await connectRate();
const trigger = await Trigger.open(o.trigger);
result.fanout = await fanout(trigger);
result.latency = await latency(trigger);
if (o.trigger.kind === 'redis' && !trigger.receivers.some((n) => n > 0)) {
  log('no server instance received the PUBLISH messages');
  result.error = 'no receivers of PUBLISH';
}
trigger.close();
process.stdout.write(JSON.stringify(result) + '\n');
