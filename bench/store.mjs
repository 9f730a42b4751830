// Run alone (after `npm run build`): the SQLite cache's writes as a fresh run makes them, without the rest of the
// CLI. BATCHES batches of 100 new hosts (default 5,000: the 1,000,000-row run's 500,000 answers), each asked
// for (getFresh), claimed and stored (putMany), 1 in 25 found with a body, then the cache closed (its last
// merge). Prints the milliseconds spent in each call, the slowest putMany, and the process's peak RSS.
//   node bench/store.mjs [BATCHES]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../dist/index.js';

const batches = Number(process.argv[2] || 5000);
const dir = mkdtempSync(join(tmpdir(), 'domain-intel-store-bench-'));
const body = { technologies: [{ name: 'Nginx', category: 'web-server' }], hosting: { provider: 'x' }, registrar: 'y', age_years: 3 };
const ms = { getFresh: 0, claim: 0, putMany: 0, slowestPut: 0, close: 0 };
try {
  const store = await openStore({ dir });
  for (let b = 0; b < batches; b++) {
    // Hosts spread over the key space, as a run's are.
    const hosts = Array.from({ length: 100 }, (_, i) => `h${(((b * 100 + i) * 2654435761) % 4294967296).toString(36)}.com`);
    let t = performance.now();
    await store.getFresh('profile', hosts, Number.POSITIVE_INFINITY);
    ms.getFresh += performance.now() - t;
    t = performance.now();
    await store.claim('profile', hosts);
    ms.claim += performance.now() - t;
    t = performance.now();
    await store.putMany(hosts.map((host, i) => ({ endpoint: 'profile', host, status: i % 25 ? 'missing' : 'found', body: i % 25 ? null : body })));
    const put = performance.now() - t;
    ms.putMany += put;
    ms.slowestPut = Math.max(ms.slowestPut, put);
  }
  const t = performance.now();
  await store.close();
  ms.close = performance.now() - t;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const rounded = Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, Math.round(v)]));
console.log(JSON.stringify({ batches, ms: rounded, peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024) }));
