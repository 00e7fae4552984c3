// Opens and closes many Pusher sockets, a few at a time, and prints one JSON summary line.
//
//   node churn.mjs '{"host","port","appKey","count":1000,"parallel":50,"channel":..,"secret":..}'
//
// Each socket waits for pusher:connection_established; when channel and secret are given it then
// subscribes with a signature made from the secret (HMAC-SHA256 of "<socket_id>:<channel>") and
// waits for pusher_internal:subscription_succeeded. Every other socket then closes with a close
// handshake; the rest are dropped without one (terminate). Summary:
//   {"opened":N,"established":N,"subscribed":N,"closed":N,"failed":N,"errors":[...first few...]}
import crypto from 'node:crypto';

import WebSocket from 'ws';

const opts = JSON.parse(process.argv[2] || '{}');
const count = opts.count ?? 1000;
const parallel = opts.parallel ?? 50;
const url = `ws://${opts.host}:${opts.port}/app/${opts.appKey}?protocol=7`;
const stats = { opened: 0, established: 0, subscribed: 0, closed: 0, failed: 0, errors: [] };

function sign(socketId, channel) {
  const hex = crypto.createHmac('sha256', opts.secret).update(`${socketId}:${channel}`).digest('hex');
  return `${opts.appKey}:${hex}`;
}

function one(index) {
  return new Promise((resolve) => {
    let done = false;
    const ws = new WebSocket(url);
    stats.opened += 1;
    const finish = (error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (error) {
        stats.failed += 1;
        if (stats.errors.length < 5) stats.errors.push(error);
        ws.terminate();
        resolve();
        return;
      }
      if (index % 2 === 0) {
        ws.once('close', () => {
          stats.closed += 1;
          resolve();
        });
        ws.close(1000);
      } else {
        ws.terminate();
        stats.closed += 1;
        resolve();
      }
    };
    const timer = setTimeout(() => finish(`socket ${index}: no answer within 10 s`), 10000);
    ws.on('error', (err) => finish(`socket ${index}: ${err.message}`));
    ws.on('close', (code) => finish(`socket ${index}: closed early with ${code}`));
    ws.on('message', (raw) => {
      let frame;
      try {
        frame = JSON.parse(raw.toString('utf8'));
      } catch {
        finish(`socket ${index}: not JSON: ${raw.toString('utf8').slice(0, 100)}`);
        return;
      }
      if (frame.event === 'pusher:connection_established') {
        stats.established += 1;
        if (!opts.channel) {
          finish();
          return;
        }
        const socketId = JSON.parse(frame.data).socket_id;
        ws.send(JSON.stringify({
          event: 'pusher:subscribe',
          data: { channel: opts.channel, auth: sign(socketId, opts.channel) },
        }));
      } else if (frame.event === 'pusher_internal:subscription_succeeded') {
        stats.subscribed += 1;
        finish();
      } else if (frame.event === 'pusher:error' || frame.event === 'pusher:subscription_error') {
        finish(`socket ${index}: ${raw.toString('utf8').slice(0, 200)}`);
      }
    });
  });
}

let next = 0;
async function lane() {
  while (next < count) {
    const index = next;
    next += 1;
    await one(index);
  }
}

await Promise.all(Array.from({ length: Math.min(parallel, count) }, lane));
process.stdout.write(JSON.stringify(stats) + '\n', () => process.exit(0));
