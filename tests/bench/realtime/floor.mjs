// The machine's own delay, for realtime_bench.sh's delay part: another Node process, idle like the
// client processes, receives a timestamp over loopback TCP and notes how late it came. No Pusher
// server is involved, so this is what waking an idle process costs on this machine.
//
//   node floor.mjs    prints {"port":N}; takes lines "<epoch ms>\n" on that port;
//                     on stdin "report" prints {"delays":[ms, ..]} and exits.
import net from 'node:net';
import readline from 'node:readline';

const now = () => performance.timeOrigin + performance.now();
const delays = [];
const server = net.createServer((sock) => {
  sock.setNoDelay(true);
  let buf = '';
  sock.setEncoding('utf8');
  sock.on('data', (chunk) => {
    const at = now();
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      delays.push(at - Number(buf.slice(0, nl)));
      buf = buf.slice(nl + 1);
    }
  });
  sock.on('error', () => {});
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== 'report') return;
  process.stdout.write(`${JSON.stringify({ delays })}\n`, () => process.exit(0));
});
