// A realtime client driven over stdin/stdout by tests/e2e/test_realtime.py.
//
//   node client.mjs '<json options>'
//
// Options: {"mode": "pusher" | "echo" | "raw", "host", "port", "appKey", "authEndpoint", "apiKey", "timeoutMs"}
// and for raw only: "path" (default "/app/<appKey>"), "query" (default "protocol=7"), "autoPong" (answer
// pusher:ping), "controlPong" (answer WebSocket ping frames, default true).
//
// pusher: a stock pusher-js client (its Node build) authorizing through authEndpoint with X-API-KEY.
// echo:   Laravel Echo on top of that pusher-js client; subscriptions listen with Echo's
//         .private(name).listen('.event', ...) spelling.
// raw:    a plain `ws` socket that sends exactly what it is told.
//
// Every observation is one JSON line on stdout:
//   {"type":"ready"}                                  the client is set up (not necessarily connected)
//   {"type":"state","previous":..,"current":..}       pusher-js connection states (pusher, echo)
//   {"type":"connected","socket_id":..}               pusher-js connected, or raw got connection_established
//   {"type":"frame","event":..,"channel":..,"data":..,"raw":..}  every frame received (data parsed when it is JSON)
//   {"type":"event","channel":..,"event":..,"data":..}  an event delivered to a channel callback (pusher, echo)
//   {"type":"subscribed","channel":..}                subscription succeeded (pusher, echo)
//   {"type":"subscription_error","channel":..,"error":..}  the error callback of a subscription (pusher, echo)
//   {"type":"error","error":..}                       a connection-level error (pusher-js 'error' event)
//   {"type":"closed","code":..,"reason":..}           the socket closed (raw)
//   {"type":"sent","bytes":..}                        a raw frame was written
//   {"type":"bye","reason":..}                        the process is about to exit
// Commands are JSON lines on stdin:
//   {"cmd":"subscribe","channel":..,"events":[..]}   pusher: channel name with its prefix; echo: the name
//                                                    without "private-", events with Echo's leading dot
//   {"cmd":"unsubscribe","channel":..}
//   {"cmd":"send","text":..} | {"cmd":"send_binary","hex":..} | {"cmd":"send_size","bytes":N}  raw
//   {"cmd":"autopong","on":true|false}                raw
//   {"cmd":"close","code":..}                        raw: close the socket
//   {"cmd":"exit"}
// The process also exits after timeoutMs (default 60000) or when stdin closes.
import readline from 'node:readline';

import Echo from 'laravel-echo';
import Pusher from 'pusher-js';
import WebSocket from 'ws';

const opts = JSON.parse(process.argv[2] || '{}');
const timeoutMs = opts.timeoutMs ?? 60000;
let exiting = false;

