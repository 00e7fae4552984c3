// Opens a documentation page of a running mediagen in headless Chromium (Debian's, through
// playwright-core), waits for the viewer to render, and prints one JSON object for
// tests/e2e/test_docs.py to judge:
//   operations  every operation of the description the page renders, read from the YAML the
//               server serves: [{method, path, operationId}]
//   rendered    the operationIds whose section the DOM holds
//   sections    the ids of the rendered description sections (section/...)
//   requests    every URL the page asked for, in order; failed: those that failed
//   errors      uncaught page errors; screenshot: where the full-page screenshot was saved
//
// Usage: node check_docs.mjs --base http://127.0.0.1:PORT --page /docs --spec /docs/openapi.yaml
//        --screenshot FILE --profile DIR [--chromium /usr/bin/chromium] [--timeout-ms 60000]
import { chromium } from 'playwright-core';
import { parse } from 'yaml';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    base: { type: 'string' },
    page: { type: 'string' },
    spec: { type: 'string' },
    screenshot: { type: 'string' },
    profile: { type: 'string' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
    'timeout-ms': { type: 'string', default: '60000' },
  },
});
const timeout = Number(args['timeout-ms']);
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

async function describedOperations() {
  const r = await fetch(args.base + args.spec, { signal: AbortSignal.timeout(timeout) });
  if (r.status !== 200) throw new Error(`${args.spec}: HTTP ${r.status}`);
  const doc = parse(await r.text());
  const out = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      if (item[method]) out.push({ method, path, operationId: item[method].operationId ?? null });
    }
  }
  return out;
}

async function main() {
  const operations = await describedOperations();
  // A persistent context is how a fresh --user-data-dir is given; every switch below keeps
  // Chromium itself from calling anywhere (updates, sync, QUIC probes, field trials).
  const context = await chromium.launchPersistentContext(args.profile, {
    executablePath: args.chromium,
    headless: true,
    timeout,
    viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const requests = [];
  const failed = [];
  const errors = [];
  try {
    context.on('request', (req) => requests.push(req.url()));
    context.on('requestfailed', (req) => failed.push({ url: req.url(), error: req.failure()?.errorText ?? '' }));
    const page = context.pages()[0] ?? await context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    const response = await page.goto(args.base + args.page, { waitUntil: 'load', timeout });
    const status = response ? response.status() : 0;
    // Redoc marks each operation's section with data-section-id "operation/<operationId>"
    // (an operation under several tags appears under each: "tag/<tag>/operation/<id>").
    await page.waitForFunction((n) => {
      const ids = new Set();
      for (const el of document.querySelectorAll('[data-section-id*="operation/"]')) {
        ids.add(el.getAttribute('data-section-id').replace(/^.*operation\//, ''));
      }
      return ids.size >= n;
    }, operations.length, { timeout, polling: 250 });
    const { rendered, sections, text } = await page.evaluate(() => {
      const ops = new Set();
      for (const el of document.querySelectorAll('[data-section-id*="operation/"]')) {
        ops.add(el.getAttribute('data-section-id').replace(/^.*operation\//, ''));
      }
      const secs = [...document.querySelectorAll('[data-section-id^="section/"]')]
        .map((el) => el.getAttribute('data-section-id'));
      return { rendered: [...ops], sections: secs, text: document.body.innerText };
    });
    const paths_missing = operations.filter((o) => !text.includes(o.path)).map((o) => o.path);
    await page.screenshot({ path: args.screenshot, fullPage: true, timeout });
    // Anything the page started late (fonts, images) is in the list too.
    await page.waitForLoadState('networkidle', { timeout });
    process.stdout.write(JSON.stringify({
      status, operations, rendered, sections, paths_missing, requests, failed, errors,
      screenshot: args.screenshot,
    }) + '\n');
  } finally {
    await context.close();
  }
}

main().catch((e) => {
  process.stderr.write(`check_docs.mjs: ${e.stack ?? e}\n`);
  process.exit(1);
});
