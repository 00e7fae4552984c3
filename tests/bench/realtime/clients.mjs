// One client process of realtime_bench.sh: many Pusher sockets on the `ws` package.
//
//   node clients.mjs '{"url","appKey","secret","count","parallel","localAddress","channel" | "channelPrefix"}'
//
// Opens `count` sockets (at most `parallel` handshakes at a time) from `localAddress`, subscribes
// each with a signature made from the secret, to `channel`, or to `channelPrefix + (offset + index)`
// (one channel per socket; offset defaults to 1). Talks JSON lines: stdin takes commands, stdout answers.
//   {"cmd":"open"}            -> {"opened":ok,"failed":n,"errors":[..],"start":ms,"end":ms}
//                               start/end: epoch milliseconds (performance.timeOrigin based, so
//                               comparable across processes) of the first handshake and the last
//                               subscription_succeeded.
//   {"cmd":"expect","events":N,"delays":bool}
//                             -> once every socket got N more application events:
//                               {"deliveries":d,"last":ms,"delays":[..]} (delays: receipt time minus
//                               the "t" inside the event's data, in ms, when asked for)
//   {"cmd":"close"}           -> drops every socket, {"closed":n}
//   {"cmd":"exit"}
import crypto from 'node:crypto';
import readline from 'node:readline';

import WebSocket from 'ws';

const opts = JSON.parse(process.argv[2] || '{}');
const now = () => performance.timeOrigin + performance.now();
const sockets = [];
let expectTotal = 0;
let expectBase = 0;
let deliveries = 0;
let lastReceipt = 0;
let wantDelays = false;
let delays = [];
let firsts = new Map(); // event send time -> delay of its first receipt in this process
let waiting = false;

function out(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

function sign(socketId, channel) {
  return `${opts.appKey}:${crypto.createHmac('sha256', opts.secret).update(`${socketId}:${channel}`).digest('hex')}`;
}

function onEvent(text) {
  deliveries += 1;
  lastReceipt = now();
  if (wantDelays) {
    // data is {...,"t":<ms>} as a JSON string inside the frame: read the number without parsing.
    const at = text.lastIndexOf('t\\":');
    const t = parseFloat(text.slice(at + 4));
    const d = lastReceipt - t;
    delays.push(d);
    if (!firsts.has(t)) firsts.set(t, d);
  }
  if (waiting && deliveries >= expectTotal) report();
}

function report() {
  waiting = false;
  out({
    deliveries: deliveries - expectBase, last: lastReceipt,
    delays: wantDelays ? delays : undefined, firsts: wantDelays ? [...firsts] : undefined,
  });
}

function openOne(index) {
  return new Promise((resolve) => {
    const channel = opts.channel ?? `${opts.channelPrefix}${(opts.offset ?? 1) + index}`;
    const ws = new WebSocket(opts.url, {
      localAddress: opts.localAddress,
      perMessageDeflate: false,
      skipUTF8Validation: true,
      handshakeTimeout: 30000,
    });
    let settled = false;
    const settle = (error) => {
      if (settled) return;
      settled = true;
      resolve(error ?? null);
    };
    ws.on('error', (err) => settle(`socket ${index}: ${err.message}`));
    ws.on('close', (code) => settle(`socket ${index}: closed with ${code}`));
    ws.on('message', (raw, isBinary) => {
      const text = raw.toString('utf8');
      if (settled) {
        // Application events start with {"event":"<name>" where name has no "pusher" prefix.
        if (!isBinary && !text.startsWith('{"event":"pusher')) onEvent(text);
        return;
      }
      let f;
      try {
        f = JSON.parse(text);
      } catch {
        settle(`socket ${index}: not JSON`);
        return;
      }
      if (f.event === 'pusher:connection_established') {
        const socketId = JSON.parse(f.data).socket_id;
        ws.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel, auth: sign(socketId, channel) } }));
      } else if (f.event === 'pusher_internal:subscription_succeeded') {
        sockets.push(ws);
        settle(null);
      } else if (f.event === 'pusher:error' || f.event === 'pusher:subscription_error') {
        settle(`socket ${index}: ${text.slice(0, 200)}`);
      }
    });
  });
}

async function openAll() {
  const start = now();
  let next = 0;
  let failed = 0;
  const errors = [];
  const lane = async () => {
    while (next < opts.count) {
      const i = next;
      next += 1;
      const err = await openOne(i);
      if (err) {
        failed += 1;
        if (errors.length < 5) errors.push(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.parallel ?? 50, opts.count) }, lane));
  out({ opened: sockets.length, failed, errors, start, end: now() });
}

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const cmd = JSON.parse(line);
  if (cmd.cmd === 'open') {
    openAll();
  } else if (cmd.cmd === 'expect') {
    wantDelays = Boolean(cmd.delays);
    delays = [];
    firsts = new Map();
    expectBase = deliveries;
    expectTotal = deliveries + cmd.events * sockets.length;
    waiting = true;
    if (deliveries >= expectTotal) report();
  } else if (cmd.cmd === 'close') {
    const n = sockets.length;
    for (const ws of sockets.splice(0)) ws.terminate();
    out({ closed: n });
  } else if (cmd.cmd === 'exit') {
    for (const ws of sockets.splice(0)) ws.terminate();
    process.stdout.write('', () => process.exit(0));
  }
});
rl.on('close', () => process.exit(0));
