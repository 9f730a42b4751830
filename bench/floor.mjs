// The floor: the least work any client must do to fetch the same answers. Reads pre-built batch bodies
// (one JSON {"domains": [...100 hosts]} per line, the distinct hosts of the input), POSTs them to
// /domains/batch with undici at a fixed concurrency, reads each answer to the end and throws it away.
// No parsing, no normalising, no dedupe, no cache, no output. Prints one JSON line: requests, hosts, ms.
//
//   node bench/floor.mjs BATCHES_FILE [CONCURRENCY]   with DOMAIN_INTEL_BASE_URL and DOMAIN_INTEL_API_KEY set
import { readFileSync } from 'node:fs';
import { request } from 'undici';

const [file, conc = '8'] = process.argv.slice(2);
const base = process.env.DOMAIN_INTEL_BASE_URL;
const key = process.env.DOMAIN_INTEL_API_KEY;
if (!file || !base || !key) {
  console.error('usage: DOMAIN_INTEL_BASE_URL=.. DOMAIN_INTEL_API_KEY=.. node bench/floor.mjs BATCHES_FILE [CONCURRENCY]');
  process.exit(2);
}
const started = performance.now();
const bodies = readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l !== '');
const url = `${base.replace(/\/$/, '')}/domains/batch`;
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
let next = 0;
let hosts = 0;
let failed = 0;

async function worker() {
  while (next < bodies.length) {
    const body = bodies[next++];
    const res = await request(url, { method: 'POST', headers, body });
    for await (const _ of res.body); // read to the end, keep nothing
    if (res.statusCode !== 200) failed++;
    else hosts += (body.match(/","/g)?.length ?? 0) + 1;
  }
}

await Promise.all(Array.from({ length: Number(conc) }, worker));
console.log(JSON.stringify({ requests: bodies.length, hosts, failed, ms: performance.now() - started }));
