// A minimal Pusher protocol 7 server on the `ws` package: the yardstick of realtime_bench.sh.
// It does what the benchmark asks of mediagen and nothing more:
//   ws://HOST:PORT/app/<appKey>  -> pusher:connection_established
//   pusher:subscribe {channel, auth} -> HMAC-SHA256 check of "<socket_id>:<channel>"
//                                    -> pusher_internal:subscription_succeeded
//   pusher:ping -> pusher:pong
// and a trigger port (plain TCP, one frame per line: {"event","channel","data"}) whose frames it
// sends, as they are, to every subscriber of the frame's channel with one send() each.
// GET /metrics answers standin_fanout_seconds, in mediagen's buckets: per frame with subscribers,
// from the read of its trigger data until every subscriber's send() has returned (ws writes at
// once when nothing waits, as mediagen does).
//
//   node standin.mjs '{"host":"127.0.0.1","appKey":..,"secret":..}'
// prints one line {"port":N,"trigger_port":M} once both listen.
import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';

import { WebSocketServer } from 'ws';

const opts = JSON.parse(process.argv[2] || '{}');
const host = opts.host ?? '127.0.0.1';
const channels = new Map(); // channel -> Set of sockets
let serial = 0;

function sign(socketId, channel) {
  return `${opts.appKey}:${crypto.createHmac('sha256', opts.secret).update(`${socketId}:${channel}`).digest('hex')}`;
}

function frame(event, data, channel) {
  const f = { event, data: JSON.stringify(data) };
  if (channel !== undefined) f.channel = channel;
  return JSON.stringify(f);
}

// mediagen's DurationHistogram bounds, in seconds.
const BOUNDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0];
const fanoutCounts = new Array(BOUNDS.length + 1).fill(0);
function observeFanout(seconds) {
  let b = 0;
  while (b < BOUNDS.length && seconds > BOUNDS[b]) b += 1;
  fanoutCounts[b] += 1;
}
function metricsText() {
  let out = '# TYPE standin_fanout_seconds histogram\n';
  let cumulative = 0;
  fanoutCounts.forEach((n, b) => {
    cumulative += n;
    out += `standin_fanout_seconds_bucket{le="${b < BOUNDS.length ? BOUNDS[b] : '+Inf'}"} ${cumulative}\n`;
  });
  return out;
}

const server = http.createServer((req, res) => {
  if (req.url === '/metrics') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(metricsText());
    return;
  }
  res.writeHead(404);
  res.end();
});
const wss = new WebSocketServer({ noServer: true, maxPayload: 10240, clientTracking: false });
server.on('upgrade', (req, socket, head) => {
  const path = req.url.split('?')[0];
  wss.handleUpgrade(req, socket, head, (ws) => {
    if (path !== `/app/${opts.appKey}`) {
      ws.send(frame('pusher:error', { code: 4001, message: 'Application does not exist' }));
      ws.close(4001);
      return;
    }
    serial += 1;
    const socketId = `${process.pid}.${serial}`;
    const subs = new Set();
    ws.send(frame('pusher:connection_established', { socket_id: socketId, activity_timeout: 120 }));
    ws.on('message', (raw, isBinary) => {
      let m;
      try {
        m = isBinary ? null : JSON.parse(raw.toString('utf8'));
      } catch {
        m = null;
      }
      if (!m || typeof m.event !== 'string') {
        ws.send(frame('pusher:error', { code: 4200, message: 'Invalid message format' }));
        return;
      }
      if (m.event === 'pusher:ping') {
        ws.send('{"event":"pusher:pong","data":"{}"}');
      } else if (m.event === 'pusher:subscribe') {
        const data = typeof m.data === 'string' ? JSON.parse(m.data) : m.data || {};
        const channel = String(data.channel || '');
        const want = sign(socketId, channel);
        const auth = String(data.auth || '');
        if (auth.length !== want.length || !crypto.timingSafeEqual(Buffer.from(auth), Buffer.from(want))) {
          ws.send(frame('pusher:subscription_error', { type: 'AuthError', error: 'Invalid signature', status: 401 },
            channel));
          ws.send(frame('pusher:error', { code: 4009, message: 'Invalid signature' }));
          return;
        }
        let set = channels.get(channel);
        if (!set) {
          set = new Set();
          channels.set(channel, set);
        }
        set.add(ws);
        subs.add(channel);
        ws.send(`{"event":"pusher_internal:subscription_succeeded","channel":${JSON.stringify(channel)},"data":"{}"}`);
      }
    });
    ws.on('close', () => {
      for (const channel of subs) {
        const set = channels.get(channel);
        if (!set) continue;
        set.delete(ws);
        if (set.size === 0) channels.delete(channel);
      }
    });
    ws.on('error', () => {});
  });
});

// The trigger: one frame per line; the channel is read from the frame, the text is sent unchanged.
const trigger = net.createServer((sock) => {
  let buf = '';
  sock.setEncoding('utf8');
  sock.on('data', (chunk) => {
    const arrived = process.hrtime.bigint();
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      let f;
      try {
        f = JSON.parse(line);
      } catch {
        continue;
      }
      const set = channels.get(f.channel);
      if (!set) continue;
      for (const ws of set) ws.send(line);
      observeFanout(Number(process.hrtime.bigint() - arrived) / 1e9);
    }
  });
  sock.on('error', () => {});
});

server.listen(opts.port ?? 0, host, () => {
  trigger.listen(0, host, () => {
    process.stdout.write(JSON.stringify({ port: server.address().port, trigger_port: trigger.address().port }) + '\n');
  });
});
process.on('SIGTERM', () => process.exit(0));