function out(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

function parseMaybe(text) {
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function exit(reason, code = 0) {
  if (exiting) return;
  exiting = true;
  try {
    if (client && client.shutdown) client.shutdown();
  } catch {
    // best effort
  }
  process.stdout.write(JSON.stringify({ type: 'bye', reason }) + '\n', () => process.exit(code));
}

function pusherClient() {
  Pusher.logToConsole = false;
  const pusher = new Pusher(opts.appKey, {
    cluster: 'mt1',
    wsHost: opts.host,
    wsPort: opts.port,
    forceTLS: false,
    enabledTransports: ['ws'],
    disableStats: true,
    channelAuthorization: {
      endpoint: opts.authEndpoint,
      transport: 'ajax',
      headers: { 'X-API-KEY': opts.apiKey },
    },
  });
  pusher.connection.bind('state_change', (s) => out({ type: 'state', previous: s.previous, current: s.current }));
  pusher.connection.bind('connected', () => out({ type: 'connected', socket_id: pusher.connection.socket_id }));
  pusher.connection.bind('error', (err) => out({ type: 'error', error: err }));
  pusher.connection.bind('message', (m) =>
    out({ type: 'frame', event: m.event, channel: m.channel ?? null, data: parseMaybe(m.data) }));
  return pusher;
}

function pusherMode() {
  const pusher = pusherClient();
  return {
    subscribe(cmd) {
      const channel = pusher.subscribe(cmd.channel);
      channel.bind('pusher:subscription_succeeded', () => out({ type: 'subscribed', channel: cmd.channel }));
      channel.bind('pusher:subscription_error', (error) =>
        out({ type: 'subscription_error', channel: cmd.channel, error }));
      channel.bind_global((event, data) => {
        if (event.startsWith('pusher:')) return;
        out({ type: 'event', channel: cmd.channel, event, data });
      });
    },
    unsubscribe(cmd) {
      pusher.unsubscribe(cmd.channel);
    },
    shutdown() {
      pusher.disconnect();
    },
  };
}

function echoMode() {
  const pusher = pusherClient();
  const echo = new Echo({ broadcaster: 'pusher', client: pusher });
  return {
    subscribe(cmd) {
      const channel = echo.private(cmd.channel);
      channel.subscribed(() => out({ type: 'subscribed', channel: cmd.channel }));
      channel.error((error) => out({ type: 'subscription_error', channel: cmd.channel, error }));
      for (const name of cmd.events || []) {
        channel.listen(name, (data) => out({ type: 'event', channel: cmd.channel, event: name, data }));
      }
    },
    unsubscribe(cmd) {
      echo.leave(cmd.channel);
    },
    shutdown() {
      echo.disconnect();
    },
  };
}

function rawMode() {
  const query = opts.query ?? 'protocol=7';
  const path = opts.path ?? `/app/${opts.appKey}`;
  const url = `ws://${opts.host}:${opts.port}${path}${query ? '?' + query : ''}`;
  let autoPong = Boolean(opts.autoPong);
  // controlPong false: WebSocket-level pings go unanswered too (a truly silent client).
  const ws = new WebSocket(url, { maxPayload: 16 * 1024 * 1024, autoPong: opts.controlPong ?? true,
                                  headers: opts.headers ?? {} });
  ws.on('unexpected-response', (req, res) => {
    out({ type: 'http_response', status: res.statusCode });
    res.resume();
  });
  ws.on('error', (err) => out({ type: 'socket_error', error: String(err.message || err) }));
  ws.on('message', (data, isBinary) => {
    const text = data.toString('utf8');
    let frame = null;
    try {
      frame = JSON.parse(text);
    } catch {
      // reported as raw below
    }
    if (isBinary || !frame || typeof frame !== 'object') {
      out({ type: 'frame', event: null, channel: null, data: null, raw: text, binary: isBinary });
      return;
    }
    out({ type: 'frame', event: frame.event ?? null, channel: frame.channel ?? null, data: parseMaybe(frame.data), raw: text });
    if (frame.event === 'pusher:connection_established') {
      const d = parseMaybe(frame.data) || {};
      out({ type: 'connected', socket_id: d.socket_id ?? null, activity_timeout: d.activity_timeout ?? null });
    }
    if (frame.event === 'pusher:ping' && autoPong) {
      ws.send(JSON.stringify({ event: 'pusher:pong', data: {} }));
    }
  });
  ws.on('close', (code, reason) => {
    out({ type: 'closed', code, reason: reason.toString('utf8') });
  });
  const send = (payload, binary) =>
    ws.send(payload, { binary }, (err) =>
      out(err ? { type: 'send_error', error: String(err.message || err) } : { type: 'sent', bytes: payload.length }));
  return {
    send(cmd) {
      send(Buffer.from(cmd.text, 'utf8'), false);
    },
    send_binary(cmd) {
      send(Buffer.from(cmd.hex, 'hex'), true);
    },
    send_size(cmd) {
      // A valid pusher:ping text frame of exactly cmd.bytes bytes (padded with an extra field).
      const head = '{"event":"pusher:ping","data":{},"pad":"';
      const tail = '"}';
      const fill = Math.max(0, cmd.bytes - head.length - tail.length);
      send(Buffer.from(head + 'x'.repeat(fill) + tail, 'utf8'), false);
    },
    autopong(cmd) {
      autoPong = Boolean(cmd.on);
    },
    close(cmd) {
      ws.close(cmd.code ?? 1000);
    },
    shutdown() {
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.terminate();
    },
  };
}

const modes = { pusher: pusherMode, echo: echoMode, raw: rawMode };
if (!modes[opts.mode]) {
  process.stderr.write(`unknown mode ${opts.mode}\n`);
  process.exit(2);
}
const client = modes[opts.mode]();
out({ type: 'ready' });

const timer = setTimeout(() => exit('timeout'), timeoutMs);
timer.unref();

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  if (!line.trim()) return;
  let cmd;
  try {
    cmd = JSON.parse(line);
  } catch {
    out({ type: 'command_error', error: `not JSON: ${line}` });
    return;
  }
  if (cmd.cmd === 'exit') {
    exit('exit');
    return;
  }
  const fn = client[cmd.cmd];
  if (!fn) {
    out({ type: 'command_error', error: `unknown command ${cmd.cmd} for mode ${opts.mode}` });
    return;
  }
  try {
    fn(cmd);
  } catch (err) {
    out({ type: 'command_error', error: String(err && err.message ? err.message : err) });
  }
});
rl.on('close', () => exit('stdin closed'));
