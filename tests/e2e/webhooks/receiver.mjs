// A webhook receiver for tests/e2e/test_webhooks.py. It records every delivery and answers by
// the path's first segment:
//   /ok/...        200
//   /fail2/...     500 to the first two deliveries of a webhook-id, then 200
//   /gone/...      410
//   /status/N/...  N
//   /stall/...     accepts the request and never answers
//   /slow/N/...    200 after N milliseconds
//   /big/...       200 with a 1 MB body
//   /redirect/...  302 to the URL in the `to` query parameter
// Control (not recorded): GET /_control/log -> [{path, headers, body, at, mono}],
// POST /_control/verify {secret, headers, body} -> {ok, error} through the standardwebhooks
// package, which is how a receiver written against the Standard Webhooks spec checks them.
// Prints {"port": N} once listening on 127.0.0.1 (or the address in argv[2]).
import http from 'node:http';
import { Webhook } from 'standardwebhooks';

const host = process.argv[2] || '127.0.0.1';
const log = [];
const seen = new Map();

function readBody(req) {
  return new Promise((resolve, reject) => {
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function json(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://receiver');
  const body = await readBody(req);
  if (url.pathname === '/_control/log') return json(res, 200, log);
  if (url.pathname === '/_control/verify') {
    const asked = JSON.parse(body);
    try {
      new Webhook(asked.secret).verify(asked.body, asked.headers);
      return json(res, 200, { ok: true, error: null });
    } catch (e) {
      return json(res, 200, { ok: false, error: String(e && e.message ? e.message : e) });
    }
  }
  const headers = {};
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type', 'user-agent']) {
    if (req.headers[name] !== undefined) headers[name] = req.headers[name];
  }
  // at: the wall clock (a faked one where the test fakes it); mono: CLOCK_MONOTONIC in ms, never faked,
  // which the test process reads too (time.monotonic()).
  log.push({ path: url.pathname, method: req.method, headers, body, at: Date.now(), mono: Number(process.hrtime.bigint() / 1000000n) });
  const [, kind, arg] = url.pathname.split('/');
  if (kind === 'stall') return;  // never answered: the sender's timeout ends it
  if (kind === 'gone') return json(res, 410, { gone: true });
  if (kind === 'slow') return setTimeout(() => json(res, 200, { ok: true }), Number(arg));
  if (kind === 'big') return json(res, 200, { filler: 'x'.repeat(1 << 20) });
  if (kind === 'status') return json(res, Number(arg), { status: Number(arg) });
  if (kind === 'redirect') {
    res.writeHead(302, { location: url.searchParams.get('to') || '/' });
    return res.end();
  }
  if (kind === 'fail2') {
    const id = headers['webhook-id'] || '';
    const n = (seen.get(id) || 0) + 1;
    seen.set(id, n);
    if (n <= 2) return json(res, 500, { attempt: n });
  }
  return json(res, 200, { ok: true });
});
server.keepAliveTimeout = 1000;
server.listen(0, host, () => {
  process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n');
});
