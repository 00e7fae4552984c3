// Validates an AsyncAPI document; exits 1 when it has errors (warnings are printed).
import { Parser } from '@asyncapi/parser';
import { readFileSync } from 'fs';
const file = process.argv[2];
const parser = new Parser();
const { document, diagnostics } = await parser.parse(readFileSync(file, 'utf8'), { source: file });
const errors = diagnostics.filter((d) => d.severity === 0);
for (const d of diagnostics) console.log(`${['error','warning','info','hint'][d.severity]} ${d.code} ${d.path.join('.')}: ${d.message}`);
if (!document || errors.length) { console.error(`${file}: ${errors.length} error(s)`); process.exit(1); }
console.log(`${file}: valid AsyncAPI ${document.version()}`);
